package host_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// Agent.TakeErrors returns the same *ScriptError values OnError receives, with
// position, tick and the underlying error; Dropped counts what MaxErrors
// discarded.
func TestAgentErrorsAreScriptErrors(t *testing.T) {
	var reported []*host.ScriptError
	h, err := host.New(host.Options{MaxErrors: 3, ReportAllErrors: true,
		OnError: func(e *host.ScriptError) { reported = append(reported, e) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("boom.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = {
  update = function(ctx) error("boom " .. ai.state()) end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	for range 5 {
		require.NoError(t, h.Tick(0.1))
	}
	errs := a.TakeErrors()
	require.Len(t, errs, 3, "MaxErrors keeps the newest")
	require.Equal(t, 2, a.Dropped())
	require.Len(t, reported, 5)
	for i, e := range errs {
		require.Same(t, reported[i+2], e, "the values OnError received")
		require.Equal(t, i+3, e.Tick)
		require.Equal(t, "boom.lua", e.Script)
		require.Equal(t, 3, e.Line)
		require.Equal(t, host.CallbackUpdate, e.Callback)
		require.Equal(t, "boom a", e.Msg)
		require.Contains(t, e.Traceback, "boom.lua:3")
		require.NotNil(t, errors.Unwrap(e))
	}
	require.Empty(t, a.TakeErrors(), "Errors forgets what it returned")
	require.Equal(t, 2, a.Dropped(), "Dropped counts since spawn")
}

const chooser = `local ai = require("luaai")
return ai.utility {
  context = { hunger = 0.2 },
  states = {
    eat = { score = ai.field("hunger") },
    idle = { score = 0.5 },
    rest = ai.utility { score = ai.product(ai.field("hunger"), 0.5), states = {
      nap = { score = 1 },
      sit = { score = 0.1 },
    } },
  },
}`

// LastDecision keeps the last decision of each utility machine of a
// watched agent; DecisionsOptIn limits OnDecision to watched agents.
func TestWatchDecisions(t *testing.T) {
	var got []host.Decision
	h, err := host.New(host.Options{DecisionsOptIn: true, OnDecision: func(d host.Decision) { got = append(got, d) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("chooser.lua", chooser)
	require.NoError(t, err)
	watched, err := h.Spawn(b, nil)
	require.NoError(t, err)
	other, err := h.Spawn(b, nil)
	require.NoError(t, err)
	watched.WatchDecisions(true)

	require.NoError(t, h.Tick(0.1))
	_, ok := other.LastDecision("")
	require.False(t, ok, "not watched")
	d, ok := watched.LastDecision("")
	require.True(t, ok)
	require.Equal(t, "idle", d.Winner)
	require.Len(t, d.Candidates, 3)
	for i, want := range []host.Candidate{{State: "eat", Score: 0.2}, {State: "idle", Score: 0.5}, {State: "rest", Score: 0.1}} {
		require.Equal(t, want.State, d.Candidates[i].State)
		require.InDelta(t, want.Score, d.Candidates[i].Score, 1e-12)
	}
	for _, d := range got {
		require.Equal(t, watched.ID(), d.Agent, "only the watched agent reports")
	}
	require.NotEmpty(t, got)

	require.NoError(t, watched.Set("hunger", 0.9))
	require.NoError(t, h.Tick(0.1))
	d, _ = watched.LastDecision("")
	require.Equal(t, "eat", d.Winner)
	require.Equal(t, 2, d.Tick)
	_, ok = watched.LastDecision("rest")
	require.False(t, ok, "a machine that never decided has no decision")
	_, ok = watched.LastDecision("nowhere")
	require.False(t, ok)

	watched.WatchDecisions(false)
	_, ok = watched.LastDecision("")
	require.False(t, ok, "unwatching forgets")
}

// A native scorer's parts reach the decision as host.Part values.
func TestDecisionParts(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("chooser.lua", chooser)
	require.NoError(t, err)
	a, err := h.Spawn(b, map[string]any{"hunger": 0.1})
	require.NoError(t, err)
	a.WatchDecisions(true)
	require.NoError(t, h.Tick(0.1)) // idle wins: 0.5
	d, ok := a.LastDecision("")
	require.True(t, ok)
	require.Equal(t, "idle", d.Winner)
	require.Nil(t, d.Candidates[1].Parts, "a number has no parts")
	require.Equal(t, []host.Part{{Name: "field(hunger)", Value: 0.1}, {Name: "0.5", Value: 0.5}}, d.Candidates[2].Parts)

	require.NoError(t, a.Set("hunger", 2))
	require.NoError(t, h.Tick(0.1)) // eat 2, rest 1
	d, _ = a.LastDecision("")
	require.Equal(t, "eat", d.Winner)
	_, ok = a.LastDecision("rest")
	require.False(t, ok, "rest is not active, so it never decided")
}

// OnEventDropped receives every event no transition consumed.
func TestEventDropped(t *testing.T) {
	var dropped []host.DroppedEvent
	h, err := host.New(host.Options{OnEventDropped: func(e host.DroppedEvent) { dropped = append(dropped, e) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("door.lua", `local ai = require("luaai")
return ai.fsm { initial = "closed", states = {
  closed = { transitions = { { to = "open", on = "knock" } } },
  open = {},
} }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	a.Send("knok", nil) // a typo
	a.Send("knock", nil)
	a.Send("knock", nil) // the second knock finds the door open already
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "open", a.Path())
	require.Equal(t, []host.DroppedEvent{
		{Agent: 1, Tick: 1, Event: "knok", State: "open"},
		{Agent: 1, Tick: 1, Event: "knock", State: "open"},
	}, dropped)
}

// OnTransition reports where every agent starts — spawned by the game, by
// a script, or restored — so an animation can follow the callbacks alone.
func TestSpawnAndRestoreReported(t *testing.T) {
	var got []string
	opts := host.Options{OnTransition: func(tr host.Transition) {
		got = append(got, fmt.Sprintf("%d %d %s %q>%q", tr.Tick, tr.Agent, tr.Kind, tr.From, tr.To))
	}}
	h, err := host.New(opts)
	require.NoError(t, err)
	defer h.Close()
	src := `local ai = require("luaai")
local child = ai.fsm { initial = "idle", states = { idle = {} } }
return ai.fsm { initial = "patrol", states = {
  patrol = ai.fsm { initial = "walk", states = { walk = { update = function(ctx)
    if not ctx.spawned then ctx.spawned = true ai.spawn(child) end
  end } } },
} }`
	b, err := h.LoadString("parent.lua", src)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	a.SetUserData("entity-7")
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, []string{
		`0 1 spawn "">"patrol.walk"`,
		`0 2 spawn "">"idle"`,
	}, got)
	require.Equal(t, "entity-7", a.UserData())

	data, err := h.Snapshot()
	require.NoError(t, err)
	got = nil
	h2, err := host.New(opts)
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("parent.lua", src)
	require.NoError(t, err)
	restored, err := h2.Restore(data, b2)
	require.NoError(t, err)
	require.Len(t, restored, 1, "the child's definition was made at run time: it is not in the save")
	require.Equal(t, []string{`1 1 restore "">"patrol.walk"`}, got)
	require.Nil(t, restored[0].UserData(), "user data is the game's: not saved")
}

// Paused lists what stacks hold under their active states, outermost
// machine first, bottom first.
func TestAgentPaused(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("stack.lua", `local ai = require("luaai")
return ai.fsm { initial = "patrol", states = {
  patrol = { transitions = { { push = "look", on = "noise" } } },
  look = ai.fsm { initial = "near", states = {
    near = { transitions = { { push = "far", on = "noise" }, { pop = true, on = "done" } } },
    far = { transitions = { { pop = true, on = "done" } } },
  } },
} }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.Nil(t, a.PausedStates())
	steps := []struct {
		event  string
		paused []string
	}{
		{"noise", []string{"patrol"}},
		{"noise", []string{"patrol", "look.near"}},
		{"done", []string{"patrol"}},
	}
	for _, s := range steps {
		require.NoError(t, a.Send(s.event, nil))
		require.NoError(t, h.Tick(0.1))
		require.Equal(t, s.paused, a.PausedStates(), "after %s: %s", s.event, a.Path())
	}
}
