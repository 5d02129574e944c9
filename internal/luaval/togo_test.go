package luaval

import (
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

func TestToGo(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	v, err := run(L, `
local cyc = { name = "c" }
cyc.self = cyc
local deep = {}
local cur = deep
for _ = 1, 70 do cur.next = {} cur = cur.next end
local shared = { 1 }
return {
  n = 1.5, s = "x", b = false, arr = { "a", "b" }, holes = { [1] = "a", [3] = "c" },
  mixed = { 1, k = 2, [2.5] = 3, [true] = 4 }, empty = {}, fn = print,
  co = coroutine.create(print), cyc = cyc, deep = deep, nan = 0/0, inf = 1/0,
  one = shared, two = shared,
}`)
	require.NoError(t, err)
	got := ToGo(v).(map[string]any)
	require.Equal(t, 1.5, got["n"])
	require.Equal(t, "x", got["s"])
	require.Equal(t, false, got["b"])
	require.Equal(t, []any{"a", "b"}, got["arr"])
	require.Equal(t, map[string]any{"1": "a", "3": "c"}, got["holes"])
	require.Equal(t, map[string]any{"1": 1.0, "k": 2.0, "2.5": 3.0, "true": 4.0}, got["mixed"])
	require.Equal(t, map[string]any{}, got["empty"])
	require.Equal(t, "function", got["fn"])
	require.Equal(t, "thread", got["co"])
	require.Equal(t, map[string]any{"name": "c", "self": "<cycle>"}, got["cyc"])
	require.True(t, math.IsNaN(got["nan"].(float64)))
	require.True(t, math.IsInf(got["inf"].(float64), 1))
	require.Equal(t, []any{1.0}, got["one"], "a table reached twice is converted at each place")
	require.Equal(t, []any{1.0}, got["two"])
	d := got["deep"]
	for i := 0; i < MaxGoDepth-1; i++ {
		d = d.(map[string]any)["next"]
	}
	require.Equal(t, "<too deep>", d)

	ud := L.NewUserData()
	ud.Value = struct{ X int }{7}
	require.Equal(t, struct{ X int }{7}, ToGo(ud))
	require.Nil(t, ToGo(lua.LNil))
}

// A table shared many ways is converted once: forty levels of a table
// holding the one below twice (2^40 places) convert in linear time.
func TestToGoSharedOnce(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	v, err := run(L, `local t = { leaf = true }
for _ = 1, 40 do t = { a = t, b = t } end
return t`)
	require.NoError(t, err)
	got := ToGo(v).(map[string]any)
	a, b := got["a"].(map[string]any), got["b"].(map[string]any)
	require.Equal(t, reflect.ValueOf(a).UnsafePointer(), reflect.ValueOf(b).UnsafePointer(), "one Go map for one Lua table")
}

// run runs a chunk and returns its one result.
func run(L *lua.LState, src string) (lua.LValue, error) {
	if err := L.DoString(src); err != nil {
		return nil, err
	}
	return L.Get(-1), nil
}
