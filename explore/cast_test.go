package explore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/luaai/luaai/explore"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/require"
)

// castGuard raises the alarm at the villager whose id it was given; the
// villager, alarmed, flees, and its flight fails when it has no shelter.
// Only a guard's alarm carries a token of many digits (a number the guard
// drew), so only a message from a guard reaches the fault.
const castGuard = `local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  context = { seen = false, villager = false },
  states = {
    patrol = { transitions = { { to = "alarm", when = ai.is("seen") } } },
    alarm = {
      enter = function(ctx)
        if ctx.villager then ai.send_to(ctx.villager, "alarm", { level = 3, token = ai.random() }) end
      end,
      transitions = { { to = "patrol", after = 2 } },
    },
  },
}`

const castVillager = `local ai = require("luaai")
return ai.fsm {
  initial = "work",
  context = { shelter = false },
  states = {
    work = { transitions = { { to = "flee", on = "alarm", when = function(_, a) return a ~= nil and #tostring(a.token) > 8 end } } },
    flee = {
      enter = function(ctx)
        ctx.path = ctx.shelter.x -- no shelter: the fault
      end,
      transitions = { { to = "work", after = 1 } },
    },
  },
}`

// Several scripts explored together: their agents message each other, the
// failure names each agent's script, and the test written spawns the same
// mix and fails at its own it line.
func TestCast(t *testing.T) {
	dir := t.TempDir()
	guard, villager := filepath.Join(dir, "guard.lua"), filepath.Join(dir, "villager.lua")
	require.NoError(t, os.WriteFile(guard, []byte(castGuard), 0o644))
	require.NoError(t, os.WriteFile(villager, []byte(castVillager), 0o644))
	o := opts(0, 1)
	rep, err := explore.RunCast(context.Background(), []explore.Cast{{Script: guard, Agents: 1}, {Script: villager, Agents: 2}}, o)
	require.NoError(t, err)
	require.Equal(t, 3, rep.Agents)
	for _, it := range rep.Unreached() {
		if it.Kind == hosttool.CoverState {
			t.Errorf("state %s of %s never reached", it.Name, it.File)
		}
	}
	f := findingAt(rep, 9)
	require.NotNil(t, f, "%+v", rep.Findings)
	require.Equal(t, villager, f.File)
	require.Equal(t, villager, f.Script)
	require.GreaterOrEqual(t, f.Agent, 2)
	require.Contains(t, f.Words, "on agent 1 (guard.lua)")
	path, err := rep.WriteTest(dir)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "guard_villager_explore_test.lua"), path)
	src := readFile(t, path)
	require.Contains(t, src, `local a1 = ai.spawn("guard.lua")`)
	require.Contains(t, src, `local a3 = ai.spawn("villager.lua")`)
	require.True(t, f.Verified)
}

// An empty cast, or one of more than 64 agents, is refused.
func TestCastRefused(t *testing.T) {
	_, err := explore.RunCast(context.Background(), nil, explore.Options{})
	require.ErrorIs(t, err, explore.ErrCast)
	_, err = explore.RunCast(context.Background(), []explore.Cast{{Script: "testdata/timing.lua", Agents: 65}}, explore.Options{})
	require.ErrorIs(t, err, explore.ErrCast)
}
