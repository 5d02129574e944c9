package host_test

import (
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// Payloads: enter gets the payload of the event that fired its transition
// (nil without one), or of ai.push/ai.replace; initial states below get nil;
// ai.pop(payload) and a pop transition's event pass theirs to resume.
const payloadSrc = `
local function show(p)
  if type(p) == "table" then return "{" .. tostring(p.n) .. "}" end
  return tostring(p)
end
local function mark(name)
  return function(ctx, p) log(ctx, name .. " " .. show(p)) end
end
return ai.fsm { initial = "idle", states = {
  idle = {
    enter = mark("enter idle"), resume = mark("resume idle"),
    transitions = {
      { to = "walk", on = "go" },
      { push = "look", on = "look" },
      { to = "talk", when = function(ctx) return ctx.talk end },
    },
    update = function(ctx)
      if ctx.ask == "push" then ctx.ask = nil; ai.push("look", { n = 7 }) end
      if ctx.ask == "replace" then ctx.ask = nil; ai.replace("walk", "by replace") end
    end,
  },
  walk = ai.fsm { initial = "step", enter = mark("enter walk"),
    states = { step = { enter = mark("enter step") } },
    transitions = { { to = "idle", on = "stop" } } },
  look = {
    enter = mark("enter look"),
    update = function(ctx) if ctx.ask == "pop" then ctx.ask = nil; ai.pop({ n = 9 }) end end,
    transitions = { { pop = true, on = "back" } },
  },
  talk = { enter = mark("enter talk"), transitions = { { to = "idle", on = "bye" } } },
} }`

func TestPayloads(t *testing.T) {
	f := newFixture(t, payloadSrc)
	a := f.spawn(nil)
	require.Equal(t, []string{"enter idle nil"}, takeLog(a))
	step := func(set func()) []string {
		t.Helper()
		if set != nil {
			set()
		}
		f.tick(a, 0.1)
		return takeLog(a)
	}
	require.NoError(t, a.Send("go", map[string]any{"n": 1}))
	require.Equal(t, []string{"enter walk {1}", "enter step nil"}, step(nil), "the event's payload to the state named; nil to its initial state")
	require.NoError(t, a.Send("stop", "halt"))
	require.Equal(t, []string{"enter idle halt"}, step(nil))

	require.NoError(t, a.Send("look", 3.0))
	require.Equal(t, []string{"enter look 3"}, step(nil), "a push transition passes the payload")
	require.NoError(t, a.Send("back", "from back"))
	require.Equal(t, []string{"resume idle from back"}, step(nil), "a pop transition passes its event's payload to resume")

	require.Equal(t, []string{}, append([]string{}, step(func() { require.NoError(t, a.Set("ask", "push")) })...))
	require.Equal(t, []string{"enter look {7}"}, step(nil), "ai.push(name, payload), applied at the next tick")
	step(func() { require.NoError(t, a.Set("ask", "pop")) })
	require.Equal(t, []string{"resume idle {9}"}, step(nil), "ai.pop(payload) to resume")

	step(func() { require.NoError(t, a.Set("ask", "replace")) })
	require.Equal(t, []string{"enter walk by replace", "enter step nil"}, step(nil))
	require.NoError(t, a.Send("stop", nil))
	require.Equal(t, []string{"enter idle nil"}, step(nil))
	require.Equal(t, []string{"enter talk nil"}, step(func() { require.NoError(t, a.Set("talk", true)) }), "a transition without on: nil")
}

// A pending request keeps its payload through a snapshot.
func TestPayloadOfPendingRequestSnapshot(t *testing.T) {
	f := newFixture(t, payloadSrc)
	a := f.spawn(nil)
	takeLog(a)
	require.NoError(t, a.Set("ask", "push"))
	f.tick(a, 0.1) // ai.push("look", {n = 7}) is pending
	snap, err := f.h.Snapshot()
	require.NoError(t, err)
	require.Contains(t, string(snap), `"request":{"kind":"push","target":"look","where":"test.lua:29:","payload":{"n":7}}`)

	g := newFixture(t, payloadSrc)
	agents, err := g.h.Restore(snap, g.b)
	require.NoError(t, err)
	b := agents[0]
	takeLog(b)
	g.tick(b, 0.1)
	require.Equal(t, []string{"enter look {7}"}, takeLog(b))
}

// A reload that renumbers the states keeps a pending request's payload.
func TestPayloadOfPendingRequestReload(t *testing.T) {
	f := newFixture(t, payloadSrc)
	a := f.spawn(nil)
	takeLog(a)
	require.NoError(t, a.Set("ask", "push"))
	f.tick(a, 0.1) // ai.push("look", {n = 7}) is pending
	// A new state sorted before "look" renumbers it.
	src := strings.Replace(payloadSrc, "  look = {", "  aaa = {},\n  look = {", 1)
	require.NoError(t, f.b.ReloadSource(prelude+src))
	f.tick(a, 0.1)
	require.Equal(t, []string{"enter look {7}"}, takeLog(a))
}

// Payloads: a transition's run(ctx, payload) runs when it fires, after the
// exits and before the enters; with only run it is an internal transition.
func TestRunActions(t *testing.T) {
	f := newFixture(t, `
local function act(name)
  return function(ctx, p) log(ctx, "run " .. name .. " " .. tostring(p)) end
end
return ai.fsm { initial = "a", states = {
  a = with(rec("a"), {
    transitions = {
      { on = "hit", run = function(ctx, p) ctx.hits = ctx.hits + p; log(ctx, "hit " .. p) end },
      { on = "hit", to = "b" },  -- never: the internal transition handles hit
      { to = "b", on = "go", run = act("a>b") },
      { push = "c", on = "peek", run = act("a>c") },
      { to = "a", on = "again", run = act("a>a") },
      { on = "ask", run = function() ai.push("c") end },
      { on = "bad", run = function() error("bad action") end },
    },
  }),
  b = with(rec("b"), { transitions = { { to = "a", on = "back" } } }),
  c = with(rec("c"), { transitions = { { pop = true, on = "done", run = act("c>pop") } } }),
} }`)
	a := f.spawn(map[string]any{"hits": 0.0})
	takeLog(a)
	send := func(ev string, p any) []string {
		t.Helper()
		require.NoError(t, a.Send(ev, p))
		f.tick(a, 0.1)
		return takeLog(a)
	}
	require.Equal(t, []string{"hit 2"}, send("hit", 2.0), "internal: no exit, no enter")
	hits, _ := a.Number("hits")
	require.Equal(t, 2.0, hits)
	require.Equal(t, "a", a.Path())
	require.Empty(t, f.tr, "an internal transition reports no transition")

	require.Equal(t, []string{"exit a", "run a>b 5", "enter b"}, send("go", 5.0))
	send("back", nil)
	require.Equal(t, []string{"pause a", "run a>c x", "enter c"}, send("peek", "x"))
	require.Equal(t, []string{"exit c", "run c>pop y", "resume a"}, send("done", "y"))
	require.Equal(t, []string{"run a>a z"}, send("again", "z"), "a transition to the active state runs its action")

	send("ask", nil)
	f.tick(a, 0.1)
	require.Equal(t, []string{"pause a", "enter c"}, takeLog(a), "run may call ai.push")
	send("done", nil)

	require.Empty(t, f.se)
	send("bad", nil)
	require.Len(t, f.se, 1)
	require.Equal(t, host.CallbackRun, f.se[0].Callback)
	require.Contains(t, f.se[0].Msg, "bad action")
}

// A run on a transition that also names `to` and raises is reported with
// file:line; the transition still happens and the agent goes on.
func TestRunRaisesOnTransition(t *testing.T) {
	f := newFixture(t, `
return ai.fsm { initial = "a", states = {
  a = with(rec("a"), { transitions = { { to = "b", on = "go", run = function() error("broken action") end } } }),
  b = with(rec("b"), { transitions = { { to = "a", on = "back" } } }),
} }`)
	a := f.spawn(nil)
	takeLog(a)
	require.NoError(t, a.Send("go", nil))
	f.tick(a, 0.1)
	require.Equal(t, []string{"exit a", "enter b"}, takeLog(a))
	require.Len(t, f.se, 1)
	require.Equal(t, host.CallbackRun, f.se[0].Callback)
	require.Equal(t, "test.lua:14: broken action", f.se[0].Message())
	require.NoError(t, a.Send("back", nil))
	f.tick(a, 0.1)
	require.Equal(t, "a", a.Path(), "the agent goes on")
}
