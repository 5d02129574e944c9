package host_test

// An RTS match server as a studio builds one on host, for the benchmark
// that measures the engine at 5,000, 20,000 and 50,000 units: workers
// (utility with native scorers and curves), soldiers (an fsm that pushes
// a regroup on their commander's order), towers (a behaviour tree) and
// squad commanders (regions, ordering their squad with ai.send_to every
// second). Units read the world through typed Go functions with the
// *Agent first (Options.Funcs: four results, several results with an
// error, a bool), and each has its Go body synced into ctx.body. 20 ticks
// a second, one worker.
//
// Beside each size its floor: the same Lua calls the engine made in one
// tick, recorded and replayed bare with PCall on the same contexts (the
// typed functions included, each told its agent), as BenchmarkGame does.
//
//	go test ./host -run '^$' -bench 'RTS$' -benchtime 10x

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// rtsBody is a unit's body, synced into ctx.body.
type rtsBody struct {
	X     float64 `lua:"x"`
	Y     float64 `lua:"y"`
	HP    float64 `lua:"hp"`
	Enemy float64 `lua:"enemy,readonly"` // distance to the nearest enemy
}

// rtsWorld is the game's side: bodies, and what units asked for in the
// tick (moves, shots), by agent id - 1.
type rtsWorld struct {
	bodies []rtsBody
	moves  []float64
	damage []float64
}

// The world's typed functions, as a game writes them.
func (w *rtsWorld) funcs() map[string]any {
	return map[string]any{
		// nearest_enemy(range) → id, distance: 0 when none is in range.
		"nearest_enemy": func(a *host.Agent, r float64) (int, float64, error) {
			i := a.ID() - 1
			d := w.bodies[i].Enemy
			if d >= r {
				return 0, d, nil
			}
			return (i+7)%len(w.bodies) + 1, d, nil
		},
		// sense() → x, y, threat (0..1), load rate.
		"sense": func(a *host.Agent) (float64, float64, float64, float64) {
			b := &w.bodies[a.ID()-1]
			threat := 1 - b.Enemy/20
			if threat < 0 {
				threat = 0
			}
			return b.X, b.Y, threat, 0.2
		},
		// move(dx, dy): the game moves the unit after the tick.
		"move": func(a *host.Agent, dx, dy float64) {
			w.moves[a.ID()-1] += dx*dx + dy*dy
		},
		// fire(target) → whether the shot was taken.
		"fire": func(a *host.Agent, target int) bool {
			if target < 1 || target > len(w.damage) {
				return false
			}
			w.damage[target-1]++
			return true
		},
	}
}

// step is the game's side of a tick: enemies come near some units and
// leave others.
func (w *rtsWorld) step(tick int) {
	for i := range w.bodies {
		switch (i + tick) % 40 {
		case 0:
			w.bodies[i].Enemy = 6
		case 15:
			w.bodies[i].Enemy = 100
		}
	}
}

// rtsSquad is how many soldiers a commander orders.
const rtsSquad = 5

// newRTS makes a match of units (a multiple of 100): in each hundred, 8
// commanders each followed by their 5 soldiers, 40 workers and 12 towers.
func newRTS(b testing.TB, units int) (*host.Host, *rtsWorld) {
	b.Helper()
	w := newRTSWorld(units)
	h, kinds := rtsHost(b, w)
	spawn := func(kind string, overrides map[string]any) *host.Agent {
		i := h.Len()
		w.bodies[i] = rtsBody{X: float64(i%100 - 50), Y: float64(i % 37), HP: 100, Enemy: 100}
		a, err := h.SpawnWith(kinds[kind], host.SpawnOptions{Overrides: overrides,
			Sync: map[string]any{"body": &w.bodies[i]}})
		if err != nil {
			b.Fatal(err)
		}
		return a
	}
	for h.Len() < units {
		for c := range 8 {
			cmd := spawn("commander", map[string]any{"t": float64(c) / 8})
			var squad []any
			for range rtsSquad {
				squad = append(squad, spawn("soldier", map[string]any{"commander": cmd.ID()}).ID())
			}
			if err := cmd.Set("squad", squad); err != nil {
				b.Fatal(err)
			}
		}
		for range 40 {
			spawn("worker", nil)
		}
		for range 12 {
			spawn("tower", nil)
		}
	}
	w.step(0)
	if err := h.Tick(0.05); err != nil {
		b.Fatal(err)
	}
	return h, w
}

// newRTSWorld is the game's side of a match of units, before any spawns.
func newRTSWorld(units int) *rtsWorld {
	return &rtsWorld{bodies: make([]rtsBody, units), moves: make([]float64, units), damage: make([]float64, units)}
}

// rtsKinds are the match's behaviours, in the order rtsHost loads them.
var rtsKinds = []string{"worker", "soldier", "tower", "commander"}

// rtsHost is a host of no units with w's functions and the match's
// behaviours loaded, by kind.
func rtsHost(b testing.TB, w *rtsWorld) (*host.Host, map[string]*host.Behaviour) {
	b.Helper()
	h, err := host.New(host.Options{Roots: []string{"testdata/rts"}, Funcs: map[string]map[string]any{"world": w.funcs()}})
	if err != nil {
		b.Fatal(err)
	}
	kinds := map[string]*host.Behaviour{}
	for _, k := range rtsKinds {
		kinds[k], err = h.LoadFile("testdata/rts/" + k + ".lua")
		if err != nil {
			h.Close()
			b.Fatal(err)
		}
	}
	return h, kinds
}

// recordRTSFloor records the Lua calls of one tick (tick) and returns
// their replay: bare, on the same contexts, each call told its agent (the
// typed functions' *Agent) through host.FloorRunner.
func recordRTSFloor(b *testing.B, h *host.Host, w *rtsWorld, tick int) (replay func(), calls int) {
	vm := host.VM(h)
	var recorded []recordedCall
	vm.RecordCalls(func(fn *lua.LFunction, args []lua.LValue) {
		recorded = append(recorded, recordedCall{fn, args})
	})
	w.step(tick)
	gmust(b, h.Tick(0.05))
	vm.RecordCalls(nil)
	bare := &bareRunner{rng: rand.New(rand.NewPCG(1, 2))}
	byCtx := map[*lua.LTable]defs.Runner{}
	for _, a := range h.Agents() {
		byCtx[host.ContextTable(a)] = host.FloorRunner(bare, a)
	}
	runners := make([]defs.Runner, len(recorded))
	for i, c := range recorded {
		runners[i] = bare
		if len(c.args) > 0 {
			if t, ok := c.args[0].(*lua.LTable); ok && byCtx[t] != nil {
				runners[i] = byCtx[t]
			}
		}
	}
	L := vm.L
	return func() {
		old := vm.Runner()
		defer vm.SetRunner(old)
		for i, c := range recorded {
			vm.SetRunner(runners[i])
			L.Push(c.fn)
			for _, a := range c.args {
				L.Push(a)
			}
			if err := L.PCall(len(c.args), lua.MultRet, nil); err != nil {
				b.Fatal(err)
			}
			L.SetTop(0)
		}
	}, len(recorded)
}

// The RTS match the benchmark ticks plays as meant: commanders order
// their squads, soldiers obey only their own commander and fight, towers
// shoot, workers change jobs, and no callback fails.
func TestRTSMatch(t *testing.T) {
	h, w := newRTS(t, 500)
	defer h.Close()
	for tick := range 60 {
		w.step(tick + 1)
		if err := h.Tick(0.05); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]float64{}
	states := map[string]bool{}
	for _, a := range h.Agents() {
		if errs := a.TakeErrors(); len(errs) > 0 {
			t.Fatalf("agent %d: %v", a.ID(), errs[0])
		}
		for _, k := range []string{"sent", "orders", "shots"} {
			n, _ := a.Number(k)
			got[k] += n
		}
		if strings.HasSuffix(a.Behaviour().Name(), "worker.lua") {
			s, _ := a.State()
			states[s] = true
		}
	}
	// 40 commanders order 5 soldiers each, about 3 times in 3 seconds.
	// The last round's orders are read at the next tick.
	if got["sent"] < 400 || got["orders"] < got["sent"]-8*5*5 || got["shots"] == 0 || len(states) < 2 {
		t.Fatalf("sent %v, obeyed %v, shots %v, worker states %v", got["sent"], got["orders"], got["shots"], states)
	}
	if sumOf(w.damage) == 0 || sumOf(w.moves) == 0 {
		t.Fatal("no unit fired or moved")
	}
}

func sumOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// rtsSizes are the match sizes BenchmarkRTS ticks in turn.
var rtsSizes = []int{5000, 20000, 50000}

// rtsWarmup is the ticks a match plays before BenchmarkRTS times it: a
// second, in which every commander orders its squad, so the timed ticks
// see the match's steady state (every soldier's inbox already grown). It
// is also the match's period: commanders order once a second, so the Lua
// a tick runs depends on its place in the second. Each timed tick's floor
// is the recorded calls of the warm-up tick at the same place (tick mod
// rtsWarmup), so engine and floor run the same Lua.
const rtsWarmup = 20

// timedPhase tells whether a warm-up tick has the place in the second of
// one of the n timed ticks (rtsWarmup+2 on).
func timedPhase(tick, n int) bool {
	for i := range min(n, rtsWarmup) {
		if (i+rtsWarmup+2)%rtsWarmup == tick%rtsWarmup {
			return true
		}
	}
	return false
}

// BenchmarkRTS ticks matches of 5k, 20k and 50k units in turn, each tick
// beside its floor, and reports for each size the engine's ns/unit-tick,
// the floor's, their ratio (the median of the per-tick ratios), the
// engine's allocations per unit-tick and those beyond the floor's (the
// Lua work's own: numbers boxed by typed functions, tables); and the growth from 5k to 50k of
// the ns/unit-tick of the engine and of the floor, and their ratio.
func BenchmarkRTS(b *testing.B) {
	type match struct {
		h      *host.Host
		w      *rtsWorld
		floors map[int]func() // by tick mod rtsWarmup
		engine time.Duration
		bare   time.Duration
		allocs uint64 // the engine's
		fAlloc uint64 // the floor's
		ratios []float64
		last   [2]time.Duration // this round's engine and floor
		best   [2]time.Duration // the fastest engine tick and floor replay
	}
	var ms []*match
	for _, n := range rtsSizes {
		h, w := newRTS(b, n)
		defer h.Close()
		w.step(1)
		gmust(b, h.Tick(0.05))
		floors := map[int]func(){}
		for tick := 2; tick <= rtsWarmup+1; tick++ {
			if timedPhase(tick, b.N) {
				floors[tick%rtsWarmup], _ = recordRTSFloor(b, h, w, tick)
				continue
			}
			w.step(tick)
			gmust(b, h.Tick(0.05))
		}
		ms = append(ms, &match{h: h, w: w, floors: floors})
	}
	var growth, floorGrowth, growthRatio []float64
	var before, after runtime.MemStats
	b.ResetTimer()
	for i := range b.N {
		tick := i + rtsWarmup + 2
		for _, m := range ms {
			m.w.step(tick)
			runtime.ReadMemStats(&before)
			t0 := time.Now()
			gmust(b, m.h.Tick(0.05))
			e := time.Since(t0)
			runtime.ReadMemStats(&after)
			m.allocs += after.Mallocs - before.Mallocs
			runtime.ReadMemStats(&before)
			t1 := time.Now()
			m.floors[tick%rtsWarmup]()
			f := time.Since(t1)
			runtime.ReadMemStats(&after)
			m.fAlloc += after.Mallocs - before.Mallocs
			m.engine, m.bare = m.engine+e, m.bare+f
			m.ratios = append(m.ratios, float64(e)/float64(f))
			m.last = [2]time.Duration{e, f}
			if i == 0 || e < m.best[0] {
				m.best[0] = e
			}
			if i == 0 || f < m.best[1] {
				m.best[1] = f
			}
		}
		small, large := ms[0], ms[len(ms)-1]
		per := func(d time.Duration, m *match) float64 { return float64(d) / float64(m.h.Len()) }
		g := per(large.last[0], large) / per(small.last[0], small)
		fg := per(large.last[1], large) / per(small.last[1], small)
		growth, floorGrowth, growthRatio = append(growth, g), append(floorGrowth, fg), append(growthRatio, g/fg)
	}
	b.StopTimer()
	for _, m := range ms {
		n := float64(b.N) * float64(m.h.Len())
		k := fmt.Sprintf("%dk", m.h.Len()/1000)
		b.ReportMetric(float64(m.engine.Nanoseconds())/n, "ns/unit-tick-"+k)
		b.ReportMetric(float64(m.bare.Nanoseconds())/n, "floor-ns/unit-tick-"+k)
		b.ReportMetric(median(m.ratios), "engine/floor-"+k)
		// On a shared machine the fastest of each is the least disturbed.
		b.ReportMetric(float64(m.best[0])/float64(m.best[1]), "best-engine/best-floor-"+k)
		b.ReportMetric(float64(m.allocs)/n, "allocs/unit-tick-"+k)
		b.ReportMetric((float64(m.allocs)-float64(m.fAlloc))/n, "engine-allocs/unit-tick-"+k)
	}
	b.ReportMetric(median(growth), "growth-50k/5k")
	b.ReportMetric(median(floorGrowth), "floor-growth-50k/5k")
	b.ReportMetric(median(growthRatio), "growth/floor-growth")
	small, large := ms[0], ms[len(ms)-1]
	bg := (float64(large.best[0]) / float64(large.h.Len())) / (float64(small.best[0]) / float64(small.h.Len()))
	bfg := (float64(large.best[1]) / float64(large.h.Len())) / (float64(small.best[1]) / float64(small.h.Len()))
	b.ReportMetric(bg/bfg, "best-growth/best-floor-growth")
}
