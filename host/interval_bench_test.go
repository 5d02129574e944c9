//go:build linux

package host_test

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
)

// lodSource is a cheap behaviour: an fsm whose states have a short update,
// changing state rarely. (A transition costs several updates, and comes
// after the same game time whatever the interval: a behaviour that changes
// state often saves less than 1/k of its cost.)
const lodSource = `local ai = require("luaai")
return ai.fsm {
  initial = "walk",
  context = { x = 0, t = 0 },
  states = {
    walk = {
      update = function(ctx, dt) ctx.x = ctx.x + dt; ctx.t = ctx.t + dt end,
      transitions = { { to = "look", when = function(ctx) return ctx.t > 30 end } },
    },
    look = {
      enter = function(ctx) ctx.t = 0 end,
      transitions = { { to = "walk", after = 1 } },
    },
  },
}`

// BenchmarkIntervals: 50,000 agents ticked every frame, against the same
// agents with 80% of them (ids not divisible by 5) ticked every 4th frame,
// frames of both kinds alternating in one run on one host (one worker).
// It reports the median CPU time of a frame of each, their ratio (about
// 0.2 + 0.8/4 = 0.4 expected), max/median of each kind's frames (flat: the
// agents with interval 4 are spread evenly over the frames by id), and the
// ratio of the wall-time medians.
//
// A frame's time on a shared machine moves with the machine (the same
// frame of the same agents has been seen to take 16 ms, then 33 ms), so a
// single slow frame says little about the engine. What the engine owes is
// the work each frame is given: a frame's phase (its tick number mod 4)
// decides which agents of interval 4 tick on it, so the engine's frames are
// flat when every phase costs the same. It reports, for each kind, the
// highest of the four phases' median frame times over the median of all
// frames (phase-max/median): one phase given more agents than the others
// shows up there in every run, while a slow moment of the machine lands on
// one frame, not on one phase.
func BenchmarkIntervals(b *testing.B) {
	for _, agents := range []int{5_000, 50_000} {
		b.Run(fmt.Sprintf("agents=%d", agents), func(b *testing.B) { benchIntervals(b, agents) })
	}
}

func benchIntervals(b *testing.B, agents int) {
	const frames = 8 // frames of each kind per iteration
	h, all := lodAgents(b, agents)
	defer h.Close()
	setTiers := func(k int) {
		for _, a := range all {
			if a.ID()%5 != 0 {
				if err := a.SetInterval(k); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	// Each frame's CPU time on the game loop's thread (the one worker
	// ticks on the goroutine that calls Tick), which a busy machine's other
	// processes do not inflate as they do wall time; the process's CPU
	// time (the collector's background work included); its wall time.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	timed := func(f *frameTimes) {
		for range frames {
			f.phase = append(f.phase, h.TickNumber()%4)
			c0, p0, t0 := rusageThread(b), processCPU(b), time.Now()
			if err := h.Tick(0.05); err != nil {
				b.Fatal(err)
			}
			f.wall = append(f.wall, float64(time.Since(t0)))
			f.proc = append(f.proc, float64(processCPU(b)-p0))
			f.loop = append(f.loop, float64(rusageThread(b)-c0))
		}
	}
	for range 4 { // warm up: every agent ticked, contexts grown
		if err := h.Tick(0.05); err != nil {
			b.Fatal(err)
		}
	}
	var flat, tiered frameTimes
	b.ResetTimer()
	for range b.N {
		setTiers(1)
		timed(&flat)
		setTiers(4)
		timed(&tiered)
	}
	b.StopTimer()
	maxFlat, maxTiered := slices.Max(flat.loop), slices.Max(tiered.loop)
	mFlat, mTiered := median(flat.loop), median(tiered.loop)
	b.ReportMetric(mFlat/1e6, "loop-ms/frame-all-1")
	b.ReportMetric(mTiered/1e6, "loop-ms/frame-tiered")
	b.ReportMetric(mTiered/mFlat, "tiered/all-1")
	b.ReportMetric(maxTiered/mTiered, "tiered-max/median")
	b.ReportMetric(maxFlat/mFlat, "all-1-max/median")
	b.ReportMetric(tiered.phaseMax()/mTiered, "tiered-phase-max/median")
	b.ReportMetric(flat.phaseMax()/mFlat, "all-1-phase-max/median")
	b.ReportMetric(median(tiered.proc)/median(flat.proc), "process-cpu-tiered/all-1")
	b.ReportMetric(median(tiered.wall)/median(flat.wall), "wall-tiered/all-1")
}

// frameTimes are the times of a benchmark's frames, in nanoseconds, and
// each frame's phase (the host's tick number mod 4 as it began).
type frameTimes struct {
	loop, proc, wall []float64
	phase            []int
}

// phaseMax is the highest, over the phases, of the median loop time of the
// frames of that phase.
func (f *frameTimes) phaseMax() float64 {
	var by [4][]float64
	for i, p := range f.phase {
		by[p] = append(by[p], f.loop[i])
	}
	hi := 0.0
	for _, xs := range by {
		if len(xs) > 0 {
			hi = max(hi, median(xs))
		}
	}
	return hi
}

// BenchmarkIntervalLocality: what a frame's cost owes to where its agents
// lie in memory. 50,000 agents; frames that tick all of them, against
// frames that tick 40% of them (the rest at an interval no run reaches):
// ids 1 to 20,000 (contiguous: spawned, so allocated, one after another)
// or the ids whose remainder by 5 is 0 or 1 (spread over all of them).
// Both tick as many agents; it reports each one's median loop CPU time
// per frame against the frames of all.
func BenchmarkIntervalLocality(b *testing.B) {
	const agents, frames = 50_000, 8
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	beh, err := h.LoadString("lod.lua", lodSource)
	if err != nil {
		b.Fatal(err)
	}
	var all []*host.Agent
	for range agents {
		a, err := h.Spawn(beh, nil)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, a)
	}
	const never = 1 << 30
	shapes := []struct {
		name string
		k    func(id int) int
	}{
		{"all", func(int) int { return 1 }},
		{"contiguous-40%", func(id int) int { return map[bool]int{true: 1, false: never}[id <= 2*agents/5] }},
		{"spread-40%", func(id int) int { return map[bool]int{true: 1, false: never}[id%5 < 2] }},
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	loop := make([][]float64, len(shapes))
	for range b.N {
		for i, s := range shapes {
			for _, a := range all {
				if err := a.SetInterval(s.k(a.ID())); err != nil {
					b.Fatal(err)
				}
			}
			gmust(b, h.Tick(0.05)) // the owed time of those skipped is handed over
			for range frames {
				c0 := rusageThread(b)
				gmust(b, h.Tick(0.05))
				loop[i] = append(loop[i], float64(rusageThread(b)-c0))
			}
		}
	}
	for i, s := range shapes[1:] {
		b.ReportMetric(median(loop[i+1])/median(loop[0]), s.name+"/all")
	}
}

// lodAgents is a host of one worker ticking n agents of lodSource.
func lodAgents(b *testing.B, n int) (*host.Host, []*host.Agent) {
	h, err := host.New(host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	beh, err := h.LoadString("lod.lua", lodSource)
	if err != nil {
		h.Close()
		b.Fatal(err)
	}
	all := make([]*host.Agent, 0, n)
	for range n {
		a, err := h.Spawn(beh, nil)
		if err != nil {
			h.Close()
			b.Fatal(err)
		}
		all = append(all, a)
	}
	return h, all
}

// BenchmarkIntervalSkip: what an agent that a frame skips costs, against
// one it ticks. 50,000 agents; frames that tick all of them, against
// frames where none is due (all at an interval no run reaches: each one is
// checked, and owed the frame's time). It reports the median loop CPU time
// per agent of each kind of frame, and their ratio.
func BenchmarkIntervalSkip(b *testing.B) {
	const agents, frames = 50_000, 8
	h, all := lodAgents(b, agents)
	defer h.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var ticked, skipped []float64
	for range b.N {
		for _, k := range []int{1, 1 << 30} {
			for _, a := range all {
				gmust(b, a.SetInterval(k))
			}
			gmust(b, h.Tick(0.05)) // the owed time of those skipped is handed over
			for range frames {
				c0 := rusageThread(b)
				gmust(b, h.Tick(0.05))
				per := float64(rusageThread(b)-c0) / agents
				if k == 1 {
					ticked = append(ticked, per)
				} else {
					skipped = append(skipped, per)
				}
			}
		}
	}
	b.ReportMetric(median(ticked), "ns/ticked-agent")
	b.ReportMetric(median(skipped), "ns/skipped-agent")
	b.ReportMetric(median(skipped)/median(ticked), "skipped/ticked")
}
