//go:build linux

package host_test

import (
	"runtime"
	"slices"
	"testing"
)

// BenchmarkRTSIntervals: tick rates on the RTS match BenchmarkRTS ticks,
// 50,000 units in their steady state. Seconds (rtsWarmup frames, every
// place of the match's period) where every unit ticks every frame
// alternate with seconds where 80% of them (ids not divisible by 5) tick
// every 4th frame, on one host (one worker, on the goroutine that calls
// Tick). It reports the loop CPU time of a second of each (the host's
// ticks only, not the game's step), their ratio (0.2 + 0.8/4 = 0.4
// expected), and max/median of each kind's frames (an RTS frame's work
// depends on its place in the second, tiered or not).
//
//	go test ./host -run '^$' -bench RTSIntervals -benchtime 4x -count 3
func BenchmarkRTSIntervals(b *testing.B) {
	const units = 50_000
	h, w := newRTS(b, units)
	defer h.Close()
	all := h.Agents()
	tick := 2
	frame := func() float64 {
		w.step(tick)
		tick++
		c0 := rusageThread(b)
		gmust(b, h.Tick(0.05))
		return float64(rusageThread(b) - c0)
	}
	for tick <= rtsWarmup+1 {
		frame()
	}
	setTiers := func(k int) {
		for _, a := range all {
			if a.ID()%5 != 0 {
				gmust(b, a.SetInterval(k))
			}
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var flat, tiered []float64
	var sumFlat, sumTiered float64
	b.ResetTimer()
	for range b.N {
		for _, k := range []int{1, 4} {
			setTiers(k)
			frame() // the frame where the change takes effect is not timed
			for range rtsWarmup {
				f := frame()
				if k == 1 {
					flat, sumFlat = append(flat, f), sumFlat+f
				} else {
					tiered, sumTiered = append(tiered, f), sumTiered+f
				}
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(sumFlat/float64(b.N)/1e6, "loop-ms/second-all-1")
	b.ReportMetric(sumTiered/float64(b.N)/1e6, "loop-ms/second-tiered")
	b.ReportMetric(sumTiered/sumFlat, "tiered/all-1")
	b.ReportMetric(slices.Max(tiered)/median(tiered), "tiered-max/median")
	b.ReportMetric(slices.Max(flat)/median(flat), "all-1-max/median")
}
