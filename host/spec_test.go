package host_test

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// prelude gives test scripts a recorder: log(ctx, "text") appends to ctx.log.
const prelude = `local ai = require("luaai")
local function log(ctx, s) ctx.log[#ctx.log + 1] = s end
local function rec(name)
  return {
    enter = function(ctx) log(ctx, "enter " .. name) end,
    exit = function(ctx) log(ctx, "exit " .. name) end,
    pause = function(ctx) log(ctx, "pause " .. name) end,
    resume = function(ctx) log(ctx, "resume " .. name) end,
  }
end
local function with(t, extra) for k, v in pairs(extra) do t[k] = v end return t end
`

type fixture struct {
	src string
	t   *testing.T
	h   *host.Host
	b   *host.Behaviour
	tr  []host.Transition
	se  []*host.ScriptError
}

func newFixture(t *testing.T, src string, opts ...host.Options) *fixture {
	t.Helper()
	f := &fixture{t: t, src: src}
	o := host.Options{}
	if len(opts) > 0 {
		o = opts[0]
	}
	o.OnTransition = func(tr host.Transition) {
		// The fixture's tests are about changes; TestSpawnAndRestoreReported
		// checks the spawn and restore entries.
		if tr.Kind != host.TransitionSpawn && tr.Kind != host.TransitionRestore {
			f.tr = append(f.tr, tr)
		}
	}
	o.OnError = func(e *host.ScriptError) { f.se = append(f.se, e) }
	h, err := host.New(o)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	f.h = h
	b, err := h.LoadString("test.lua", prelude+src)
	require.NoError(t, err)
	f.b = b
	return f
}

func (f *fixture) spawn(over map[string]any) *host.Agent {
	f.t.Helper()
	if over == nil {
		over = map[string]any{}
	}
	if _, ok := over["log"]; !ok {
		over["log"] = []any{}
	}
	a, err := f.h.Spawn(f.b, over)
	require.NoError(f.t, err)
	return a
}

// takeLog returns and clears ctx.log.
func takeLog(a *host.Agent) []string {
	t, _ := host.ContextTable(a).RawGetString("log").(*lua.LTable)
	var out []string
	if t == nil {
		return nil
	}
	for i := 1; i <= t.Len(); i++ {
		out = append(out, t.RawGetInt(i).String())
	}
	for i := t.Len(); i >= 1; i-- {
		t.RawSetInt(i, lua.LNil)
	}
	return out
}

func (f *fixture) tick(a *host.Agent, dt float64) {
	f.t.Helper()
	require.NoError(f.t, a.Tick(dt))
	require.Equal(f.t, 0, host.VM(f.h).L.GetTop(), "Lua stack balanced after a tick")
}

func TestHookOrderStatechart(t *testing.T) {
	f := newFixture(t, `
return ai.fsm(with(rec("root"), {
  initial = "a",
  states = {
    a = ai.fsm(with(rec("a"), {
      initial = "a1",
      transitions = { { to = "b", when = function(ctx) return ctx.go end } },
      states = { a1 = ai.fsm(with(rec("a1"), { initial = "x", states = { x = rec("x") } })), a2 = rec("a2") },
    })),
    b = ai.fsm(with(rec("b"), { initial = "b1", states = { b1 = rec("b1") } })),
  },
}))`)
	a := f.spawn(nil)
	require.Equal(t, []string{"enter root", "enter a", "enter a1", "enter x"}, takeLog(a))
	require.Equal(t, "a.a1.x", a.Path())
	a.Set("go", true)
	f.tick(a, 0.1)
	require.Equal(t, []string{"exit x", "exit a1", "exit a", "enter b", "enter b1"}, takeLog(a))
	require.Equal(t, "b.b1", a.Path())
	require.Equal(t, []host.Transition{{Agent: 1, Tick: 1, Kind: "to", From: "a", To: "b"}}, f.tr)
}

func TestUpdateOrderAndDt(t *testing.T) {
	f := newFixture(t, `
local function up(name) return function(ctx, dt) log(ctx, name .. " " .. string.format("%.2f", dt)) end end
return ai.fsm {
  initial = "a", update = up("root"),
  states = {
    a = { update = up("a"), transitions = { { to = "b", when = function(ctx) return ctx.go end } } },
    b = ai.fsm { initial = "b1", update = up("b"), states = { b1 = { update = up("b1") } } },
  },
}`)
	a := f.spawn(nil)
	f.tick(a, 0.25)
	require.Equal(t, []string{"root 0.25", "a 0.25"}, takeLog(a))
	a.Set("go", true)
	f.tick(a, 0.5)
	// A state entered in the decide step is updated in the same tick.
	require.Equal(t, []string{"root 0.50", "b 0.50", "b1 0.50"}, takeLog(a))
}

func TestEveryTimedUpdate(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "m",
  states = {
    m = ai.fsm {
      initial = "leaf", every = 0.3,
      update = function(ctx, dt) log(ctx, string.format("m %.1f", dt)) end,
      states = { leaf = { update = function(ctx) log(ctx, "leaf") end } },
    },
  },
}`)
	a := f.spawn(nil)
	var got []string
	for i := 0; i < 6; i++ {
		f.tick(a, 0.1)
		got = append(got, strings.Join(takeLog(a), ","))
	}
	// The machine's every gates only its own update; ten ticks of 0.1 reach
	// 0.3 at the third tick despite rounding (tolerance 1e-9).
	require.Equal(t, []string{"leaf", "leaf", "m 0.3,leaf", "leaf", "leaf", "m 0.3,leaf"}, got)
}

func TestLockKeepsStateButChildrenDecide(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "m",
  states = {
    m = ai.fsm {
      initial = "c1",
      lock = function(ctx) return ctx.locked end,
      transitions = { { to = "other", when = true } },
      states = { c1 = { transitions = { { to = "c2", when = true } } }, c2 = { transitions = { { to = "c1", when = true } } } },
    },
    other = {},
  },
}`)
	a := f.spawn(map[string]any{"locked": true})
	f.tick(a, 0.1)
	require.Equal(t, "m.c2", a.Path(), "locked machine stays, its child decides")
	f.tick(a, 0.1)
	require.Equal(t, "m.c1", a.Path())
	a.Set("locked", false)
	f.tick(a, 0.1)
	require.Equal(t, "other", a.Path())
}

func TestTransitionRules(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "a",
  states = {
    a = with(rec("a"), { transitions = {
      { to = "b", when = false },
      { to = "a", when = function(ctx) return ctx.self end },
      { to = "c", when = function(ctx) return ctx.c end },
      { to = "b", when = function(ctx) log(ctx, "tried b") return ctx.b end },
    } }),
    b = rec("b"),
    c = with(rec("c"), { transitions = { { to = "a" } } }),
  },
}`)
	a := f.spawn(map[string]any{"self": true, "b": true})
	takeLog(a)
	f.tick(a, 0.1)
	// A transition to the active state fires: nothing exits or enters and
	// later transitions are not tried.
	require.Equal(t, "a", a.Path())
	require.Empty(t, takeLog(a))
	a.Set("self", false)
	a.Set("c", true)
	f.tick(a, 0.1)
	require.Equal(t, "c", a.Path(), "first passing transition wins")
	require.Equal(t, []string{"exit a", "enter c"}, takeLog(a))
	f.tick(a, 0.1)
	require.Equal(t, "a", a.Path(), "missing when means always")
	require.Empty(t, f.se)
}

func TestEventsWithPayload(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "idle",
  states = {
    idle = { transitions = {
      { to = "alert", on = "noise", when = function(ctx, p) log(ctx, "offered " .. p.level) return p.level > 2 end },
    } },
    alert = {
      enter = function(ctx) ai.send("echo", 1) end,
      transitions = { { to = "idle", on = "calm" }, { to = "idle", on = "echo", when = function(ctx, p) return p == 1 end } },
    },
  },
}`)
	a := f.spawn(nil)
	a.Send("noise", map[string]any{"level": 1})
	a.Send("noise", map[string]any{"level": 5})
	a.Send("noise", map[string]any{"level": 9})
	f.tick(a, 0.1)
	require.Equal(t, "alert", a.Path())
	// Offered in the order sent; the first that passes fires; the rest are dropped.
	require.Equal(t, []string{"offered 1", "offered 5"}, takeLog(a))
	// The echo sent during the tick waits for the next decide phase.
	f.tick(a, 0.1)
	require.Equal(t, "idle", a.Path())
	f.tick(a, 0.1)
	require.Equal(t, "idle", a.Path(), "events are dropped after one decide phase")
	require.Empty(t, takeLog(a))
	// An event that is not handled is visible for one decide phase only.
	a.Send("calm", nil)
	f.tick(a, 0.1)
	a.Send("noise", map[string]any{"level": 3})
	f.tick(a, 0.1)
	require.Equal(t, "alert", a.Path())
}

func TestAfterTimer(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "a",
  states = {
    a = { transitions = { { to = "b", after = 1.0 } } },
    b = { transitions = { { to = "a", after = 0.3 } } },
  },
}`)
	a := f.spawn(nil)
	for i := 1; i <= 9; i++ {
		f.tick(a, 0.1)
		require.Equal(t, "a", a.Path(), "tick %d", i)
	}
	f.tick(a, 0.1)
	require.Equal(t, "b", a.Path(), "ten ticks of 0.1 reach 1.0")
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	require.Equal(t, "b", a.Path())
	f.tick(a, 0.1)
	require.Equal(t, "a", a.Path())
}

func TestPushPopStack(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "patrol",
  states = {
    patrol = with(rec("patrol"), {
      update = function(ctx) ctx.patrol_time = ai.time() end,
      transitions = { { push = "look", on = "noise" } },
    }),
    look = with(rec("look"), {
      transitions = { { pop = true, after = 0.2 }, { push = "patrol", on = "again" } },
    }),
  },
}`)
	a := f.spawn(nil)
	takeLog(a)
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	pt, _ := a.Number("patrol_time")
	require.InDelta(t, 0.2, pt, 1e-9)
	a.Send("noise", nil)
	f.tick(a, 0.1)
	require.Equal(t, []string{"pause patrol", "enter look"}, takeLog(a))
	require.Equal(t, "look", a.Path())
	require.True(t, a.Active("patrol"), "paused state counts as active")
	st, err := a.Stack("")
	require.NoError(t, err)
	require.Equal(t, []string{"patrol", "look"}, st)
	// Pushing a state already paused on the stack is refused and reported.
	a.Send("again", nil)
	f.tick(a, 0.1)
	require.Equal(t, "look", a.Path())
	require.Len(t, f.se, 1)
	require.Equal(t, host.CallbackTransition, f.se[0].Callback)
	require.ErrorIs(t, f.se[0], host.ErrOnStack)
	errs := a.TakeErrors()
	require.Len(t, errs, 1)
	require.Equal(t, "look", errs[0].State)
	f.tick(a, 0.1)
	require.Equal(t, "patrol", a.Path())
	require.Equal(t, []string{"exit look", "resume patrol"}, takeLog(a))
	// Time in state was frozen while paused: 0.3 when it was covered (the
	// clock step of the push tick ran before the push), 0.3 on resume.
	pt, _ = a.Number("patrol_time")
	require.InDelta(t, 0.3, pt, 1e-9)
	f.tick(a, 0.1)
	pt, _ = a.Number("patrol_time")
	require.InDelta(t, 0.4, pt, 1e-9)
	kinds := []string{}
	for _, tr := range f.tr {
		kinds = append(kinds, string(tr.Kind)+" "+tr.From+">"+tr.To)
	}
	require.Equal(t, []string{"push patrol>look", "pop look>patrol"}, kinds)
}

func TestPopLastStateRefused(t *testing.T) {
	f := newFixture(t, `
return ai.fsm { initial = "a", states = { a = { transitions = { { pop = true }, { to = "b" } } }, b = {} } }`)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Equal(t, "b", a.Path(), "the refused pop does not fire; the next transition is tried")
	require.Len(t, f.se, 1)
	require.ErrorIs(t, f.se[0], host.ErrEmptyStack)
}

func TestStackDepthLimit(t *testing.T) {
	f := newFixture(t, `
return ai.fsm { initial = "a", states = {
  a = { transitions = { { push = "b" } } },
  b = { transitions = { { push = "c" } } },
  c = {},
} }`, host.Options{MaxStackDepth: 2})
	a := f.spawn(nil)
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	require.Equal(t, "b", a.Path())
	require.Len(t, f.se, 1)
	require.ErrorIs(t, f.se[0], host.ErrStackDepth)
	require.Contains(t, f.se[0].Error(), "MaxStackDepth 2")
}

func TestDeferredRequests(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "a",
  states = {
    a = with(rec("a"), {
      update = function(ctx) if ctx.req then ai.push("b"); log(ctx, "requested, still " .. ai.state()) end end,
      transitions = { { to = "c", when = function(ctx) return ctx.to_c end } },
    }),
    b = with(rec("b"), { enter = function(ctx) log(ctx, "enter b"); ai.pop(); ai.replace("c") end }),
    c = rec("c"),
  },
}`)
	a := f.spawn(map[string]any{"req": true})
	takeLog(a)
	f.tick(a, 0.1)
	require.Equal(t, []string{"requested, still a"}, takeLog(a))
	require.Equal(t, "a", a.Path(), "requests wait for the next tick")
	a.Set("req", false)
	a.Set("to_c", true)
	f.tick(a, 0.1)
	// The request is applied in step 1 and the machine makes no other change
	// this tick (the to_c transition is not tried).
	require.Equal(t, []string{"pause a", "enter b"}, takeLog(a))
	require.Equal(t, "b", a.Path())
	f.tick(a, 0.1)
	// A second request in one tick replaces the first: replace, not pop.
	require.Equal(t, []string{"exit b", "enter c"}, takeLog(a))
	require.Equal(t, []string{"a", "c"}, must(a.Stack("")))
	require.Empty(t, f.se)
}

// lineOf is the 1-based line of the first occurrence of needle.
func lineOf(src, needle string) int {
	return strings.Count(src[:strings.Index(src, needle)], "\n") + 1
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestRequestsOnlyInHooks(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "a",
  states = {
    a = { transitions = { { to = "b", when = function(ctx) ai.push("b") return false end } } },
    b = {},
  },
}`)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Equal(t, "a", a.Path())
	require.Len(t, f.se, 1)
	require.Equal(t, host.CallbackWhen, f.se[0].Callback)
	require.Equal(t, "test.lua", f.se[0].Script)
	require.Equal(t, lineOf(prelude+f.src, "ai.push"), f.se[0].Line)
	require.Contains(t, f.se[0].Msg, "only allowed in hooks")
}

func TestControlOutsideTick(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	for _, fn := range []string{"ai.push('a')", "ai.pop()", "ai.replace('a')", "ai.send('e')", "ai.state()", "ai.active('a')", "ai.time()", "ai.random()", "ai.log('x')"} {
		_, err := host.VM(h).RunString("outside.lua", "local ai = require('luaai')\n"+fn)
		require.Error(t, err, fn)
		require.Contains(t, err.Error(), "outside.lua:2:", fn)
		require.Contains(t, err.Error(), "inside a callback", fn)
	}
}

func TestDecideEvery(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "m",
  states = {
    m = ai.fsm {
      initial = "x", decide_every = 0.3,
      transitions = { { to = "out", when = function(ctx) return ctx.out end } },
      states = {
        x = { transitions = { { to = "y", when = function(ctx) log(ctx, "tried") return false end }, { to = "y", on = "poke" } } },
        y = {},
      },
    },
    out = {},
  },
}`)
	a := f.spawn(nil)
	var tries []int
	for i := 1; i <= 6; i++ {
		f.tick(a, 0.1)
		tries = append(tries, len(takeLog(a)))
	}
	require.Equal(t, []int{0, 0, 1, 0, 0, 1}, tries)
	a.Send("poke", nil)
	f.tick(a, 0.1)
	require.Equal(t, "m.y", a.Path(), "a pending event makes the machine decide")
	a.Set("out", true)
	f.tick(a, 0.1)
	require.Equal(t, "out", a.Path(), "the parent still tries the machine's own transitions every tick")
}

func TestHistory(t *testing.T) {
	for _, history := range []bool{false, true} {
		t.Run(fmt.Sprint("history=", history), func(t *testing.T) {
			f := newFixture(t, fmt.Sprintf(`
return ai.fsm {
  initial = "m",
  states = {
    m = ai.fsm {
      initial = "one", history = %v,
      transitions = { { to = "away", on = "leave" } },
      states = { one = { transitions = { { to = "two", on = "next" } } }, two = {} },
    },
    away = { transitions = { { to = "m", on = "back" } } },
  },
}`, history))
			a := f.spawn(nil)
			a.Send("next", nil)
			f.tick(a, 0.1)
			require.Equal(t, "m.two", a.Path())
			a.Send("leave", nil)
			f.tick(a, 0.1)
			a.Send("back", nil)
			f.tick(a, 0.1)
			if history {
				require.Equal(t, "m.two", a.Path())
			} else {
				require.Equal(t, "m.one", a.Path())
			}
		})
	}
}

func TestUtilitySelection(t *testing.T) {
	f := newFixture(t, `
return ai.utility {
  momentum = 0.25,
  states = {
    a = with(rec("a"), { score = function(ctx) return ctx.a end }),
    b = with(rec("b"), { score = function(ctx) return ctx.b end }),
    c = with(rec("c"), { score = function(ctx) return ctx.c end, lock = function(ctx) return ctx.lock_c end }),
  },
}`)
	a := f.spawn(map[string]any{"a": 0.5, "b": 0.5, "c": 0.125})
	st, ok := a.State()
	require.False(t, ok, "nothing active before the first decide without initial")
	require.Equal(t, "", st)
	f.tick(a, 0.1)
	require.Equal(t, "a", a.Path(), "tie without an active state: smallest name")
	a.Set("b", 0.625)
	f.tick(a, 0.1)
	require.Equal(t, "a", a.Path(), "momentum keeps the active state")
	a.Set("b", 1.0)
	f.tick(a, 0.1)
	require.Equal(t, "b", a.Path())
	a.Set("a", 1.25) // b active: 1.0 + 0.25 ties 1.25, the active one keeps it
	f.tick(a, 0.1)
	require.Equal(t, "b", a.Path())
	a.Set("c", 5)
	a.Set("lock_c", true)
	f.tick(a, 0.1)
	require.Equal(t, "c", a.Path())
	a.Set("c", 0)
	f.tick(a, 0.1)
	require.Equal(t, "c", a.Path(), "a locked active child is kept")
	a.Set("lock_c", false)
	f.tick(a, 0.1)
	require.Equal(t, "a", a.Path())
	require.Empty(t, f.se)
}

func TestUtilityBadScores(t *testing.T) {
	f := newFixture(t, `
return ai.utility {
  initial = "idle",
  states = {
    idle = { score = 0.01 },
    nan = { score = function() return 0/0 end },
    str = { score = function() return "high" end },
    boom = { score = function(ctx) error("boom") end },
    huge = { score = function(ctx) return ctx.huge end },
  },
}`)
	a := f.spawn(map[string]any{"huge": -1})
	f.tick(a, 0.1)
	require.Equal(t, "idle", a.Path())
	require.Len(t, f.se, 3)
	byState := map[string]string{}
	for _, e := range f.se {
		require.Equal(t, host.CallbackScore, e.Callback)
		byState[e.State] = e.Error()
	}
	require.Contains(t, byState["nan"], "NaN")
	require.Contains(t, byState["str"], "string, not a number")
	require.Contains(t, byState["boom"], "test.lua:")
	require.Contains(t, byState["boom"], "boom")
}

func TestUtilityDescendsIntoEnteredChild(t *testing.T) {
	f := newFixture(t, `
return ai.utility {
  states = {
    m = ai.fsm { score = 1, initial = "a", states = { a = { transitions = { { to = "b" } } }, b = {} } },
    n = { score = 0 },
  },
}`)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Equal(t, "m.b", a.Path(), "a utility machine descends into the child it just entered")
}

func TestRandomTopIsSeeded(t *testing.T) {
	// The utility machine is re-entered every third tick (u -> u2 -> u), and
	// decides in the tick after it was entered, so it draws afresh each time.
	src := `
local u = {
  select = { random_top = 2 },
  states = { a = { score = 0.5 }, b = { score = 0.4 }, c = { score = 0.3 }, d = { score = 0 } },
  transitions = { { to = "u2", after = 0.15 } },
}
return ai.fsm {
  initial = "u",
  update = function(ctx) log(ctx, ai.state()) end,
  states = { u = ai.utility(u), u2 = { transitions = { { to = "u" } } } },
}`
	run := func(seed uint64) []string {
		f := newFixture(t, src, host.Options{Seed: seed})
		a := f.spawn(nil)
		for i := 0; i < 60; i++ {
			f.tick(a, 0.1)
		}
		return takeLog(a)
	}
	x, y := run(7), run(7)
	require.Equal(t, x, y, "same seed, same choices")
	counts := map[string]int{}
	for _, s := range x {
		counts[s]++
	}
	require.Zero(t, counts["u.c"]+counts["u.d"], "only the 2 best positive scores are drawn")
	require.NotZero(t, counts["u.a"])
	require.NotZero(t, counts["u.b"])
	require.Equal(t, 20, counts["u2"])
}

func TestActiveAndState(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "combat",
  states = {
    combat = ai.fsm {
      initial = "attack",
      transitions = { { push = "flee", on = "hurt" } },
      states = { attack = {}, reload = {} },
    },
    flee = {
      update = function(ctx)
        ctx.s = ai.state()
        ctx.bare = ai.active("attack")
        ctx.path = ai.active("combat.attack")
        ctx.wrong = ai.active("flee.attack")
        ctx.reload = ai.active("reload")
      end,
    },
  },
}`)
	a := f.spawn(nil)
	require.True(t, a.Active("attack"))
	require.True(t, a.Active("combat.attack"))
	require.False(t, a.Active("attack.combat"))
	require.False(t, a.Active("reload"))
	a.Send("hurt", nil)
	f.tick(a, 0.1)
	require.Equal(t, "flee", mustStr(a.Text("s")))
	for _, k := range []string{"bare", "path"} {
		v, _ := a.Bool(k)
		require.True(t, v, k)
	}
	for _, k := range []string{"wrong", "reload"} {
		v, _ := a.Bool(k)
		require.False(t, v, k)
	}
}

func mustStr(s string, _ bool) string { return s }

func TestTimeInCallbacks(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "a",
  states = {
    a = { transitions = { { to = "b", when = function(ctx) ctx.when_time = ai.time() return ai.time() >= 0.3 - 1e-9 end } } },
    b = { enter = function(ctx) ctx.enter_time = ai.time() end, update = function(ctx) ctx.b_time = ai.time() end },
  },
}`)
	a := f.spawn(nil)
	for i := 0; i < 3; i++ {
		f.tick(a, 0.1)
	}
	require.Equal(t, "b", a.Path())
	wt, _ := a.Number("when_time")
	require.InDelta(t, 0.3, wt, 1e-9, "in when, the time of the state it leaves")
	et, _ := a.Number("enter_time")
	require.Zero(t, et)
	bt, _ := a.Number("b_time")
	require.Zero(t, bt, "entered this tick: 0")
	f.tick(a, 0.1)
	bt, _ = a.Number("b_time")
	require.InDelta(t, 0.1, bt, 1e-9)
}

func TestRandomPerAgentSeed(t *testing.T) {
	src := `
return ai.fsm { initial = "a", states = { a = { update = function(ctx) log(ctx, tostring(ai.random(1, 1000)) .. "," .. tostring(ai.random(6)) .. "," .. tostring(ai.random() < 1)) end } } }`
	draw := func(seed uint64) [][]string {
		f := newFixture(t, src, host.Options{Seed: seed})
		var out [][]string
		for i := 0; i < 3; i++ {
			a := f.spawn(nil)
			for j := 0; j < 5; j++ {
				f.tick(a, 0.1)
			}
			out = append(out, takeLog(a))
		}
		return out
	}
	x, y, z := draw(1), draw(1), draw(2)
	require.Equal(t, x, y)
	require.NotEqual(t, x, z)
	require.NotEqual(t, x[0], x[1], "agents have their own streams")
}

func TestContextDefaultsAndOverrides(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "a",
  context = { hp = 10, nested = { x = 1 } },
  states = {
    a = ai.fsm { initial = "k", context = { hp = 99, a_only = "a", shared = "a" }, states = { k = {} } },
    b = ai.fsm { initial = "k", context = { b_only = "b", shared = "b" }, states = { k = {} } },
  },
}`)
	a1 := f.spawn(nil)
	a2 := f.spawn(map[string]any{"hp": 5})
	require.Equal(t, 10.0, must2(a1.Number("hp")), "outer wins")
	require.Equal(t, "a", mustStr(a1.Text("a_only")))
	require.Equal(t, "b", mustStr(a1.Text("b_only")))
	require.Equal(t, "a", mustStr(a1.Text("shared")), "between siblings the first by name")
	require.Equal(t, 5.0, must2(a2.Number("hp")))
	n1 := host.ContextTable(a1).RawGetString("nested").(*lua.LTable)
	n2 := host.ContextTable(a2).RawGetString("nested").(*lua.LTable)
	require.NotSame(t, n1, n2, "defaults are deep-copied per agent")
	n1.RawSetString("x", lua.LNumber(2))
	require.Equal(t, lua.LNumber(1), n2.RawGetString("x"))
}

func must2(v float64, _ bool) float64 { return v }

func TestCallbackErrorsAreReported(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "a",
  states = {
    a = {
      update = function(ctx) ctx.n = (ctx.n or 0) + 1; if ctx.boom then error("kaboom") end end,
      transitions = { { to = "b", when = function(ctx) return ctx.missing.field end } },
    },
    b = {},
  },
}`)
	bad := f.spawn(map[string]any{"boom": true})
	good := f.spawn(nil)
	require.NoError(t, f.h.Tick(0.1))
	require.NoError(t, f.h.Tick(0.1))
	require.Equal(t, "a", bad.Path(), "an erroring when counts as false")
	require.Equal(t, 2.0, must2(bad.Number("n")), "the agent goes on")
	require.Equal(t, 2.0, must2(good.Number("n")), "other agents go on")
	errs := bad.TakeErrors()
	require.Len(t, errs, 4)
	require.Equal(t, host.CallbackWhen, errs[0].Callback)
	require.Equal(t, "a", errs[0].State)
	require.Contains(t, errs[0].Message(), "test.lua:")
	require.Equal(t, host.CallbackUpdate, errs[1].Callback)
	require.Contains(t, errs[1].Message(), "kaboom")
	require.Empty(t, bad.TakeErrors(), "Errors forgets what it returned")
	var se *host.ScriptError
	require.ErrorAs(t, f.se[1], &se)
	require.Equal(t, 1, se.Agent)
	require.NotEmpty(t, se.Traceback)
	var api *lua.ApiError
	require.ErrorAs(t, se, &api, "ScriptError unwraps to the Lua error")
}

func TestDefinitionErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"syntax", "return ai.fsm {", "test.lua:"},
		{"unknown target", `return ai.fsm { initial = "a", states = { a = { transitions = { { to = "nope" } } } } }`, `transition to "nope": no such state`},
		{"missing initial", `return ai.fsm { states = { a = {} } }`, "missing initial"},
		{"unknown initial", `return ai.fsm { initial = "b", states = { a = {} } }`, `initial state "b" is not one of its states`},
		{"to and push", `return ai.fsm { initial = "a", states = { a = { transitions = { { to = "a", push = "a" } } } } }`, "exactly one of to, push, pop"},
		{"leaf with states", `return ai.fsm { initial = "a", states = { a = { states = {} } } }`, "cannot have states"},
		{"hook not function", `return ai.fsm { initial = "a", states = { a = { enter = "x" } } }`, "hook enter must be a function"},
		{"bad score", `return ai.utility { states = { a = { score = "x" } } }`, "score must be a number"},
		{"missing score", `return ai.utility { states = { a = {} } }`, "need a score"},
		{"utility child transitions", `return ai.utility { states = { a = { score = 1, transitions = { { to = "a" } } } } }`, "take no transitions"},
		{"root transitions", `return ai.fsm { initial = "a", transitions = { { to = "a" } }, states = { a = {} } }`, "root machine takes no transitions"},
		{"not a machine", `return 42`, "must return a machine"},
		{"bad when", `return ai.fsm { initial = "a", states = { a = { transitions = { { to = "a", when = 3 } } } } }`, "when must be a function"},
		{"negative every", `return ai.fsm { initial = "a", states = { a = { every = -1 } } }`, "every must be a non-negative number"},
		{"bad select", `return ai.utility { select = "worst", states = { a = { score = 1 } } }`, "select must be"},
		{"runtime error", `local x = nil; return x.y`, "test.lua:2:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := host.New(host.Options{})
			require.NoError(t, err)
			defer h.Close()
			_, err = h.LoadString("test.lua", "local ai = require('luaai')\n"+c.src)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
			var list scripterr.ErrorList
			require.ErrorAs(t, err, &list)
			require.NotEmpty(t, list)
			require.ErrorIs(t, err, host.ErrInvalidDefinition)
			require.Equal(t, "test.lua", list[0].Pos.File)
			if c.name != "not a machine" {
				require.Positive(t, list[0].Pos.Line, "every problem names a line")
			}
		})
	}
}

func TestAllProblemsReported(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	_, err = h.LoadString("multi.lua", `local ai = require('luaai')
return ai.fsm {
  initial = "a",
  states = {
    a = { enter = 1 },
    b = ai.fsm { states = { x = {} } },
    c = { transitions = { { to = "zz" } } },
  },
}`)
	var list scripterr.ErrorList
	require.ErrorAs(t, err, &list)
	require.Len(t, list, 3)
	require.ErrorIs(t, err, host.ErrInvalidDefinition)

	// A file that cannot be read is not a refused definition.
	_, err = h.LoadFile(filepath.Join(t.TempDir(), "missing.lua"))
	require.ErrorIs(t, err, fs.ErrNotExist)
	require.NotErrorIs(t, err, host.ErrInvalidDefinition)
}

func TestDecisionTraceShowsNativeParts(t *testing.T) {
	var got []host.Decision
	f := newFixture(t, `
return ai.utility {
  states = {
    eat = { score = ai.product(ai.field("hunger"), ai.inverse(ai.field("distance"))) },
    idle = { score = 0.1 },
  },
}`, host.Options{OnDecision: func(d host.Decision) { got = append(got, d) }})
	a := f.spawn(map[string]any{"hunger": 0.5, "distance": 0.25})
	f.tick(a, 0.1)
	require.Len(t, got, 1)
	d := got[0]
	require.Equal(t, "eat", d.Winner)
	require.Equal(t, "eat", d.Candidates[0].State)
	require.InDelta(t, 0.375, d.Candidates[0].Score, 1e-12)
	require.Len(t, d.Candidates[0].Parts, 2)
	require.Equal(t, 0.5, d.Candidates[0].Parts[0].Value)
	require.Equal(t, 0.75, d.Candidates[0].Parts[1].Value)
	require.Contains(t, d.Candidates[0].Parts[1].Name, "inverse")
	require.Nil(t, d.Candidates[1].Parts)
}

func TestLeavingAnFsmExitsItsWholeStack(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "m",
  states = {
    m = ai.fsm(with(rec("m"), {
      initial = "a", history = true,
      transitions = { { to = "out", on = "leave" } },
      states = { a = with(rec("a"), { transitions = { { push = "b", on = "push" } } }), b = with(rec("b"), {
        update = function(ctx) ctx.b_time = ai.time() end,
      }) },
    })),
    out = with(rec("out"), { transitions = { { to = "m", on = "back" } } }),
  },
}`)
	a := f.spawn(nil)
	a.Send("push", nil)
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	takeLog(a)
	a.Send("leave", nil)
	f.tick(a, 0.1)
	require.Equal(t, []string{"exit b", "exit a", "exit m", "enter out"}, takeLog(a), "top first, then the machine")
	a.Send("back", nil)
	f.tick(a, 0.1)
	// History re-enters the state that was on top, afresh; the rest of the
	// stack is not restored.
	require.Equal(t, []string{"exit out", "enter m", "enter b"}, takeLog(a))
	require.Equal(t, []string{"b"}, must(a.Stack("m")))
	bt, _ := a.Number("b_time")
	require.Zero(t, bt, "timers start from 0")
}

func TestReplaceActiveCountsAsApplied(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "a",
  states = {
    a = with(rec("a"), {
      update = function(ctx) if ctx.req then ctx.req = false; ai.replace("a") end end,
      transitions = { { to = "b", when = function(ctx) return ctx.go end } },
    }),
    b = rec("b"),
  },
}`)
	a := f.spawn(map[string]any{"req": true})
	takeLog(a)
	f.tick(a, 0.1)
	a.Set("go", true)
	f.tick(a, 0.1)
	require.Equal(t, "a", a.Path(), "the applied (empty) request blocks the machine's decision this tick")
	require.Empty(t, takeLog(a))
	f.tick(a, 0.1)
	require.Equal(t, "b", a.Path())
}

func TestRequestsFromMachineHooksAndTheRoot(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "m",
  update = function(ctx) if ctx.root_push then ctx.root_push = false; ai.push("other") end end,
  states = {
    m = ai.fsm {
      initial = "x",
      update = function(ctx) if ctx.m_push then ctx.m_push = false; ai.push("other") end end,
      states = { x = {}, y = {} },
    },
    other = {},
  },
}`)
	a := f.spawn(map[string]any{"m_push": true})
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	require.Equal(t, "other", a.Path(), "a machine's own hook acts on the fsm above it")
	require.Equal(t, []string{"m", "other"}, must(a.Stack("")))
	a.Set("root_push", true)
	f.tick(a, 0.1)
	require.Len(t, f.se, 1, "the root has no fsm above it")
	require.Equal(t, host.CallbackUpdate, f.se[0].Callback)
	require.Equal(t, "", f.se[0].State)
	require.ErrorContains(t, f.se[0], "no fsm holds this state")
}

func TestRandomTopFallsBackToBest(t *testing.T) {
	f := newFixture(t, `
return ai.utility { select = { random_top = 2 }, states = { a = { score = -1 }, b = { score = 0 }, c = { score = -0.5 } } }`)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Equal(t, "b", a.Path(), "no positive score: the best")
}

func TestLogLines(t *testing.T) {
	var logs []host.Log
	f := newFixture(t, `
return ai.fsm { initial = "a", states = { a = { update = function(ctx) ai.log("at", ai.time(), true) end } } }`,
		host.Options{OnLog: func(l host.Log) { logs = append(logs, l) }})
	a := f.spawn(nil)
	f.tick(a, 0.5)
	require.Equal(t, []host.Log{{Agent: 1, Tick: 1, State: "a", Msg: "at\t0.5\ttrue"}}, logs)
}

func TestGoValuesBecomeLuaData(t *testing.T) {
	f := newFixture(t, `
return ai.fsm { initial = "a", states = { a = { enter = function(ctx)
  ctx.seen = table.concat({ type(ctx.ints), #ctx.ints, type(ctx.names), ctx.names[2], type(ctx.m), ctx.m.k, type(ctx.b) }, " ")
end } } }`)
	type point struct{ X int }
	a := f.spawn(map[string]any{"ints": []int{1, 2, 3}, "names": [2]string{"x", "y"}, "m": map[string]int{"k": 7}, "b": &point{1}})
	require.Equal(t, "table 3 table y table 7 userdata", mustStr(a.Text("seen")))
	a.Set("fl", []float64{0.5})
	require.Equal(t, []any{0.5}, a.Get("fl"))
	ctx := a.Context()
	require.Equal(t, []any{1.0, 2.0, 3.0}, ctx["ints"])
	require.Equal(t, map[string]any{"k": 7.0}, ctx["m"])
	require.Equal(t, &point{1}, ctx["b"], "a bound Go value comes back as itself")
	require.Equal(t, "table 3 table y table 7 userdata", ctx["seen"])
	_, err := f.h.Spawn(nil, nil)
	require.ErrorIs(t, err, host.ErrNilBehaviour)
}

// A refused ai.pop/ai.push is reported at the line that asked for it, not
// at the state's definition: it is applied a tick later, but the modder's
// mistake is the call.
func TestRefusedRequestPointsAtTheCall(t *testing.T) {
	f := newFixture(t, `
return ai.fsm { initial = "a", states = {
  a = {
    update = function(ctx)
      ai.pop()
    end,
  },
} }`)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	require.Len(t, f.se, 1)
	require.ErrorIs(t, f.se[0], host.ErrEmptyStack)
	call := strings.Count(prelude, "\n") + 5 // the line of ai.pop() in the source above
	require.Equal(t, call, f.se[0].Line)
	require.Contains(t, f.se[0].Msg, `ai.pop: pop "a": cannot pop the last state of a machine`)
}
