package host_test

import (
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// Steps, tick by tick, as the README states them.
func TestSteps(t *testing.T) {
	src := `
return ai.fsm { initial = "work", states = {
  work = {
    update = function(ctx) log(ctx, "update") end,
    steps = {
      function(ctx, dt) log(ctx, "one " .. dt) end,
      ai.wait(0.2),
      function(ctx) ctx.n = ctx.n + 1; log(ctx, "two " .. ctx.n); if ctx.n < 2 then return "running" end end,
      ai.wait_until(ai.is("go")),
      function(ctx) log(ctx, "three") end,
    },
    transitions = { { push = "talk", on = "talk" }, { to = "rest", on = "again" } },
  },
  rest = { transitions = { { to = "work" } } },
  talk = { transitions = { { pop = true, on = "bye" } } },
} }`
	f := newFixture(t, src)
	a := f.spawn(map[string]any{"n": 0, "go": false})
	want := [][]string{
		{"update", "one 0.1"}, // the wait is reached: 0
		{"update"},            // 0.1
		{"update", "two 1"},   // 0.2: done; two says running
		{"update", "two 2"},   // two completes; wait_until is false
		{"update"},            // still false
	}
	for i, w := range want {
		f.tick(a, 0.1)
		require.Equal(t, w, takeLog(a), "tick %d", i+1)
	}
	require.NoError(t, a.Set("go", true))
	f.tick(a, 0.1)
	require.Equal(t, []string{"update", "three"}, takeLog(a))
	f.tick(a, 0.1)
	require.Equal(t, []string{"update"}, takeLog(a), "done: nothing more until the state is entered again")

	require.NoError(t, a.Send("again", nil))
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	require.Equal(t, []string{"update", "one 0.1"}, takeLog(a), "entering starts at the first item")

	require.NoError(t, a.Send("talk", nil))
	for range 5 {
		f.tick(a, 0.1)
	}
	require.Empty(t, takeLog(a), "paused: frozen")
	require.NoError(t, a.Send("bye", nil))
	f.tick(a, 0.1)
	require.Equal(t, []string{"update"}, takeLog(a), "resumed: the wait goes on where it was (0.1 of 0.2)")
	f.tick(a, 0.1)
	require.Equal(t, []string{"update", "two 3", "three"}, takeLog(a), "go is still true")
	require.Empty(t, f.se)
}

func TestStepsLoopAndEvery(t *testing.T) {
	src := `
return ai.fsm { initial = "s", states = {
  s = ai.fsm { initial = "inner", every = 0.2,
    steps = {
      function(ctx, dt) log(ctx, "a " .. dt) end,
      function(ctx) log(ctx, "b") end,
    },
    steps_loop = true,
    update = function(ctx) log(ctx, "hook") end,
    states = { inner = { update = function(ctx) log(ctx, "child") end } },
  },
} }`
	f := newFixture(t, src)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Equal(t, []string{"child"}, takeLog(a), "every lets no update through yet")
	f.tick(a, 0.1)
	require.Equal(t, []string{"hook", "a 0.2", "b", "child"}, takeLog(a),
		"after the hook, before the children; a loop stops where the update began")
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	require.Equal(t, []string{"child", "hook", "a 0.2", "b", "child"}, takeLog(a))
}

func TestStepsErrors(t *testing.T) {
	src := `
return ai.fsm { initial = "s", states = {
  s = { steps = {
    function(ctx) error("boom") end,
    ai.wait_until(function(ctx) return ctx.nothing.here end),
    function(ctx) log(ctx, "never") end,
  } },
} }`
	f := newFixture(t, src)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	require.Empty(t, takeLog(a), "a wait_until that raises counts as false")
	require.Len(t, f.se, 2, "the same error again is counted, not repeated")
	require.Equal(t, host.CallbackSteps, f.se[0].Callback)
	require.Contains(t, f.se[0].Error(), "test.lua:15: boom", "a step that raises is reported and counts as completed")
	require.Equal(t, host.CallbackSteps, f.se[1].Callback)
	require.Contains(t, f.se[1].Error(), "test.lua:16:")
}

// Progress is agent state: a snapshot saves it; a reload keeps it when the
// list has the same length and the current item the same kind.
func TestStepsSnapshotAndReload(t *testing.T) {
	src := func(second string) string {
		return `
return ai.fsm { initial = "s", states = {
  s = { steps = {
    function(ctx) log(ctx, "one") end,
    ` + second + `,
    function(ctx) log(ctx, "three") end,
  } },
} }`
	}
	var logs []host.Log
	h, err := host.New(host.Options{OnLog: func(l host.Log) { logs = append(logs, l) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("s.lua", prelude+src("ai.wait(0.5)"))
	require.NoError(t, err)
	a, err := h.Spawn(b, map[string]any{"log": []any{}})
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, []string{"one"}, takeLog(a))

	snap, err := a.Snapshot()
	require.NoError(t, err)
	require.Contains(t, string(snap), `"step":1`)
	require.Contains(t, string(snap), `"step_time":0.1`)
	h2, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("s.lua", prelude+src("ai.wait(0.5)"))
	require.NoError(t, err)
	r, err := h2.Restore(snap, b2)
	require.NoError(t, err)
	for range 3 {
		require.NoError(t, h2.Tick(0.1))
	}
	require.Empty(t, takeLog(r[0]))
	require.NoError(t, h2.Tick(0.1))
	require.Equal(t, []string{"three"}, takeLog(r[0]), "0.5 s after the wait was reached, counted across the snapshot")

	require.NoError(t, b.ReloadSource(prelude+src("ai.wait(0.3)")))
	require.Empty(t, logs, "same length, same kind: kept")
	require.NoError(t, h.Tick(0.1))
	require.Empty(t, takeLog(a))
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, []string{"three"}, takeLog(a), "the new wait (0.3) counted from where the old one was (0.1 in)")

	require.NoError(t, b.ReloadSource(prelude+src("ai.wait_until(true)")))
	require.Empty(t, logs, "done: nothing to restart")
	b3, err := h.LoadString("t.lua", prelude+src("ai.wait(1)"))
	require.NoError(t, err)
	c, err := h.Spawn(b3, map[string]any{"log": []any{}})
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	takeLog(c)
	require.NoError(t, b3.ReloadSource(prelude+src("ai.wait_until(false)")))
	require.Len(t, logs, 1)
	require.Contains(t, logs[0].Msg, "steps restarted by the reload")
	require.Equal(t, "s", logs[0].State)
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, []string{"one"}, takeLog(c), "restarted at the first item")
	require.True(t, strings.HasPrefix(logs[0].Msg, "luaai: "))
}
