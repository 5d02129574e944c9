package host_test

import (
	"runtime"
	"testing"
	"weak"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// heldThing is a Go value bound in a context, large enough that keeping
// it alive would matter.
type heldThing struct{ buf [1 << 16]byte }

// retainScorers is a root utility machine whose scorers decisions plan
// (a native and a compiled Lua one), so each machine record remembers
// where the context's map holds their fields.
const retainScorers = `local ai = require("luaai")
return ai.utility { context = { a = 0.5, b = 0.25 }, states = {
  x = { score = function(ctx) return ctx.a * (1 - ctx.b) end },
  y = { score = ai.product(ai.field("b"), ai.inverse(ai.field("a"))) } } }`

// collected runs the collector until w's value is gone, a few times at
// most, and says whether it went.
func collected[T any](w weak.Pointer[T]) bool {
	for range 5 {
		runtime.GC()
		if w.Value() == nil {
			return true
		}
	}
	return false
}

// A utility machine that is left keeps nothing alive of the context's map
// as it was when it last decided: here the map grows (new slots) and the
// bound value is taken out of it after the machine is left.
func TestLeftUtilityMachineKeepsNoOldSlots(t *testing.T) {
	src := `local ai = require("luaai")
return ai.fsm { initial = "u", context = { a = 0.5, b = 0.25 }, states = {
  u = ai.utility { states = {
      x = { score = function(ctx) return ctx.a * (1 - ctx.b) end },
      y = { score = ai.product(ai.field("b"), ai.inverse(ai.field("a"))) } },
    transitions = { { to = "idle", on = "leave" } } },
  idle = { enter = function(ctx) for i = 1, 30 do ctx["k" .. i] = i end ctx.obj = nil end },
} }`
	h, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("r.lua", src)
	require.NoError(t, err)
	var w weak.Pointer[heldThing]
	var a *host.Agent
	func() {
		obj := &heldThing{}
		w = weak.Make(obj)
		a, err = h.Spawn(b, map[string]any{"obj": obj})
		require.NoError(t, err)
	}()
	for range 3 {
		require.NoError(t, h.Tick(0.1))
	}
	require.Equal(t, "u.x", a.Path())
	require.NoError(t, a.Send("leave", nil))
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "idle", a.Path())
	require.True(t, collected(w), "the left machine's remembered slots keep the old map's values")
}
