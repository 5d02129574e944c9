package host_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/luaval"
	"github.com/stretchr/testify/require"
)

// cpuMod is a mod whose agents each loop on one attack in their update: an
// instruction or library call that costs milliseconds (its inputs are
// built once, as the script loads).
func cpuMod(attacks map[string]string, setup string) string {
	src := `local ai = require("luaai")
` + setup + `
local attacks = {}
`
	for name, body := range attacks {
		src += fmt.Sprintf("attacks[%q] = function() %s end\n", name, body)
	}
	return src + `return ai.fsm { initial = "s", context = { kind = "", n = 0 }, states = { s = {
  update = function(ctx)
    ctx.n = ctx.n + 1
    if ctx.kind ~= "" then attacks[ctx.kind]() end
  end } } }`
}

// Two mods at once, on 4 workers, beside calm agents: every attacking
// callback is stopped by the (default, 50ms) budget, no calm one is, and
// the tick's CPU time stays under twice the budget per attacker (the
// attacks ran for seconds each when each instruction was charged as one
// unit of work). Under -race it checks the stops and the races only.
func TestCPUAttacksTwoModsFourWorkers(t *testing.T) {
	var errs []*host.ScriptError
	h, err := host.New(host.Options{Workers: 4, ReportAllErrors: true, LoadBudget: time.Minute, // the race detector is slow to build the inputs
		OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
	require.NoError(t, err)
	defer h.Close()
	strs, err := h.LoadString("strs/attack.lua", cpuMod(map[string]string{
		"compare": `while true do local _ = A < B end`,
		"rep":     `while true do local _ = string.rep("x", 16777216) end`,
		"sort":    `while true do table.sort(R, function(a, b) return a > b end) end`,
	}, fmt.Sprintf(`local A, B = string.rep("x", 16777216), string.rep("x", 16777216)
local R = {} for i = 1, %d do R[i] = i end`, luaval.MaxSequence)))
	require.NoError(t, err)
	tables, err := h.LoadString("tables/attack.lua", cpuMod(map[string]string{
		"len":    `while true do local _ = #N end`,
		"next":   `while true do local _ = next(N) end`,
		"concat": `while true do local _ = table.concat(C) end`,
	}, fmt.Sprintf(`local N = {} for i = 1, %d do N[i] = true end for i = 1, %[1]d do N[i] = nil end N.x = 1
local C = {} for i = 1, 64 do C[i] = string.rep("y", 65536) end`, luaval.MaxSequence)))
	require.NoError(t, err)
	attackers := map[int]string{}
	for i := range 200 {
		b, kind := strs, ""
		if i%2 == 1 {
			b = tables
		}
		if i%25 == 0 {
			kind = []string{"compare", "rep", "sort"}[i/25%3]
			if b == tables {
				kind = []string{"len", "next", "concat"}[i/25%3]
			}
		}
		a, err := h.Spawn(b, map[string]any{"kind": kind})
		require.NoError(t, err)
		if kind != "" {
			attackers[a.ID()] = kind
		}
	}
	c0 := processCPU(t)
	require.NoError(t, h.Tick(0.1))
	used := processCPU(t) - c0
	t.Logf("%d attackers, tick CPU %v", len(attackers), used.Round(time.Millisecond))
	require.Len(t, errs, len(attackers), "one stop per attacker, none for the calm")
	for _, e := range errs {
		require.ErrorIs(t, e, host.ErrBudget)
		require.Contains(t, attackers, e.Agent, "a calm agent was stopped: %v", e)
		require.Contains(t, e.Msg, "callback ran past its 50ms budget", attackers[e.Agent])
	}
	if !raceEnabled {
		// Twice the budget per attacker, and 100ms for everything else
		// (the calm agents, the collector freeing the attacks' strings).
		require.Less(t, used, time.Duration(len(attackers))*2*host.DefaultBudget+100*time.Millisecond)
	}
}
