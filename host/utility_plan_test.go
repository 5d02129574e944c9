package host_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// planned mixes every kind of scorer: natives and Lua scorers a decision's
// score plan runs, and ones it leaves to the VM (a loop, ai.cond, a Lua
// factor in a native); the updates move the fields, and set them to
// strings, nil and NaN now and then, so scores are coerced, raise and are
// not numbers.
const planned = `local ai = require("luaai")
local function drift(ctx, dt)
  ctx.tick = ctx.tick + 1
  local k = ctx.tick %% 7
  if k == 0 then ctx.a = "0.25" elseif k == 3 then ctx.b = nil elseif k == 5 then ctx.c = 0/0
  else ctx.a, ctx.b, ctx.c = (ctx.tick * 0.37) %% 1, (ctx.tick * 0.61) %% 1, (ctx.tick * 0.13) %% 1 end
end
return ai.utility {
  context = { a = 0.5, b = 0.25, c = 0.75, tick = 0, t = { x = 0.5 } },
  %s
  states = {
    s0 = { score = ai.product(ai.field("a"), ai.inverse(ai.field("b"))), update = drift },
    s1 = { score = function(ctx) return ctx.a * (1 - ctx.c) end, update = drift },
    s2 = { score = function(ctx) local s = 0 for i = 1, 2 do s = s + ctx.b end return s / 2 end, update = drift },
    s3 = { score = ai.sum(ai.weight(ai.field("c"), 0.5), ai.cond(ai.gt("a", 0.4))), update = drift },
    s4 = { score = ai.max(ai.field("t.x"), ai.normalize(ai.field("b"), 0, 2)), update = drift },
    s5 = { score = ai.product(ai.field("c"), function(ctx) return ctx.b end), update = drift },
    s6 = { score = function(ctx) return -ctx.b + ctx.t.x ^ 2 end, update = drift },
    s7 = { score = 0.3, update = drift },
  },
}`

// A decision gives the same scores, choices and errors whether its pure
// scorers run through the score plan or one by one (as they do while
// decisions are traced).
func TestUtilityPlanMatchesScoring(t *testing.T) {
	for _, opts := range []string{"", "momentum = 0.05,", `select = { random_top = 3 },`} {
		var runs [2][]string
		for i, traced := range []bool{false, true} {
			o := host.Options{Workers: 1, Seed: 38}
			if traced {
				o.OnDecision = func(host.Decision) {}
			}
			h, err := host.New(o)
			require.NoError(t, err)
			b, err := h.LoadString("planned.lua", fmt.Sprintf(planned, opts))
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(1, 2))
			var agents []*host.Agent
			for j := 0; j < 20; j++ {
				a, err := h.Spawn(b, map[string]any{"tick": r.IntN(7)})
				require.NoError(t, err)
				agents = append(agents, a)
			}
			for tick := 0; tick < 30; tick++ {
				require.NoError(t, h.Tick(0.1))
				for _, a := range agents {
					line := a.Path()
					for _, e := range a.TakeErrors() {
						line += " | " + e.Error()
					}
					runs[i] = append(runs[i], line)
				}
			}
			h.Close()
		}
		require.Equal(t, runs[1], runs[0], opts)
		errs := 0
		for _, l := range runs[0] {
			if len(l) > 3 {
				errs++
			}
		}
		require.Positive(t, errs, "some scores raise or are not numbers")
	}
}

// A reload that adds utility machines (the agent's remembered reads are
// by machine) and one that changes the scorers' fields decide as a fresh
// host with the new script does.
func TestUtilityPlanAcrossReload(t *testing.T) {
	v1 := `local ai = require("luaai")
return ai.utility {
  context = { a = 0.5, b = 0.25, c = 0.75, d = 0.1 },
  states = {
    s0 = { score = ai.product(ai.field("a"), ai.inverse(ai.field("b"))) },
    s1 = { score = function(ctx) return ctx.c * (1 - ctx.d) end },
  },
}`
	v2 := `local ai = require("luaai")
return ai.utility {
  context = { a = 0.5, b = 0.25, c = 0.75, d = 0.1 },
  states = {
    s0 = ai.utility { score = ai.field("a"), states = {
      x = { score = ai.product(ai.field("d"), ai.inverse(ai.field("c"))) },
      y = { score = function(ctx) return ctx.b * (1 - ctx.a) end },
    } },
    s1 = { score = function(ctx) return ctx.a * (1 - ctx.c) end },
    s2 = { score = ai.product(ai.field("c"), ai.inverse(ai.field("d"))) },
  },
}`
	run := func(reload bool) []string {
		h, err := host.New(host.Options{Workers: 1})
		require.NoError(t, err)
		defer h.Close()
		src := v2
		if reload {
			src = v1
		}
		b, err := h.LoadString("r.lua", src)
		require.NoError(t, err)
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		require.NoError(t, h.Tick(0.1))
		if reload {
			require.NoError(t, b.ReloadSource(v2))
		}
		var paths []string
		for i := 0; i < 4; i++ {
			require.NoError(t, a.Set("a", float64(i)/4))
			require.NoError(t, h.Tick(0.1))
			paths = append(paths, a.Path())
			require.Empty(t, a.TakeErrors())
		}
		return paths
	}
	require.Equal(t, run(false), run(true))
}
