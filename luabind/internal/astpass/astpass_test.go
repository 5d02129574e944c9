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

// Absent rewrites uses of missing names into a check that names them,
// leaves reads (feature tests) alone, and keeps a name the script defined.
func TestAbsent(t *testing.T) {
	m := Missing{
		Global: func(n string) bool { return n == "dofile" },
		Field:  func(lib, n string) bool { return lib == "os" && n == "execute" || lib == "debug" && n != "traceback" },
		Lib:    func(lib string) bool { return lib == "io" },
	}
	run := func(src string) (string, error) {
		chunk, err := parse.Parse(strings.NewReader(src), "t.lua")
		require.NoError(t, err)
		proto, err := lua.Compile(Absent(chunk, "(absent)", "absent_global", m), "t.lua")
		require.NoError(t, err)
		L := lua.NewState()
		defer L.Close()
		L.SetGlobal("io", lua.LNil)
		L.SetGlobal("dofile", lua.LNil)
		L.SetGlobal("debug", L.NewTable())
		L.GetGlobal("os").(*lua.LTable).RawSetString("execute", lua.LNil)
		L.SetGlobal("absent_global", L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("%s is not available", L.CheckString(1))
			return 0
		}))
		L.Push(L.NewFunctionFromProto(proto))
		if err := L.PCall(0, 1, nil); err != nil {
			return "", err
		}
		return L.Get(-1).String(), nil
	}
	for _, tc := range []struct{ src, want, err string }{
		{`return tostring(io and io.write or print == print)`, "true", ""},
		{`return tostring(debug.getinfo)`, "nil", ""},
		{`return io.write("x")`, "", "t.lua:1: io.write is not available"},
		{`local f = io.lines return 1`, "", "t.lua:1: io.lines is not available"},
		{`return io:write("x")`, "", "t.lua:1: io.write is not available"},
		{"\n\nreturn dofile('x')", "", "t.lua:3: dofile is not available"},
		{`return os.execute("ls")`, "", "t.lua:1: os.execute is not available"},
		{`return debug.getinfo(1)`, "", "t.lua:1: debug.getinfo is not available"},
		{`function dofile() return "mine" end return dofile()`, "mine", ""},
		{`local os = { execute = function() return "own" end } return os.execute()`, "own", ""},
	} {
		got, err := run(tc.src)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.src)
			continue
		}
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.want, got, tc.src)
	}
	plain, err := parse.Parse(strings.NewReader("return os.time()"), "t.lua")
	require.NoError(t, err)
	require.Len(t, Absent(plain, "(absent)", "g", m), 1, "no use of a missing name: no declaration added")
}

// Every instruction a concatenation compiles to has the line of the
// expression, the load of the concatenating function too: a budget stop
// there names the script's line.
func TestConcatKeepsTheLine(t *testing.T) {
	chunk, err := parse.Parse(strings.NewReader("local a, b = 1, 2\n\nlocal c = a .. b\nreturn c"), "x.lua")
	require.NoError(t, err)
	chunk = Concat(chunk, "(cat)", "cat")
	proto, err := lua.Compile(chunk, "x.lua")
	require.NoError(t, err)
	for pc, line := range proto.DbgSourcePositions {
		require.NotZero(t, line, "instruction %d of\n%s", pc, proto.String())
	}
}
