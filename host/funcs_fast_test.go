package host_test

import (
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// The numeric shapes a game's functions commonly have are called without
// reflection, with the same argument checks and results as any other.
func TestNumericFuncs(t *testing.T) {
	calls := 0
	h, err := host.New(host.Options{Funcs: map[string]map[string]any{"m": {
		"zero":  func() float64 { return 7 },
		"neg":   func(x float64) float64 { return -x },
		"add":   func(x, y float64) float64 { return x + y },
		"sum3":  func(x, y, z float64) float64 { return x + y + z },
		"pos":   func(x float64) bool { return x > 0 },
		"less":  func(x, y float64) bool { return x < y },
		"note":  func(float64) { calls++ },
		"note2": func(float64, float64) { calls++ },
	}}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("num.lua", `local ai = require("luaai")
local m = require("m")
return ai.fsm { initial = "s", context = { out = "" }, states = { s = { enter = function(ctx)
  m.note(1) m.note2(1, 2)
  ctx.out = table.concat({ m.zero(), m.neg(2), m.add(1, 2), m.sum3(1, 2, 3), tostring(m.pos(1)), tostring(m.less(2, 1)) }, " ")
  local ok, err = pcall(m.add, 1, "two")
  ctx.err = err
end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	out, _ := a.Text("out")
	require.Equal(t, "7 -2 3 6 true false", out)
	msg, _ := a.Text("err")
	require.Equal(t, "num.lua:6: bad argument #2 to 'm.add' (number expected, got string)", msg)
	require.Equal(t, 2, calls)
}
