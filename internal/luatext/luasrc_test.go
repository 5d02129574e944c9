package luatext_test

import (
	"testing"

	"github.com/luaai/luaai/internal/luatext"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Quote's literal reads back as the same bytes, in gopher-lua and (the
// escapes are Lua 5.1's) in PUC Lua.
func TestQuoteReadsBack(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for _, s := range []string{"", "plain", `"quoted" \ back`, "line\nbreak\r\ttab", "\x01" + "2", "\x00\x7f9", "é ü", "]]--[["} {
		require.NoError(t, L.DoString("return "+luatext.Quote(s)), luatext.Quote(s))
		require.Equal(t, lua.LString(s), L.Get(-1), luatext.Quote(s))
		L.Pop(1)
	}
}

func TestIsName(t *testing.T) {
	for s, want := range map[string]bool{"hp": true, "_x1": true, "X": true, "": false, "1x": false, "a-b": false, "end": false, "goto": false, "ends": true, "é": false} {
		require.Equal(t, want, luatext.IsName(s), s)
	}
}
