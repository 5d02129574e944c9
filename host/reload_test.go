package host_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
)

const sentryV1 = `
return ai.fsm {
  initial = "patrol",
  context = { version = 0 },
  states = {
    patrol = with(rec("patrol"), {
      every = 0.3,
      update = function(ctx, dt) log(ctx, string.format("v1 patrol %.1f", dt)) end,
      transitions = { { push = "look", on = "noise" } },
    }),
    look = with(rec("look"), {
      update = function(ctx) ctx.look_time = ai.time() end,
      transitions = { { pop = true, after = 0.5 } },
    }),
  },
}`

func TestReloadKeepsStackTimersAndRunsNoHooks(t *testing.T) {
	f := newFixture(t, sentryV1)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	f.tick(a, 0.1) // patrol every-accumulator at 0.2
	a.Send("noise", nil)
	f.tick(a, 0.1) // pushed look; patrol frozen with accumulator 0.3 (advanced before the push)
	f.tick(a, 0.1) // look 0.1
	takeLog(a)
	v2 := strings.ReplaceAll(sentryV1, "v1", "v2")
	v2 = strings.Replace(v2, `ctx.look_time = ai.time()`, `ctx.look_time = ai.time(); log(ctx, "v2 look")`, 1)
	require.NoError(t, f.b.ReloadSource(prelude+v2))
	require.Empty(t, takeLog(a), "no enter/exit/pause/resume for states that still exist")
	require.Equal(t, []string{"patrol", "look"}, must(a.Stack("")))
	f.tick(a, 0.1)
	require.Equal(t, []string{"v2 look"}, takeLog(a))
	lt, _ := a.Number("look_time")
	require.InDelta(t, 0.2, lt, 1e-9, "time in state survives the reload")
	for i := 0; i < 3; i++ {
		f.tick(a, 0.1)
	}
	// look pops after 0.5 s (its after timer went on from 0.2), patrol resumes
	// and its frozen accumulator (0.3) makes it update at once with dt 0.3.
	require.Equal(t, []string{"v2 look", "v2 look", "exit look", "resume patrol", "v2 patrol 0.3"}, takeLog(a))
	require.Empty(t, f.se)
}

func TestReloadRemovedActiveStateReentersInitial(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "m",
  states = {
    m = ai.fsm(with(rec("m"), { initial = "a", states = { a = with(rec("a"), { transitions = { { to = "b" } } }), b = rec("b") } })),
  },
}`)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Equal(t, "m.b", a.Path())
	takeLog(a)
	require.NoError(t, f.b.ReloadSource(prelude+`
return ai.fsm {
  initial = "m",
  states = {
    m = ai.fsm(with(rec("m"), { initial = "a", states = { a = with(rec("a"), {}), c = rec("c") } })),
  },
}`))
	require.Equal(t, "m.a", a.Path(), "the nearest surviving machine re-entered its initial")
	require.Equal(t, []string{"enter a"}, takeLog(a), "m itself survives: only its new initial enters")
	last := f.tr[len(f.tr)-1]
	require.Equal(t, host.Transition{Agent: 1, Tick: 1, Kind: "reload", From: "m.b", To: "m.a"}, last)
}

func TestReloadRenamed(t *testing.T) {
	f := newFixture(t, `
return ai.fsm {
  initial = "patrol",
  states = {
    patrol = ai.fsm { initial = "walk", states = { walk = { update = function(ctx) ctx.t = ai.time() end }, idle = {} } },
  },
}`)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	f.tick(a, 0.1)
	require.NoError(t, f.b.ReloadSource(prelude+`
return ai.fsm {
  initial = "patrol",
  renamed = { ["patrol.walk"] = "patrol.walk_to" },
  on_reload = function(ctx) ctx.reloads = (ctx.reloads or 0) + 1 end,
  states = {
    patrol = ai.fsm { initial = "idle", states = { walk_to = { update = function(ctx) ctx.t = ai.time() end }, idle = {} } },
  },
}`))
	require.Equal(t, "patrol.walk_to", a.Path())
	f.tick(a, 0.1)
	tm, _ := a.Number("t")
	require.InDelta(t, 0.3, tm, 1e-9)
	n, _ := a.Number("reloads")
	require.Equal(t, 1.0, n, "on_reload runs once per agent")
}

func TestReloadBrokenScriptChangesNothing(t *testing.T) {
	var results []host.ReloadResult
	f := newFixture(t, sentryV1, host.Options{OnReload: func(r host.ReloadResult) { results = append(results, r) }})
	a := f.spawn(nil)
	for i := 0; i < 3; i++ {
		f.tick(a, 0.1)
	}
	takeLog(a)
	for _, bad := range []string{
		"return ai.fsm {", // syntax
		`return ai.fsm { initial = "nope", states = { a = {} } }`, // validation
		`error("refused")`, // runtime
	} {
		err := f.b.ReloadSource(prelude + bad)
		require.Error(t, err)
		var list scripterr.ErrorList
		require.ErrorAs(t, err, &list)
		require.Equal(t, "test.lua", list[0].Pos.File)
		require.Positive(t, list[0].Pos.Line)
	}
	for i := 0; i < 3; i++ {
		f.tick(a, 0.1)
	}
	require.Equal(t, []string{"v1 patrol 0.3"}, takeLog(a), "the old behaviour keeps running")
	require.Len(t, results, 3)
	for _, r := range results {
		require.Error(t, r.Err)
	}
}

func TestReloadFromFileRerunsRequires(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	write("speed.lua", "return 1\n")
	write("mover.lua", `local ai = require("luaai")
local speed = require("speed")
return ai.fsm { initial = "go", context = { x = 0 }, states = { go = { update = function(ctx) ctx.x = ctx.x + speed end } } }
`)
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadFile(filepath.Join(dir, "mover.lua"))
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	write("speed.lua", "return 10\n")
	require.NoError(t, b.Reload())
	require.NoError(t, h.Tick(0.1))
	x, _ := a.Number("x")
	require.Equal(t, 11.0, x)
	require.Contains(t, strings.Join(b.Files(), " "), "speed.lua")
}

func TestReloadQueuedFromAnotherGoroutine(t *testing.T) {
	var mu sync.Mutex
	var results []host.ReloadResult
	f := newFixture(t, `
return ai.fsm { initial = "a", states = { a = { update = function(ctx) ctx.v = 1 end } } }`,
		host.Options{Workers: 2, OnReload: func(r host.ReloadResult) { mu.Lock(); results = append(results, r); mu.Unlock() }})
	var agents []*host.Agent
	for i := 0; i < 10; i++ {
		agents = append(agents, f.spawn(nil))
	}
	v2 := prelude + `return ai.fsm { initial = "a", states = { a = { update = function(ctx) ctx.v = 2 end } } }`
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f.h.QueueReloadSource(f.b, v2)
	}()
	wg.Wait()
	require.NoError(t, f.h.Tick(0.1))
	for _, a := range agents {
		v, _ := a.Number("v")
		require.Equal(t, 2.0, v)
	}
	require.Len(t, results, 1)
	require.NoError(t, results[0].Err)
}

func TestReloadKeepsEventsRequestsAndRandom(t *testing.T) {
	src := `
return ai.fsm {
  initial = "a",
  states = {
    a = { update = function(ctx) log(ctx, tostring(ai.random(100))); if ctx.req then ctx.req = false; ai.push("c") end end,
          transitions = { { to = "b", on = "go" } } },
    b = { update = function(ctx) log(ctx, "b " .. ai.random(100)) end },
    c = { update = function(ctx) log(ctx, "c " .. ai.random(100)) end },
  },
}`
	run := func(reload bool) []string {
		f := newFixture(t, src)
		a := f.spawn(map[string]any{"req": true})
		f.tick(a, 0.1) // requests push c for the next tick
		if reload {
			require.NoError(t, f.b.ReloadSource(prelude+src))
		}
		f.tick(a, 0.1)
		a.Send("go", nil)
		if reload {
			require.NoError(t, f.b.ReloadSource(prelude+src))
		}
		f.tick(a, 0.1)
		f.tick(a, 0.1)
		return append(takeLog(a), a.Path())
	}
	require.Equal(t, run(false), run(true))
}

// An fsm with a pushed state reloaded as a utility machine keeps its top
// state, leaves the paused one (its exit runs), and saves and restores.
func TestReloadFSMWithStackToUtility(t *testing.T) {
	fsm := `local ai = require("luaai")
return ai.fsm { initial = "m", context = { log = "" }, states = {
  m = ai.fsm { initial = "a", states = {
    a = { enter = function() ai.push("b") end, exit = function(ctx) ctx.log = ctx.log .. "exit a;" end },
    b = {},
  } } } }`
	utility := `local ai = require("luaai")
return ai.fsm { initial = "m", context = { log = "" }, states = {
  m = ai.utility { states = {
    a = { score = 0.1, exit = function(ctx) ctx.log = ctx.log .. "exit a;" end },
    b = { score = 0.2 },
  } } } }`
	h, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("m.lua", fsm)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	st, err := a.Stack("m")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, st)
	require.NoError(t, b.ReloadSource(utility))
	st, err = a.Stack("m")
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, st)
	log, _ := a.Text("log")
	require.Equal(t, "exit a;", log)
	data, err := h.Snapshot()
	require.NoError(t, err)
	h2, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("m.lua", utility)
	require.NoError(t, err)
	got, err := h2.Restore(data, b2)
	require.NoError(t, err)
	require.Equal(t, "m.b", got[0].Path())
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, h2.Tick(0.1))
	require.Equal(t, a.Path(), got[0].Path())
}

// A reload that declares new context defaults adds them to live contexts
// that lack them, before on_reload runs, and never overwrites a key.
func TestReloadAddsNewDefaults(t *testing.T) {
	for _, workers := range []int{1, 2} {
		var results []host.ReloadResult
		h, err := host.New(host.Options{Workers: workers, OnReload: func(r host.ReloadResult) { results = append(results, r) }})
		require.NoError(t, err)
		b, err := h.LoadString("v.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { hp = 10 }, states = { s = {} } }`)
		require.NoError(t, err)
		var agents []*host.Agent
		for range 130 {
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			agents = append(agents, a)
		}
		require.NoError(t, agents[0].Set("ammo", 99)) // the game set one already
		require.NoError(t, agents[1].Set("hp", 3))
		require.NoError(t, b.ReloadSource(`local ai = require("luaai")
return ai.fsm { initial = "s", context = { hp = 10, ammo = 5, bag = { "rope" } },
  on_reload = function(ctx) ctx.seen = ctx.ammo end, states = { s = {} } }`))
		require.Len(t, results, 1)
		require.Equal(t, []string{"ammo", "bag"}, results[0].Added)
		require.Equal(t, 99.0, agents[0].Get("ammo"), "an existing key is never overwritten")
		require.Equal(t, 3.0, agents[1].Get("hp"))
		require.Equal(t, 5.0, agents[129].Get("ammo"))
		require.Equal(t, []any{"rope"}, agents[129].Get("bag"))
		require.Equal(t, 5.0, agents[129].Get("seen"), "on_reload sees the new keys")
		require.NotSame(t, host.ContextTable(agents[2]).RawGetString("bag"), host.ContextTable(agents[3]).RawGetString("bag"),
			"each context gets its own copy")

		require.NoError(t, b.ReloadSource(`local ai = require("luaai")
return ai.fsm { initial = "s", context = { hp = 10, ammo = 5, bag = {} }, states = { s = {} } }`))
		require.Empty(t, results[1].Added, "nothing new this time")
		h.Close()
	}
}

// A reload that removes the state that asked for a pop drops the pop: the
// agent never makes a pop it did not ask for in its new state.
func TestReloadDropsRequestsOfRemovedStates(t *testing.T) {
	var trs []host.Transition
	var logs []host.Log
	h, err := host.New(host.Options{OnTransition: func(tr host.Transition) { trs = append(trs, tr) },
		OnLog: func(l host.Log) { logs = append(logs, l) }})
	require.NoError(t, err)
	defer h.Close()
	v1 := `local ai = require("luaai")
return ai.fsm { initial = "base", states = {
  base = { transitions = { { push = "look", on = "noise" } } },
  look = { update = function() ai.pop() end },
  other = {} } }`
	b, err := h.LoadString("r.lua", v1)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, a.Send("noise", nil))
	require.NoError(t, h.Tick(0.1)) // pushed look; its update asked for a pop
	require.Equal(t, []string{"base", "look"}, must(a.Stack("")))
	v2 := `local ai = require("luaai")
return ai.fsm { initial = "base", states = { base = {}, other = {} } }`
	require.NoError(t, b.ReloadSource(v2))
	require.Equal(t, []string{"base"}, must(a.Stack("")))
	trs = nil
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, h.Tick(0.1))
	require.Empty(t, trs, "no pop the agent never asked for in its new state")
	require.Equal(t, "base", a.Path())
	require.Empty(t, a.TakeErrors())
	found := false
	for _, l := range logs {
		found = found || strings.Contains(l.Msg, "a pending push, pop or replace was dropped by the reload")
	}
	require.True(t, found, "the drop is traced")
}

// A reload that removes the state agents are in says which and how many:
// they re-entered the initial state (a rename would have kept them).
func TestReloadReportsVanishedStates(t *testing.T) {
	var got []host.ReloadResult
	h, err := host.New(host.Options{OnReload: func(r host.ReloadResult) { got = append(got, r) }})
	require.NoError(t, err)
	defer h.Close()
	v1 := `local ai = require("luaai")
return ai.fsm { initial = "idle", states = { idle = { transitions = { { to = "walk" } } }, walk = {} } }`
	v2 := `local ai = require("luaai")
return ai.fsm { initial = "idle", states = { idle = {}, stroll = {} } }`
	b, err := h.LoadString("walker.lua", v1)
	require.NoError(t, err)
	for range 3 {
		_, err := h.Spawn(b, nil)
		require.NoError(t, err)
	}
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "walk", h.Agents()[0].Path())
	require.NoError(t, b.ReloadSource(v2))
	require.Len(t, got, 1)
	require.Equal(t, []string{"walk"}, got[0].Vanished)
	require.Equal(t, 3, got[0].Moved)
	require.Equal(t, "idle", h.Agents()[0].Path())

	require.NoError(t, b.ReloadSource(v2))
	require.Empty(t, got[1].Vanished, "nothing vanished this time")
	require.Zero(t, got[1].Moved)
}
