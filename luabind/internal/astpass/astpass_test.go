package astpass

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

func TestTooDeep(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		deep bool
		line int
	}{
		{"flat", "local x = 1\nreturn x", false, 0},
		{"long chain stays under", "return 1" + strings.Repeat(" + 1", 900), false, 0},
		{"nested blocks", strings.Repeat("do\n", MaxDepth+5) + strings.Repeat("end ", MaxDepth+5), true, MaxDepth + 1},
		{"not not not", "return " + strings.Repeat("not ", MaxDepth+5) + "x", true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunk, err := parse.Parse(strings.NewReader(tc.src), "t.lua")
			require.NoError(t, err)
			line, deep := TooDeep(chunk)
			require.Equal(t, tc.deep, deep)
			require.Equal(t, tc.line, line)
		})
	}
}

func TestConcat(t *testing.T) {
	src := `local function two() return "b", "c" end
local s = "a" .. two() .. 1 .. (two())
return s, "x" .. "y"`
	chunk, err := parse.Parse(strings.NewReader(src), "t.lua")
	require.NoError(t, err)
	proto, err := lua.Compile(Concat(chunk, "(cat)", "cat_global"), "t.lua")
	require.NoError(t, err)
	L := lua.NewState()
	defer L.Close()
	var calls []int
	L.SetGlobal("cat_global", L.NewFunction(func(L *lua.LState) int {
		calls = append(calls, L.GetTop())
		var b strings.Builder
		for i := 1; i <= L.GetTop(); i++ {
			b.WriteString(L.ToString(i))
		}
		L.Push(lua.LString(b.String()))
		return 1
	}))
	L.Push(L.NewFunctionFromProto(proto))
	require.NoError(t, L.PCall(0, 2, nil))
	require.Equal(t, "ab1b", L.ToString(1), "each operand gives one value")
	require.Equal(t, "xy", L.ToString(2))
	require.Equal(t, []int{4, 2}, calls, "a chain is one call")

	plain, err := parse.Parse(strings.NewReader("return 1 + 2"), "t.lua")
	require.NoError(t, err)
	require.Len(t, Concat(plain, "(cat)", "cat_global"), 1, "no `..`: no declaration added")
}
