package host_test

import (
	"fmt"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

const wobbly = `local ai = require("luaai")
return ai.fsm {
  initial = "u",
  context = { n = 0 },
  states = {
    u = ai.utility {
      select = { random_top = 3 },
      transitions = { { to = "rest", when = function(ctx) return ctx.n % 7 == 6 end } },
      states = {
        a = { score = function(ctx) return ai.random() end, update = function(ctx) ctx.n = ctx.n + 1 end },
        b = { score = 0.5, update = function(ctx) ctx.n = ctx.n + 2; if ctx.n % 11 == 0 then error("eleven") end end },
        c = { score = function(ctx) return (ctx.n % 3) / 3 end, enter = function(ctx) ai.log("c at " .. ctx.n) end },
      },
    },
    rest = { transitions = { { to = "u", after = 0.2 } }, update = function(ctx) ctx.n = ctx.n + 1 end },
  },
}`

// trace runs 50 agents for 40 ticks and returns every hook call in order.
func trace(t *testing.T, workers int) []string {
	var out []string
	h, err := host.New(host.Options{
		Workers: workers,
		Seed:    42,
		// Traces compared across worker counts must not depend on the
		// machine: an instruction budget instead of wall time and heap.
		Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7,
		OnTransition: func(tr host.Transition) {
			out = append(out, fmt.Sprintf("T %d %d %s>%s", tr.Tick, tr.Agent, tr.From, tr.To))
		},
		OnError: func(e *host.ScriptError) { out = append(out, fmt.Sprintf("E %d %d %s", e.Tick, e.Agent, e.Msg)) },
		OnLog:   func(l host.Log) { out = append(out, fmt.Sprintf("L %d %d %s", l.Tick, l.Agent, l.Msg)) },
	})
	require.NoError(t, err)
	defer h.Close()
	require.Equal(t, workers, h.Workers())
	b, err := h.LoadString("wobbly.lua", wobbly)
	require.NoError(t, err)
	var agents []*host.Agent
	for i := 0; i < 50; i++ {
		a, err := h.Spawn(b, map[string]any{"n": i})
		require.NoError(t, err)
		agents = append(agents, a)
	}
	for i := 0; i < 40; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	for _, a := range agents {
		n, _ := a.Number("n")
		out = append(out, fmt.Sprintf("end %d %s %v", a.ID(), a.Path(), n))
	}
	return out
}

func TestWorkersDoNotChangeResults(t *testing.T) {
	one := trace(t, 1)
	require.Greater(t, len(one), 500)
	for _, w := range []int{2, 3, 8} {
		require.Equal(t, one, trace(t, w), "workers=%d", w)
	}
}

func TestOptionsRejectNegative(t *testing.T) {
	for _, o := range []host.Options{{Workers: -1}, {MaxStackDepth: -1}, {MaxErrors: -2}} {
		_, err := host.New(o)
		require.Error(t, err)
		require.Contains(t, err.Error(), "Options.")
	}
}
