package luabind_test

import (
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

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
