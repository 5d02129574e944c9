package host_test

import (
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// A panic in a typed function is the calling callback's error, at the
// calling line, the same whether the function has a fast adapter or goes
// through reflection.
func TestFuncPanicIsTheCallbacksError(t *testing.T) {
	h, err := host.New(host.Options{Funcs: map[string]map[string]any{"game": {
		"fast": func(a *host.Agent, x float64) (float64, error) { panic("boom in Go") },
		"slow": func(a *host.Agent, x float64, _ map[string]any) (float64, error) { panic("boom in Go") },
	}}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("panic.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "s", context = { which = "fast" }, states = { s = {
  update = function(ctx)
    if ctx.which == "fast" then game.fast(1) else game.slow(1, {}) end
  end } } }`)
	require.NoError(t, err)
	fast, err := h.Spawn(b, nil)
	require.NoError(t, err)
	slow, err := h.Spawn(b, map[string]any{"which": "slow"})
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	fe, se := fast.TakeErrors(), slow.TakeErrors()
	require.Len(t, fe, 1)
	require.Len(t, se, 1)
	require.Contains(t, fe[0].Error(), "boom in Go")
	require.Equal(t, fe[0].Line, se[0].Line)
	require.Equal(t, fe[0].Msg, se[0].Msg)
	require.Equal(t, 5, fe[0].Line, fe[0].Error())
}
