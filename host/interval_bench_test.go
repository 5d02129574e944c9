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

// BenchmarkIntervals: frames of 5,000 and 50,000 agents on three hosts
// of one worker each, spawned alike, ticked in turn, one frame each: on
// the first every agent ticks every frame (all-1); on the second 80% of
// them (ids not divisible by 5) tick every 4th frame (tiered); on the
// third (floor) only the agents a tiered frame ticks on its first phase
// are left (the ids divisible by 5 or by 4; the others are removed after
// the spawn), ticked every frame: the same ticks of the same agents,
// spread over memory the same way, with no agent skipped and nothing
// owed. It reports the median CPU time of each kind of frame, and
// the median over the rounds of a round's ratios (a round's three frames
// run within tens of milliseconds, so a change in the machine's speed
// lands on all three): tiered/all-1 (0.2 + 0.8/4 = 0.4 if an agent's tick
// cost the same whichever agents tick around it), floor/all-1 (what
// ticking those agents costs at all, where they lie) and tiered/floor
// (what the tick rates add to it: the pass over the agents not due, the
// owed time, the transitions that come after fewer ticks); then max/median of each kind's frames, the highest of
// the four phases' medians over the median (flat: the agents with
// interval 4 are spread evenly over the frames by id), and the ratios of
// the process's CPU time and of wall time.
//
// A frame's time on a shared machine moves with the machine (the same
// frame of the same agents has been seen to take 16 ms, then 33 ms), so a
// single slow frame says little about the engine, and medians of frames
// taken seconds apart say less than the ratio within one round. What the
// engine owes is the work each frame is given: a frame's phase (its tick
// number mod 4) decides which agents of interval 4 tick on it, so the
// engine's frames are flat when every phase costs the same.
//
//	go test ./host -run '^$' -bench 'BenchmarkIntervals$' -benchtime 40x
func BenchmarkIntervals(b *testing.B) {
	for _, agents := range []int{5_000, 50_000} {
		b.Run(fmt.Sprintf("agents=%d", agents), func(b *testing.B) { benchIntervals(b, agents) })
	}
}

func benchIntervals(b *testing.B, agents int) {
	kinds := []struct {
		name string
		k    func(id int) int
	}{
		{"all-1", func(int) int { return 1 }},
		{"tiered", func(id int) int { return map[bool]int{true: 1, false: 4}[id%5 == 0] }},
		{"floor", func(id int) int { return map[bool]int{true: 1, false: 0}[id%5 == 0 || id%4 == 0] }},
	}
	hosts := shapedHosts(b, agents, kinds[0].k, kinds[1].k, kinds[2].k)
	defer closeHosts(hosts)
	// Each frame's CPU time on the game loop's thread (the one worker
	// ticks on the goroutine that calls Tick), which a busy machine's other
	// processes do not inflate as they do wall time; the process's CPU
	// time (the collector's background work included); its wall time.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	times := make([]frameTimes, len(kinds))
	var tieredAll, floorAll, tieredFloor []float64
	frame := func(i int) (loop float64) {
		h, f := hosts[i], &times[i]
		f.phase = append(f.phase, h.TickNumber()%4)
		c0, p0, t0 := rusageThread(b), processCPU(b), time.Now()
		gmust(b, h.Tick(0.05))
		f.wall = append(f.wall, float64(time.Since(t0)))
		f.proc = append(f.proc, float64(processCPU(b)-p0))
		loop = float64(rusageThread(b) - c0)
		f.loop = append(f.loop, loop)
		return loop
	}
	for range 8 { // warm up: every agent ticked, contexts grown
		for _, h := range hosts {
			gmust(b, h.Tick(0.05))
		}
	}
	b.ResetTimer()
	for range b.N {
		all, tiered, floor := frame(0), frame(1), frame(2)
		tieredAll = append(tieredAll, tiered/all)
		floorAll = append(floorAll, floor/all)
		tieredFloor = append(tieredFloor, tiered/floor)
	}
	b.StopTimer()
	flat, tiered := &times[0], &times[1]
	mFlat, mTiered := median(flat.loop), median(tiered.loop)
	b.ReportMetric(mFlat/1e6, "loop-ms/frame-all-1")
	b.ReportMetric(mTiered/1e6, "loop-ms/frame-tiered")
	b.ReportMetric(median(tieredAll), "tiered/all-1")
	b.ReportMetric(median(floorAll), "floor/all-1")
	b.ReportMetric(median(tieredFloor), "tiered/floor")
	b.ReportMetric(slices.Max(tiered.loop)/mTiered, "tiered-max/median")
	b.ReportMetric(slices.Max(flat.loop)/mFlat, "all-1-max/median")
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
// lie in memory. Three hosts of 50,000 agents spawned alike, ticked in
// turn, one frame each: one ticks all of them; the others keep 40% of
// them (the rest removed after the spawn, their memory left where it
// was) and tick those every frame: ids 1 to 20,000 (contiguous: spawned,
// so allocated, one after another) or the ids whose remainder by 5 is 0
// or 1 (spread over all of them). The three tick the same agents' worth
// of work with no agent skipped; it reports the median over the rounds
// of each one's loop CPU time over the frame of all in the same round.
//
//	go test ./host -run '^$' -bench IntervalLocality -benchtime 40x
func BenchmarkIntervalLocality(b *testing.B) {
	const agents = 50_000
	shapes := []struct {
		name string
		keep func(id int) int
	}{
		{"all", func(int) int { return 1 }},
		{"contiguous-40%", func(id int) int { return map[bool]int{true: 1}[id <= 2*agents/5] }},
		{"spread-40%", func(id int) int { return map[bool]int{true: 1}[id%5 < 2] }},
	}
	hosts := shapedHosts(b, agents, shapes[0].keep, shapes[1].keep, shapes[2].keep)
	defer closeHosts(hosts)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for range 4 {
		for _, h := range hosts {
			gmust(b, h.Tick(0.05))
		}
	}
	ratios := make([][]float64, len(shapes))
	loop := make([]float64, len(shapes))
	b.ResetTimer()
	for range b.N {
		for i, h := range hosts {
			c0 := rusageThread(b)
			gmust(b, h.Tick(0.05))
			loop[i] = float64(rusageThread(b) - c0)
		}
		for i := range shapes[1:] {
			ratios[i+1] = append(ratios[i+1], loop[i+1]/loop[0])
		}
	}
	for i, s := range shapes[1:] {
		b.ReportMetric(median(ratios[i+1]), s.name+"/all")
	}
}

// shapedHosts is a host of lodAgents for each shape (the caller closes
// them): the agent of each id gets the interval shape gives it, or is removed
// for 0 (its memory stays where it was).
func shapedHosts(b *testing.B, agents int, shapes ...func(id int) int) []*host.Host {
	hosts := make([]*host.Host, len(shapes))
	for i, shape := range shapes {
		h, all := lodAgents(b, agents)
		for _, a := range all {
			if k := shape(a.ID()); k > 0 {
				gmust(b, a.SetInterval(k))
			} else {
				gmust(b, h.Remove(a))
			}
		}
		hosts[i] = h
	}
	return hosts
}

func closeHosts(hosts []*host.Host) {
	for _, h := range hosts {
		h.Close()
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
