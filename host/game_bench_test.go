package host_test

// A game as a studio builds one on host, for the benchmark that measures
// where a real game's frame goes: soldiers (an fsm with a stack, a Synced
// body, messages), villagers (utility with native and Lua scorers, a
// Bound job read by a native scorer), scouts (regions holding a behaviour
// tree and an fsm), a Go module, events from Go, 60 ticks a second.
//
// Beside each kind its floor: the same Lua calls the engine made in one
// tick, recorded (defs.VM.RecordCalls) and replayed bare with PCall on
// the same contexts. engine/floor is what the engine adds to the Lua work.
//
//	go test ./host -run '^$' -bench 'Game$' -benchtime 100x

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

type soldierBody struct {
	X         float64 `lua:"x"`
	HP        float64 `lua:"hp"`
	EnemyDist float64 `lua:"enemy_dist,readonly"`
}

type villagerJob struct {
	Skill float64 `luar:"skill"`
}

// gameKinds are the kinds of agent and how many of each a game has.
var gameKinds = []struct {
	name   string
	script string
	count  int
}{
	{"soldiers", "testdata/game/soldier.lua", 2000},
	{"villagers", "testdata/game/villager.lua", 2000},
	{"scouts", "testdata/game/scout.lua", 1000},
}

// newGame makes a host with count agents of each named kind (all kinds
// when only is empty), ticked once. The Go side keeps the bodies and jobs.
func newGame(b *testing.B, only string, workers int, scale float64) (*host.Host, func(tick int)) {
	b.Helper()
	spot := 0
	h, err := host.New(host.Options{
		Workers: workers,
		Roots:   []string{"testdata/game"},
		Funcs: map[string]map[string]any{"game": {
			"look": func(x, dt float64) float64 { return math.Abs(x) * dt },
			"spot": func(x float64) float64 {
				spot++
				if spot%7 == 0 {
					return 1
				}
				return 0
			},
		}},
	})
	if err != nil {
		b.Fatal(err)
	}
	var bodies []*soldierBody
	var soldiers []*host.Agent
	for _, k := range gameKinds {
		if only != "" && k.name != only {
			continue
		}
		beh, err := h.LoadFile(k.script)
		if err != nil {
			b.Fatal(err)
		}
		for i := range max(1, int(float64(k.count)*scale)) {
			a, err := h.Spawn(beh, nil)
			if err != nil {
				b.Fatal(err)
			}
			switch k.name {
			case "soldiers":
				body := &soldierBody{X: float64(i%100 - 50), HP: 100, EnemyDist: 100}
				gmust(b, a.Sync("body", body))
				bodies, soldiers = append(bodies, body), append(soldiers, a)
			case "villagers":
				gmust(b, a.Bind("job", &villagerJob{Skill: float64(i%10) / 10}))
			}
		}
	}
	for i, a := range soldiers {
		if i+1 < len(soldiers) {
			gmust(b, a.Set("neighbour", soldiers[i+1].ID()))
		}
	}
	// The game's side of a tick: enemies come and go near some soldiers,
	// and an alarm reaches one soldier in a hundred every 30 ticks.
	world := func(tick int) {
		for i, body := range bodies {
			if (i+tick)%50 == 0 {
				body.EnemyDist = 3
			} else if (i+tick)%50 == 10 {
				body.EnemyDist = 100
			}
		}
		if tick%30 == 0 {
			for i := tick / 30 % 100; i < len(soldiers); i += 100 {
				gmust(b, soldiers[i].Send("alarm", nil))
			}
		}
	}
	world(0)
	gmust(b, h.Tick(1.0/60))
	return h, world
}

func gmust(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// recordedCall is one call the engine made.
type recordedCall struct {
	fn   *lua.LFunction
	args []lua.LValue
}

// BenchmarkGame reports, for each kind alone and for the whole game, the
// engine's ns/agent-tick, the floor's, their ratio and the engine's
// allocations per agent-tick, from ticks of the engine and replays of the
// floor taken in turn.
func BenchmarkGame(b *testing.B) {
	for _, kind := range append([]string{"soldiers", "villagers", "scouts"}, "") {
		name := kind
		if name == "" {
			name = "game"
		}
		b.Run(name, func(b *testing.B) {
			h, world := newGame(b, kind, 1, 1)
			defer h.Close()
			agents := h.Len()
			tick := 1
			replay, calls := recordFloor(b, h, world, tick)
			var engine, floor time.Duration
			var before, after runtime.MemStats
			var allocs uint64
			ratios := make([]float64, 0, b.N)
			b.ResetTimer()
			for range b.N {
				tick++
				world(tick)
				runtime.ReadMemStats(&before)
				t0 := time.Now()
				gmust(b, h.Tick(1.0/60))
				e := time.Since(t0)
				runtime.ReadMemStats(&after)
				allocs += after.Mallocs - before.Mallocs
				t1 := time.Now()
				replay()
				f := time.Since(t1)
				engine, floor = engine+e, floor+f
				ratios = append(ratios, float64(e)/float64(f))
			}
			perTick := func(d time.Duration) float64 {
				return float64(d.Nanoseconds()) / float64(b.N) / float64(agents)
			}
			b.ReportMetric(perTick(engine), "ns/agent-tick")
			b.ReportMetric(perTick(floor), "floor-ns/agent-tick")
			// The median of the per-tick ratios: a tick the machine slowed
			// for other reasons moves it little.
			b.ReportMetric(median(ratios), "engine/floor")
			b.ReportMetric(float64(allocs)/float64(b.N)/float64(agents), "allocs/agent-tick")
			b.ReportMetric(float64(len(calls))/float64(agents), "lua-calls/agent-tick")
		})
	}
}

// recordFloor records the Lua calls of one tick of the game (tick) and
// returns the floor: a replay of those calls, bare, on the same contexts.
func recordFloor(b *testing.B, h *host.Host, world func(int), tick int) (replay func(), calls []recordedCall) {
	vm := host.VM(h)
	vm.RecordCalls(func(fn *lua.LFunction, args []lua.LValue) {
		calls = append(calls, recordedCall{fn, args})
	})
	world(tick)
	gmust(b, h.Tick(1.0/60))
	vm.RecordCalls(nil)
	L := vm.L
	floorRunner := &bareRunner{rng: rand.New(rand.NewPCG(1, 2))}
	return func() {
		old := vm.SetRunner(floorRunner)
		defer vm.SetRunner(old)
		for _, c := range calls {
			L.Push(c.fn)
			for _, a := range c.args {
				L.Push(a)
			}
			if err := L.PCall(len(c.args), lua.MultRet, nil); err != nil {
				b.Fatal(err)
			}
			L.SetTop(0)
		}
	}, calls
}

// bareRunner is what the floor's replay gives the ai.* functions that act
// on the running agent: the least a hand-written game loop would do (queue
// a message, answer a time), so the floor pays for the Lua work only.
type bareRunner struct {
	rng  *rand.Rand
	sent int
}

func (r *bareRunner) Request(defs.TransitionKind, string, lua.LValue) error { return nil }
func (r *bareRunner) Send(string, lua.LValue) error                         { r.sent++; return nil }
func (r *bareRunner) ID() int                                               { return 1 }
func (r *bareRunner) SendTo(int, string, any) (bool, error)                 { r.sent++; return true, nil }
func (r *bareRunner) State() (string, bool)                                 { return "", true }
func (r *bareRunner) Active(string) bool                                    { return true }
func (r *bareRunner) Time() float64                                         { return 0 }
func (r *bareRunner) Rand() *rand.Rand                                      { return r.rng }
func (r *bareRunner) Log(string)                                            {}

// tickTimed ticks h once after the world's turn and returns how long the
// tick took.
func tickTimed(b *testing.B, h *host.Host, world func(int), tick int) time.Duration {
	world(tick)
	t0 := time.Now()
	gmust(b, h.Tick(1.0/60))
	return time.Since(t0)
}

// BenchmarkGameScale ticks the game at 1,000 and at 100,000 agents (its
// mix of kinds) in turn and reports each one's ns/agent-tick and their
// ratio: what a hundred times more agents cost each agent.
func BenchmarkGameScale(b *testing.B) {
	small, worldS := newGame(b, "", 1, 1000.0/5000)
	defer small.Close()
	large, worldL := newGame(b, "", 1, 100000.0/5000)
	defer large.Close()
	// The floor at each size: the same Lua calls, bare, on the same
	// contexts — how much of the growth is the Lua work's own.
	floorS, _ := recordFloor(b, small, worldS, 1)
	floorL, _ := recordFloor(b, large, worldL, 1)
	timed := func(fn func()) time.Duration {
		t0 := time.Now()
		fn()
		return time.Since(t0)
	}
	var ts, tl time.Duration
	ratios := make([]float64, 0, b.N)
	floorRatios := make([]float64, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		// The small game ticks as many times as it takes to measure as
		// much time as one large tick.
		var s, fs time.Duration
		for j := range 100 {
			s += tickTimed(b, small, worldS, i*100+j+2)
			fs += timed(floorS)
		}
		l := tickTimed(b, large, worldL, i+2)
		fl := timed(floorL)
		ts, tl = ts+s, tl+l
		perAgent := func(big, little time.Duration) float64 {
			return (float64(big) / float64(large.Len())) / (float64(little) / 100 / float64(small.Len()))
		}
		ratios = append(ratios, perAgent(l, s))
		floorRatios = append(floorRatios, perAgent(fl, fs))
	}
	perSmall := float64(ts.Nanoseconds()) / float64(b.N*100) / float64(small.Len())
	perLarge := float64(tl.Nanoseconds()) / float64(b.N) / float64(large.Len())
	b.ReportMetric(perSmall, "ns/agent-tick-1k")
	b.ReportMetric(perLarge, "ns/agent-tick-100k")
	b.ReportMetric(median(ratios), "100k/1k")
	b.ReportMetric(median(floorRatios), "floor-100k/1k")
}

// BenchmarkGameWorkers ticks the game with one worker and with two in
// turn, and a CPU-bound Go loop on one goroutine and on two, and reports
// each speed-up and the game's as a share of the loop's.
func BenchmarkGameWorkers(b *testing.B) {
	one, world1 := newGame(b, "", 1, 1)
	defer one.Close()
	two, world2 := newGame(b, "", 2, 1)
	defer two.Close()
	loop := func(g int) time.Duration {
		t0 := time.Now()
		done := make(chan uint64, g)
		for k := range g {
			go func() {
				x := uint64(k + 1)
				for range 2_000_000 / g {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
				done <- x
			}()
		}
		for range g {
			<-done
		}
		return time.Since(t0)
	}
	var games, loops, shares []float64
	b.ResetTimer()
	for i := range b.N {
		t1 := tickTimed(b, one, world1, i+1)
		t2 := tickTimed(b, two, world2, i+1)
		l1, l2 := loop(1), loop(2)
		g, c := float64(t1)/float64(t2), float64(l1)/float64(l2)
		games, loops, shares = append(games, g), append(loops, c), append(shares, g/c)
	}
	b.ReportMetric(median(games), "game-speedup")
	b.ReportMetric(median(loops), "loop-speedup")
	b.ReportMetric(median(shares), "game/loop")
}

// median is the middle value of xs (which it sorts).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
