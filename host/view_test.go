package host_test

import (
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/require"
)

const viewScript = `local ai = require("luaai")
return ai.fsm {
  initial = "life",
  context = { hunger = 0.5 },
  states = {
    life = ai.utility {
      momentum = 0.1,
      states = {
        eat = { score = ai.curve(ai.field("hunger"), { kind = "linear" }),
                steps = { ai.wait(1), function() end } },
        rest = { score = 0.2, every = 0.5 },
      },
    },
    work = ai.tree { root = ai.sequence { ai.wait(5), ai.action(function() return "success" end) } },
  },
}`

// An Observer is called around every tick, a followed agent keeps its
// decisions for it, and View and Structure say what a tool shows.
func TestObserverAndViews(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("view.lua", viewScript)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)

	var calls []string
	var transitions []host.Transition
	ob := hosttool.Observe(h, hosttool.Observer{
		BeforeTick: func() { calls = append(calls, "before") },
		AfterTick: func(ran bool) {
			if ran {
				calls = append(calls, "after")
			} else {
				calls = append(calls, "after (paused)")
			}
			require.ErrorIs(t, h.Tick(0.1), host.ErrReentrant, "no Tick from a hook")
		},
		Transition: func(tr host.Transition) { transitions = append(transitions, tr) },
	})
	require.True(t, ob.RosterChanged(), "true on the first call")
	require.False(t, ob.RosterChanged())

	require.NoError(t, h.Tick(0.1))
	require.Equal(t, []string{"before", "after"}, calls)
	require.Empty(t, transitions, "an agent nobody follows records no transitions")
	_, ok := a.LastDecision("life")
	require.False(t, ok, "nor decisions")

	require.NoError(t, ob.Follow(a, true))
	require.NoError(t, ob.Follow(a, true)) // twice is once
	require.NoError(t, a.Send("ping", map[string]any{"n": 1.0}))
	require.NoError(t, h.Tick(0.1))
	v := hosttool.View(a)
	require.Equal(t, []string{"life", "life.eat"}, v.Active)
	require.Equal(t, []hosttool.StepsView{{State: "life.eat", Item: 0, Of: 2, Time: 0.1}}, v.Steps)
	require.Len(t, v.Decisions, 1)
	require.Equal(t, "life.eat", v.Decisions[0].Winner)
	require.Equal(t, 0.1, v.Decisions[0].Momentum)
	require.Equal(t, []hosttool.CurveInput{{State: "life.eat", Curve: 0, X: 0.5}}, v.Inputs)
	require.Len(t, v.Timers, 2)
	require.Equal(t, "life", v.Timers[0].State)
	require.InDelta(t, 0.2, v.Timers[0].Time, 1e-9)
	require.Empty(t, v.Events, "the ping was consumed by the tick")

	require.NoError(t, a.Send("ping", map[string]any{"n": 2.0}))
	v = hosttool.View(a)
	require.Equal(t, []hosttool.PendingEvent{{Name: "ping", Payload: map[string]any{"n": 2.0}}}, v.Events)

	// Structure: one pointer per version.
	s := hosttool.Structure(b)
	require.Same(t, s, hosttool.Structure(b))
	require.Equal(t, "fsm", s.Kind)
	require.Equal(t, "life", s.Initial)
	require.Len(t, s.Children, 2)
	life, work := s.Children[0], s.Children[1]
	require.Equal(t, "utility", life.Kind)
	require.Equal(t, []string{"wait 1s", "fn@view.lua:10"}, life.Children[0].Steps)
	require.Len(t, life.Children[0].Curves, 1)
	require.InDelta(t, 0.25, life.Children[0].Curves[0].Eval(0.25), 1e-9)
	require.Equal(t, 0.5, life.Children[1].Every)
	require.NotNil(t, work.Tree)
	require.Len(t, work.Tree.Kids, 2)
	require.NoError(t, b.ReloadSource(viewScript))
	require.NotSame(t, s, hosttool.Structure(b), "a reload is a new version")

	// Pause: the hooks still run, AfterTick says the tick did not run.
	calls = nil
	h.Pause()
	before := h.TickNumber()
	require.NoError(t, h.Tick(0.1), "a paused tick is not an error")
	require.Equal(t, before, h.TickNumber(), "and ticks nobody")
	require.Equal(t, []string{"before", "after (paused)"}, calls)
	h.Resume()

	// Removal forgets the agent; Close detaches the observer.
	b2, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.True(t, ob.RosterChanged())
	require.NoError(t, ob.Follow(b2, true))
	require.NoError(t, h.Remove(b2))
	require.NoError(t, h.Tick(0.1))
	require.False(t, ob.Following(b2))
	ob.Close()
	calls = nil
	require.NoError(t, h.Tick(0.1))
	require.Empty(t, calls)
	_, ok = a.LastDecision("life")
	require.False(t, ok, "unfollowed: decisions are no longer kept")
}

// Follow refuses another host's agent and a call from a script while the
// workers run; View serves only the agent's own callbacks then.
func TestObservationGuards(t *testing.T) {
	var ob *hosttool.Observation
	var a *host.Agent
	var fromScript error
	var own, others hosttool.AgentView
	h, err := host.New(host.Options{Funcs: map[string]map[string]any{"game": {
		"poke": func(self *host.Agent) float64 {
			fromScript = ob.Follow(a, true)
			if self == a {
				own = hosttool.View(a)
			} else {
				others = hosttool.View(a)
			}
			return 0
		},
	}}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("poke.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "s", states = { s = { update = function() game.poke() end } } }`)
	require.NoError(t, err)
	a, err = h.Spawn(b, nil)
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	ob = hosttool.Observe(h, hosttool.Observer{})
	defer ob.Close()
	require.NoError(t, h.Tick(0.1))
	require.ErrorIs(t, fromScript, host.ErrReentrant)
	require.Equal(t, []string{"s"}, own.Active, "the agent's own callbacks see its view")
	require.Empty(t, others.Active, "no view of another agent while the workers run")
	require.NotEmpty(t, hosttool.View(a).Active, "between ticks there is one")

	other, err := host.New(host.Options{})
	require.NoError(t, err)
	defer other.Close()
	ob2 := hosttool.Observe(other, hosttool.Observer{})
	require.ErrorIs(t, ob2.Follow(a, true), host.ErrWrongHost)
}
