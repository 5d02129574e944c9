package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// churnSource is a utility behaviour whose updates add and remove up to 80
// context keys every tick (the context's map grows, and its slots change,
// under the fields its scorers read, around the size up to which decisions
// remember where the fields are) and set a scored field to nil now and
// then (a Lua scorer's arithmetic on it fails).
const churnSource = `local ai = require("luaai")
return ai.utility { context = { a = 0.5, b = 0.25, c = 0.75, n = 0 }, states = {
  x = { score = ai.product(ai.field("a"), ai.inverse(ai.field("b"))),
    update = function(ctx)
      ctx.n = ctx.n + 1
      for i = 1, (ctx.n % 7) * 5 do ctx["k" .. i] = i end
      if ctx.n % 3 == 0 then for i = 1, 35 do ctx["k" .. i] = nil end end
      ctx.a, ctx.b = ctx.b or 0.4, (ctx.c * ctx.n) % 1
      if ctx.n % 5 == 0 then ctx.b = nil end
    end },
  y = { score = function(ctx) return ctx.b * (1 - ctx.a) end,
    update = function(ctx)
      ctx.c = (ctx.c + 0.37) % 1; ctx.b = ((ctx.b or 0.3) * 1.7) % 1; ctx.n = ctx.n + 1
    end },
  z = { score = ai.product(ai.field("c"), ai.inverse(ai.field("a"))),
    update = function(ctx)
      ctx.a = (ctx.a + 0.29) % 1; ctx.c = (ctx.c * 3.1) % 1; ctx.n = ctx.n + 1
      for i = 1, (ctx.n % 11) * 4 do ctx["q" .. i] = i end
      if ctx.n % 4 == 0 then for i = 1, 44 do ctx["q" .. i] = nil end end
    end },
} }`

// Utility decisions over a context that churns (churnSource) choose and
// fail the same with compiling on, where decisions remember where the
// context's map keeps each field, as with it off, where every field is
// looked up by the VM's scorers.
func TestUtilityChurningContext(t *testing.T) {
	run := func(compiled bool) []string {
		var got []string
		h, err := host.New(host.Options{Workers: 1, ReportAllErrors: true,
			OnTransition: func(tr host.Transition) { got = append(got, fmt.Sprintf("%d %v", tr.Tick, tr)) },
			OnError:      func(e *host.ScriptError) { got = append(got, "error "+e.Error()) }})
		require.NoError(t, err)
		defer h.Close()
		host.VM(h).SetCompiled(compiled)
		b, err := h.LoadString("churn.lua", churnSource)
		require.NoError(t, err)
		for range 10 {
			_, err := h.Spawn(b, nil)
			require.NoError(t, err)
		}
		for range 200 {
			require.NoError(t, h.Tick(0.1))
		}
		return got
	}
	on, off := run(true), run(false)
	require.Equal(t, off, on)
	selects, errs := countDecisions(on)
	require.Greater(t, selects, 1000, "decisions that changed state")
	require.Greater(t, errs, 10, "scorers that failed on a nil field")
}

// countDecisions counts, in a run's lines, the decisions that changed
// state (select) and the scorers' errors.
func countDecisions(lines []string) (selects, errs int) {
	for _, s := range lines {
		if strings.HasPrefix(s, "error ") {
			errs++
		} else if strings.Contains(s, "select") {
			selects++
		}
	}
	return selects, errs
}
