package host_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// spawner: every agent spawns a child on its second tick (an inline
// definition on even ids, a script path on odd ones), ticks its children
// from then on, and writes what they do into its context. The children draw
// random numbers at spawn, so their ids (which seed them) show in the trace.
const spawnerSrc = `local ai = require("luaai")
local child = ai.fsm {
  initial = "born",
  context = { r = 0, events = "" },
  states = {
    born = {
      enter = function(ctx) ctx.r = ai.random(1, 1000000) end,
      transitions = { { to = "grown", on = "grow" } },
    },
    grown = { enter = function(ctx) ctx.events = ctx.events .. "grown " end },
  },
}
return ai.fsm {
  initial = "run",
  context = { n = 0, kids = {}, seen = "", pending = "" },
  states = {
    run = {
      update = function(ctx, dt)
        ctx.n = ctx.n + 1
        for _, k in ipairs(ctx.kids) do
          k:tick(dt)
          ctx.seen = ctx.seen .. (k:state() or "-") .. ":" .. k.ctx.r .. " "
        end
        if ctx.n == 2 then
          local k
          if ctx.odd then k = ai.spawn("child.lua", { r = -1 }) else k = ai.spawn(child) end
          -- queued: state nil, ctx usable, tick refused, events kept
          ctx.pending = tostring(k:state()) .. " " .. tostring(k.ctx.r) .. " " .. tostring(pcall(k.tick, k, 0.1))
          k:send("grow")
          ctx.kids[#ctx.kids + 1] = k
        end
      end,
    },
  },
}`

const childSrc = `local ai = require("luaai")
return ai.fsm {
  initial = "born",
  context = { r = 0 },
  states = {
    born = { enter = function(ctx) ctx.r = ctx.r * ai.random(1, 1000000) end,
      transitions = { { to = "grown", on = "grow" } } },
    grown = {},
  },
}`

// spawnTrace runs with an instruction budget instead of wall time and heap
// limits, so the traces compared across worker counts cannot differ by how
// busy the machine is.
func spawnTrace(t *testing.T, workers, agents int) []string {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "spawner.lua"), []byte(spawnerSrc), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "child.lua"), []byte(childSrc), 0o644))
	var out []string
	h, err := host.New(host.Options{Workers: workers, Seed: 7, Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7,
		OnTransition: func(tr host.Transition) {
			out = append(out, fmt.Sprintf("T %d %d %s>%s", tr.Tick, tr.Agent, tr.From, tr.To))
		},
		OnError: func(e *host.ScriptError) { out = append(out, "E "+e.Error()) },
	})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadFile(filepath.Join(dir, "spawner.lua"))
	require.NoError(t, err)
	var list []*host.Agent
	for i := 1; i <= agents; i++ {
		a, err := h.Spawn(b, map[string]any{"odd": i%2 == 1})
		require.NoError(t, err)
		list = append(list, a)
	}
	for i := 0; i < 4; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	for _, a := range list {
		p, _ := a.Text("pending")
		s, _ := a.Text("seen")
		out = append(out, fmt.Sprintf("A %d %s | %s", a.ID(), p, s))
	}
	return out
}

// Spawning from hooks during Host.Tick with several workers used to be a
// fatal concurrent map write; now spawns are queued and made at the end of
// the tick in (spawning agent, call) order, so the trace is the same for
// any number of workers. 200 agents: more than the 64-agent blocks workers
// are dealt.
func TestSpawnDuringTick(t *testing.T) {
	want := spawnTrace(t, 1, 200)
	// The children are numbered 201… in the order of their parents' ids,
	// and see the event sent to them while they were queued.
	require.Contains(t, want, "T 1 201 born>grown")
	require.Contains(t, want, "T 1 400 born>grown")
	for _, line := range want {
		if strings.HasPrefix(line, "A ") {
			require.Contains(t, line, " nil ", line) // k:state() while queued
			require.Contains(t, line, "false", line) // k:tick refused while queued
			require.Contains(t, line, "grown:", line)
		}
		require.False(t, strings.HasPrefix(line, "E "), line)
	}
	for _, w := range []int{2, 4} {
		require.Equal(t, want, spawnTrace(t, w, 200), "workers=%d", w)
	}
}

// Definitions a script builds at run time (ai.spawn(ai.fsm{…})) are
// garbage once no agent uses them: 20,000 spawns in a loop leave the heap
// where 2,000 did.
func TestRuntimeDefinitionsReleased(t *testing.T) {
	h, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("maker.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx)
    for i = 1, ctx.n do
      local a = ai.spawn(ai.fsm { initial = "x", context = { big = string.rep("x", 1000) }, states = { x = {}, y = {} } })
    end
  end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	heap := func(n int) uint64 {
		a.Set("n", n)
		require.NoError(t, h.Tick(0.1))
		a.Set("n", 0)
		require.NoError(t, h.Tick(0.1)) // the queued agents are made and dropped
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap(2000)
	after := heap(20000)
	require.Less(t, after, base+8<<20, "heap grew from %d to %d bytes", base, after)
}

type reentry struct {
	h      *host.Host
	b      *host.Behaviour
	errs   []error
	spawns int
}

// The hooks of Options run after the workers finish: Spawn, Remove,
// Reload, Snapshot and Agent.Tick called from them work, and nothing they
// record is lost or delivered twice.
func TestHostCallsFromHooks(t *testing.T) {
	src := `local ai = require("luaai")
return ai.utility { context = { n = 0 }, states = {
  a = { score = function(ctx) return ctx.n % 2 end, update = function(ctx) ctx.n = ctx.n + 1; ai.log("a") end },
  b = { score = 0.5, update = function(ctx) ctx.n = ctx.n + 1; if ctx.n % 3 == 0 then error("three") end end },
} }`
	for _, hook := range []string{"OnTransition", "OnLog", "OnError", "OnDecision"} {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/%d", hook, workers), func(t *testing.T) {
				r := &reentry{}
				seen := map[string]int{}
				act := func(agent int) {
					if r.spawns >= 50 { // bounded: each spawn records more
						return
					}
					r.spawns++
					a, err := r.h.Spawn(r.b, nil)
					r.errs = append(r.errs, err)
					if err == nil {
						_, err = r.h.Snapshot()
						r.errs = append(r.errs, err)
						r.errs = append(r.errs, a.Tick(0.1))
						if r.spawns%3 == 0 {
							r.errs = append(r.errs, r.h.Remove(a))
						}
						if r.spawns%10 == 0 {
							r.errs = append(r.errs, r.b.ReloadSource(src))
						}
					}
				}
				opts := host.Options{Workers: workers, ReportAllErrors: true, Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7}
				count := func(kind string, agent, tick int, what string) {
					key := fmt.Sprintf("%s %d %d %s", kind, agent, tick, what)
					seen[key]++
					require.Equal(t, 1, seen[key], "delivered twice: %s", key)
				}
				switch hook {
				case "OnTransition":
					opts.OnTransition = func(tr host.Transition) { count("T", tr.Agent, tr.Tick, tr.From+">"+tr.To); act(tr.Agent) }
				case "OnLog":
					opts.OnLog = func(l host.Log) { count("L", l.Agent, l.Tick, l.Msg); act(l.Agent) }
				case "OnError":
					opts.OnError = func(e *host.ScriptError) { count("E", e.Agent, e.Tick, e.Msg); act(e.Agent) }
				case "OnDecision":
					opts.OnDecision = func(d host.Decision) { count("D", d.Agent, d.Tick, d.Winner); act(d.Agent) }
				}
				h, err := host.New(opts)
				require.NoError(t, err)
				defer h.Close()
				r.h = h
				r.b, err = h.LoadString("flip.lua", src)
				require.NoError(t, err)
				for i := 0; i < 100; i++ {
					_, err := h.Spawn(r.b, nil)
					require.NoError(t, err)
				}
				for i := 0; i < 10; i++ {
					require.NoError(t, h.Tick(0.1))
				}
				require.Equal(t, 50, r.spawns)
				for _, err := range r.errs {
					require.NoError(t, err)
				}
				require.NotEmpty(t, seen)
			})
		}
	}
}

// World is a game object a script reaches through a bound value.
type World struct {
	h   *host.Host
	b   *host.Behaviour
	a   *host.Agent
	Err []string
}

// Poke calls back into the host from inside a callback, which must refuse.
func (w *World) Poke() {
	record := func(what string, err error) {
		if !errors.Is(err, host.ErrReentrant) {
			w.Err = append(w.Err, fmt.Sprintf("%s: %v", what, err))
		}
	}
	_, err := w.h.Spawn(w.b, nil)
	record("Spawn", err)
	record("Remove", w.h.Remove(w.a))
	record("Tick", w.h.Tick(0.1))
	record("Agent.Tick", w.a.Tick(0.1))
	record("Reload", w.b.ReloadSource("return 1"))
	_, err = w.h.Snapshot()
	record("Snapshot", err)
	_, err = w.a.Snapshot()
	record("Agent.Snapshot", err)
	_, err = w.h.Restore([]byte(`{}`), w.b)
	record("Restore", err)
	_, err = w.h.LoadString("x.lua", "return 1")
	record("LoadString", err)
}

// From inside a script (a bound Go value) while the workers run, the
// methods that change agents or behaviours return ErrReentrant.
func TestHostCallsFromScriptsRefused(t *testing.T) {
	for _, workers := range []int{1, 2} {
		h, err := host.New(host.Options{Workers: workers})
		require.NoError(t, err)
		b, err := h.LoadString("poke.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function(ctx) ctx.world:Poke() end } } }`)
		require.NoError(t, err)
		w := &World{h: h, b: b}
		w.a, err = h.Spawn(b, nil)
		require.NoError(t, err)
		w.a.Bind("world", w)
		require.NoError(t, h.Tick(0.1))
		require.Empty(t, w.Err)
		require.Empty(t, w.a.TakeErrors())
		require.Equal(t, 1, w.a.Ticks())
		h.Close()
	}
}

// Go data that refers to itself converts to Lua tables that do too, where
// it used to recurse until the stack overflowed; ai.max and ai.min of a
// NaN are NaN whatever infinities stand beside it.
func TestSmallHardenings(t *testing.T) {
	h, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("m.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { m = false, ok = false }, states = { s = {
  update = function(ctx) ctx.ok = ctx.m.self == ctx.m and ctx.m.list[1] == ctx.m and ctx.m.name == "m" end } } }`)
	require.NoError(t, err)
	m := map[string]any{"name": "m"}
	m["self"] = m
	m["list"] = []any{m}
	a, err := h.Spawn(b, map[string]any{"m": m})
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.Empty(t, a.TakeErrors())
	ok, _ := a.Bool("ok")
	require.True(t, ok)

	h2, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h2.Close()
	u, err := h2.LoadString("u.lua", `local ai = require("luaai")
return ai.utility { initial = "a", states = {
  a = { score = ai.max(ai.field("nan"), 1/0) },
  b = { score = ai.min(-1/0, ai.field("nan")) },
  c = { score = 0.5 },
} }`)
	require.NoError(t, err)
	ua, err := h2.Spawn(u, map[string]any{"nan": math.NaN()})
	require.NoError(t, err)
	require.NoError(t, h2.Tick(0.1))
	require.Equal(t, "c", ua.Path(), "NaN scores count as 0")

	_, err = h2.LoadString("r.lua", `local ai = require("luaai")
return ai.utility { select = { random_top = 1/0 }, states = { a = { score = 1 } } }`)
	require.ErrorContains(t, err, "select.random_top must be a positive whole number")
}
