package suggest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClosest(t *testing.T) {
	flags := []string{"ticks", "dt", "hz", "agents", "workers", "seed", "set", "trace", "json", "watch", "strict"}
	for _, tc := range []struct{ name, want string }{
		{"tick", "ticks"}, {"agent", "agents"}, {"wacth", "watch"}, {"stric", "strict"},
		{"x", ""}, {"verbose", ""}, {"sed", "seed"}, // a tie with "set": the first in sorted order
	} {
		require.Equal(t, tc.want, Closest(tc.name, flags), tc.name)
	}
	require.Equal(t, 1, Distance("ab", "ba"))
	require.Equal(t, 3, Distance("", "abc"))
	require.Equal(t, 0, Distance("same", "same"))
}
