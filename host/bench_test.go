package host_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	lua "github.com/yuin/gopher-lua"
)

// benchGuard is the guard of the benchmarks: a 2-level HFSM. Per tick: one
// Lua condition at the root (patrol -> combat), one in the active child
// machine, one Lua update at the leaf that moves a position.
const benchGuard = `local ai = require("luaai")
local function player_found(ctx) return ctx.player == "found" end
local function far(ctx) return ctx.x > 1000 end
local function step(ctx, dt) ctx.x = ctx.x + dt end
return ai.fsm {
  initial = "patrol",
  context = { x = 0, player = "none" },
  states = {
    patrol = ai.fsm {
      initial = "walk_to_waypoint",
      transitions = { { to = "combat", when = %s } },
      states = {
        find_waypoint = { transitions = { { to = "walk_to_waypoint", when = true } } },
        walk_to_waypoint = { update = step, transitions = { { to = "find_waypoint", when = %s } } },
      },
    },
    combat = ai.fsm {
      initial = "walk_to_player",
      states = { walk_to_player = { update = step }, attack = {} },
    },
  },
}`

func guardSource(native bool) string {
	if native {
		return fmt.Sprintf(benchGuard, `ai.eq("player", "found")`, `ai.gt("x", 1000)`)
	}
	return fmt.Sprintf(benchGuard, "player_found", "far")
}

// pureLuaGuard is the same behaviour as a modder would write it without
// luaai: states as tables, a Lua loop ticking every agent.
const pureLuaGuard = `
local function player_found(ctx) return ctx.player == "found" end
local function far(ctx) return ctx.x > 1000 end
local function step(ctx, dt) ctx.x = ctx.x + dt end
local root = {
  patrol = {
    initial = "walk_to_waypoint",
    transitions = { { to = "combat", when = player_found } },
    states = {
      find_waypoint = { transitions = { { to = "walk_to_waypoint", when = function() return true end } } },
      walk_to_waypoint = { update = step, transitions = { { to = "find_waypoint", when = far } } },
    },
  },
  combat = { initial = "walk_to_player", transitions = {}, states = { walk_to_player = { update = step, transitions = {} }, attack = { transitions = {} } } },
}
local agents = {}
for i = 1, N do
  agents[i] = { top = "patrol", sub = "walk_to_waypoint", ctx = { x = 0, player = "none" } }
end
local function try(list, ctx)
  for i = 1, #list do
    local t = list[i]
    if t.when(ctx) then return t.to end
  end
end
function tick_all(dt)
  for i = 1, #agents do
    local a = agents[i]
    local ctx = a.ctx
    local top = root[a.top]
    local to = try(top.transitions, ctx)
    if to then
      a.top = to
      a.sub = root[to].initial
    else
      local sub = top.states[a.sub]
      local to2 = try(sub.transitions, ctx)
      if to2 then a.sub = to2 end
    end
    local leaf = root[a.top].states[a.sub]
    if leaf.update then leaf.update(ctx, dt) end
  end
end
`

const benchAgents = 10000

func newGuards(b *testing.B, n, workers int, native bool, budget ...time.Duration) *host.Host {
	opts := host.Options{Workers: workers}
	if len(budget) > 0 {
		opts.Budget, opts.LoadBudget = budget[0], budget[0]
		if budget[0] < 0 {
			opts.MemoryLimit = -1 // no watchdog at all: the floor the guards pay for
		}
	}
	h, err := host.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	beh, err := h.LoadString("guard.lua", guardSource(native))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := h.Spawn(beh, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := h.Tick(0.016); err != nil {
		b.Fatal(err)
	}
	return h
}

// tickGuards is the timed loop of the engine benchmarks: b.N ticks of all
// agents, reported per agent-tick. It closes the host.
func tickGuards(b *testing.B, h *host.Host, agents int) {
	defer h.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = h.Tick(0.016)
	}
	reportPerAgentTick(b, agents)
}

func reportPerAgentTick(b *testing.B, agents int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(agents), "ns/agent-tick")
}

// benchFloor is the best a careful hand-written Go+Lua loop does for the
// guard: the three callbacks called bare with PCall, contexts right-sized
// (CreateTable(0, 2)), dt boxed once. With interruptible, the Lua state runs
// under one long-lived context, the cheapest setting in which gopher-lua
// can stop a runaway (it polls the context before every instruction). With
// updateOnly, only the update is called (what a tick costs when the
// conditions are free).
func benchFloor(b *testing.B, interruptible, updateOnly bool) {
	pass, done := guardFloor(b, interruptible, updateOnly)
	defer done()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pass()
	}
	reportPerAgentTick(b, benchAgents)
}

// guardFloor is benchFloor's state: pass calls the callbacks once for each
// of benchAgents contexts; done closes the Lua state.
func guardFloor(b *testing.B, interruptible, updateOnly bool) (pass, done func()) {
	L := lua.NewState()
	cancel := func() {}
	if interruptible {
		var ctx context.Context
		ctx, cancel = context.WithCancel(context.Background())
		L.SetContext(ctx)
	}
	if err := L.DoString(`
function player_found(ctx) return ctx.player == "found" end
function far(ctx) return ctx.x > 1000 end
function step(ctx, dt) ctx.x = ctx.x + dt end`); err != nil {
		b.Fatal(err)
	}
	fns := []*lua.LFunction{L.GetGlobal("player_found").(*lua.LFunction), L.GetGlobal("far").(*lua.LFunction), L.GetGlobal("step").(*lua.LFunction)}
	if updateOnly {
		fns = fns[2:]
	}
	ctxs := make([]*lua.LTable, benchAgents)
	for i := range ctxs {
		ctxs[i] = L.CreateTable(0, 2)
		ctxs[i].RawSetString("x", lua.LNumber(0))
		ctxs[i].RawSetString("player", lua.LString("none"))
	}
	dt := lua.LValue(lua.LNumber(0.016))
	pass = func() {
		for _, ctx := range ctxs {
			for j, fn := range fns {
				L.Push(fn)
				L.Push(ctx)
				n := 1
				if j == len(fns)-1 {
					L.Push(dt)
					n = 2
				}
				if err := L.PCall(n, 1, nil); err != nil {
					b.Fatal(err)
				}
				L.Pop(1)
			}
		}
	}
	return pass, func() { cancel(); L.Close() }
}

func BenchmarkGuard(b *testing.B) {
	b.Run("floor", func(b *testing.B) { benchFloor(b, false, false) })
	b.Run("floor_ctx", func(b *testing.B) { benchFloor(b, true, false) })
	b.Run("update_only", func(b *testing.B) { benchFloor(b, false, true) })
	b.Run("engine", func(b *testing.B) { tickGuards(b, newGuards(b, benchAgents, 1, false), benchAgents) })
	// engine_vm is engine with every callback run by the VM (no compiled
	// callbacks): what compiling them saves.
	b.Run("engine_vm", func(b *testing.B) {
		h := newGuards(b, benchAgents, 1, false)
		host.VM(h).SetCompiled(false)
		tickGuards(b, h, benchAgents)
	})
	// engine_no_budget is engine without the runaway budget: the difference
	// is what the safe default costs, the rest is scheduling.
	b.Run("engine_no_budget", func(b *testing.B) { tickGuards(b, newGuards(b, benchAgents, 1, false, -1), benchAgents) })
	b.Run("pure_lua", func(b *testing.B) {
		L := lua.NewState()
		defer L.Close()
		if err := L.DoString(strings.Replace(pureLuaGuard, "N do", fmt.Sprint(benchAgents, " do"), 1)); err != nil {
			b.Fatal(err)
		}
		tick := L.GetGlobal("tick_all").(*lua.LFunction)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			L.Push(tick)
			L.Push(lua.LNumber(0.016))
			if err := L.PCall(1, 0, nil); err != nil {
				b.Fatal(err)
			}
		}
		reportPerAgentTick(b, benchAgents)
	})
	b.Run("native", func(b *testing.B) { tickGuards(b, newGuards(b, benchAgents, 1, true), benchAgents) })
}

// BenchmarkWorkers ticks 20,000 native-condition guards with 1 and 2
// workers; BenchmarkWorkers/cpu_loop shows what the machine's cores allow
// for a CPU-bound Go loop split the same way.
func BenchmarkWorkers(b *testing.B) {
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprint(w), func(b *testing.B) {
			tickGuards(b, newGuards(b, 2*benchAgents, w, true), 2*benchAgents)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/tick")
		})
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprint("cpu_loop_", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				done := make(chan uint64, w)
				for g := 0; g < w; g++ {
					go func() {
						x := uint64(g + 1)
						for k := 0; k < 4_000_000/w; k++ {
							x ^= x << 13
							x ^= x >> 7
							x ^= x << 17
						}
						done <- x
					}()
				}
				for g := 0; g < w; g++ {
					<-done
				}
			}
		})
	}
}

// BenchmarkUtility scores 8 states per decision, with Lua and native
// scorers; lua_vm runs the Lua scorers in the VM (compiling off).
func BenchmarkUtility(b *testing.B) {
	for _, name := range []string{"lua", "lua_vm", "native"} {
		native := name == "native"
		b.Run(name, func(b *testing.B) {
			var states []string
			for i := 0; i < 8; i++ {
				score := fmt.Sprintf("function(ctx) return ctx.hunger * (1 - ctx.d%d) end", i)
				if native {
					score = fmt.Sprintf(`ai.product(ai.field("hunger"), ai.inverse(ai.field("d%d")))`, i)
				}
				states = append(states, fmt.Sprintf("s%d = { score = %s }", i, score))
			}
			ctx := []string{"hunger = 0.5"}
			for i := 0; i < 8; i++ {
				ctx = append(ctx, fmt.Sprintf("d%d = %v", i, float64(i)/10))
			}
			src := fmt.Sprintf(`local ai = require("luaai")
return ai.utility { context = { %s }, states = { %s } }`, strings.Join(ctx, ", "), strings.Join(states, ", "))
			h, err := host.New(host.Options{Workers: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			host.VM(h).SetCompiled(name != "lua_vm")
			beh, err := h.LoadString("utility.lua", src)
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < 1000; i++ {
				_, _ = h.Spawn(beh, nil)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = h.Tick(0.016)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/decision")
		})
	}
}

// BenchmarkMemoryPerAgent reports the heap an agent of the guard behaviour
// costs, and what is left beyond its context table (measured by building
// the same number of context tables alone).
func BenchmarkMemoryPerAgent(b *testing.B) {
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for i := 0; i < b.N; i++ {
		h, err := host.New(host.Options{Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		beh, err := h.LoadString("guard.lua", guardSource(true))
		if err != nil {
			b.Fatal(err)
		}
		before := heap()
		for j := 0; j < benchAgents; j++ {
			_, _ = h.Spawn(beh, nil)
		}
		perAgent := float64(heap()-before) / benchAgents

		L := host.VM(h).L
		keep := make([]*lua.LTable, benchAgents)
		before = heap()
		for j := range keep {
			t := L.CreateTable(0, 2) // right-sized, as the host makes contexts
			t.RawSetString("x", lua.LNumber(0))
			t.RawSetString("player", lua.LString("none"))
			keep[j] = t
		}
		perCtx := float64(heap()-before) / benchAgents
		runtime.KeepAlive(keep)
		b.ReportMetric(perAgent, "B/agent")
		b.ReportMetric(perAgent-perCtx, "B/agent-beyond-ctx")
		h.Close()
	}
}

// benchBody is the game object of BenchmarkBoundObject.
type benchBody struct {
	X  float64 `lua:"x"`
	VX float64 `lua:"vx"`
	HP float64 `lua:"hp"`
}

// Move is what a script calls through gopher-luar.
func (b *benchBody) Move(dt float64) { b.X += b.VX * dt }

const bodyScript = `local ai = require("luaai")
return ai.fsm { initial = "move", states = { move = {
  update = function(ctx, dt)
    local me = ctx.me
    me.x = me.x + me.vx * dt
    if me.hp < 0 then me.hp = 100 end
  end } } }`

// BenchmarkBoundObject: a game object of three fields read and written by
// a script every tick, as plain context fields (the floor: the game never
// sees them), bound with gopher-luar (Agent.Bind), and synced
// (Agent.Sync: copied in before the tick and out after).
func BenchmarkBoundObject(b *testing.B) {
	const agents = 1000
	run := func(b *testing.B, setup func(a *host.Agent, body *benchBody) error) {
		h, err := host.New(host.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close()
		beh, err := h.LoadString("body.lua", bodyScript)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < agents; i++ {
			a, err := h.Spawn(beh, nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := setup(a, &benchBody{X: float64(i), VX: 1, HP: 50}); err != nil {
				b.Fatal(err)
			}
		}
		if err := h.Tick(0.016); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := h.Tick(0.016); err != nil {
				b.Fatal(err)
			}
		}
		reportPerAgentTick(b, agents)
	}
	b.Run("plain", func(b *testing.B) {
		run(b, func(a *host.Agent, body *benchBody) error {
			return a.Set("me", map[string]any{"x": body.X, "vx": body.VX, "hp": body.HP})
		})
	})
	b.Run("gopher_luar", func(b *testing.B) {
		run(b, func(a *host.Agent, body *benchBody) error {
			// gopher-luar exposes exported names: the script's me.x is X.
			return a.Bind("me", body)
		})
	})
	b.Run("sync", func(b *testing.B) {
		run(b, func(a *host.Agent, body *benchBody) error { return a.Sync("me", body) })
	})
}

// BenchmarkScale ticks native-condition guards at 1,000, 10,000 and 100,000
// agents: the cost per agent-tick should not grow with the number of agents
// (it does when the working set outgrows the caches).
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { tickGuards(b, newGuards(b, n, 1, true), n) })
	}
}

// BenchmarkUtilityRatio ticks the hosts of BenchmarkUtility (Lua scorers
// compiled, the same run by the VM, natives) in turn, each iteration, and
// reports the median per-tick ratios: lua/native (compiled Lua scorers
// against natives) and vm/native (natives' speed-up over the VM's Lua
// scorers), robust to a machine whose load changes between benchmarks,
// and the median times of a decision of the natives and of the VM's Lua
// scorers (one decision per agent-tick).
func BenchmarkUtilityRatio(b *testing.B) {
	const agents = 1000
	mk := func(native, compiled bool) *host.Host {
		var states, ctx []string
		ctx = append(ctx, "hunger = 0.5")
		for i := 0; i < 8; i++ {
			score := fmt.Sprintf("function(ctx) return ctx.hunger * (1 - ctx.d%d) end", i)
			if native {
				score = fmt.Sprintf(`ai.product(ai.field("hunger"), ai.inverse(ai.field("d%d")))`, i)
			}
			states = append(states, fmt.Sprintf("s%d = { score = %s }", i, score))
			ctx = append(ctx, fmt.Sprintf("d%d = %v", i, float64(i)/10))
		}
		src := fmt.Sprintf(`local ai = require("luaai")
return ai.utility { context = { %s }, states = { %s } }`, strings.Join(ctx, ", "), strings.Join(states, ", "))
		h, err := host.New(host.Options{Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		host.VM(h).SetCompiled(compiled)
		beh, err := h.LoadString("utility.lua", src)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < agents; i++ {
			if _, err := h.Spawn(beh, nil); err != nil {
				b.Fatal(err)
			}
		}
		return h
	}
	lua, vm, native := mk(false, true), mk(false, false), mk(true, true)
	defer lua.Close()
	defer vm.Close()
	defer native.Close()
	timed := func(h *host.Host) time.Duration {
		t0 := time.Now()
		if err := h.Tick(0.016); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	var luaNative, vmNative, nativeNs, vmNs []float64
	b.ResetTimer()
	for range b.N {
		l, v, n := timed(lua), timed(vm), timed(native)
		luaNative = append(luaNative, float64(l)/float64(n))
		vmNative = append(vmNative, float64(v)/float64(n))
		nativeNs = append(nativeNs, float64(n.Nanoseconds())/agents)
		vmNs = append(vmNs, float64(v.Nanoseconds())/agents)
	}
	b.ReportMetric(median(luaNative), "lua/native")
	b.ReportMetric(median(vmNative), "vm/native")
	b.ReportMetric(median(nativeNs), "native-ns/decision")
	b.ReportMetric(median(vmNs), "vm-ns/decision")
}
