package luaai_test

import (
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

func TestGuardSeedTrace(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadFile("scripts/guard.lua")
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	a.Set("waypoint", "found")
	want := []struct{ root, waypoint, player string }{
		{"patrol", "reached", "none"},
		{"patrol", "found", "none"},
		{"combat", "found", "reached"},
		{"combat", "found", "none"},
		{"patrol", "found", "none"},
		{"patrol", "reached", "none"},
	}
	for i, w := range want {
		if i == 2 {
			a.Set("player", "found")
		}
		require.NoError(t, a.Tick(0.1))
		require.True(t, a.Active(w.root), "tick %d: %s", i+1, a.Path())
		wp, _ := a.String("waypoint")
		pl, _ := a.String("player")
		require.Equal(t, w.waypoint, wp, "tick %d waypoint", i+1)
		require.Equal(t, w.player, pl, "tick %d player", i+1)
	}
	require.Empty(t, a.Errors())
}
