package host_test

import (
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/luaval"
	"github.com/stretchr/testify/require"
)

// host states the sequence limit itself (a game need not import luabind),
// and it is the Lua machine's; a list past it is refused with ErrLongList.
func TestMaxSequenceAndLongLists(t *testing.T) {
	require.Equal(t, luaval.MaxSequence, host.MaxSequence)
	require.NoError(t, host.CheckLists(make([]any, host.MaxSequence)))
	err := host.CheckLists(map[string]any{"l": make([]any, host.MaxSequence+1)})
	require.ErrorIs(t, err, host.ErrLongList)
	require.ErrorIs(t, err, luaval.ErrLongList)
}
