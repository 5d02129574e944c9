package luabind_test

import (
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Quote's literal reads back as the same bytes, in gopher-lua and (the
// escapes are Lua 5.1's) in PUC Lua.
func TestQuoteReadsBack(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	for _, s := range []string{"", "plain", `"quoted" \ back`, "line\nbreak\r\ttab", "\x01" + "2", "\x00\x7f9", "é ü", "]]--[["} {
		require.NoError(t, L.DoString("return "+luabind.Quote(s)), luabind.Quote(s))
		require.Equal(t, lua.LString(s), L.Get(-1), luabind.Quote(s))
		L.Pop(1)
	}
}

func TestIsName(t *testing.T) {
	for s, want := range map[string]bool{"hp": true, "_x1": true, "X": true, "": false, "1x": false, "a-b": false, "end": false, "goto": false, "ends": true, "é": false} {
		require.Equal(t, want, luabind.IsName(s), s)
	}
}

// Every instruction the compile step produces has a line of the script,
// the ones its rewrites add included: a budget stop can fire at any
// instruction, and its error names that instruction's line.
func TestEveryInstructionHasALine(t *testing.T) {
	src := `local ai = require("luaai")
local t = {}
local function f(ctx, x)
  local s = "a" .. x .. ctx.name
  if io then io.write(s) end
  for i = 1, 3 do t[i] = s .. i end
  return #t, math.max(1, x), s:rep(2)
end
return f`
	proto, err := luabind.Compile(strings.NewReader(src), "lines.lua")
	require.NoError(t, err)
	var check func(p *lua.FunctionProto)
	check = func(p *lua.FunctionProto) {
		for pc, line := range p.DbgSourcePositions {
			require.Positive(t, line, "instruction %d of\n%s", pc, p.String())
		}
		for _, c := range p.FunctionPrototypes {
			check(c)
		}
	}
	check(proto)
}
