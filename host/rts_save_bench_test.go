package host_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/luaai/luaai/host"
)

// BenchmarkRTSSave is the saves of the RTS match server BenchmarkRTS
// ticks: 50,000 units of four kinds in their steady state (a second
// played), with typed functions, synced bodies and orders in flight. Per
// iteration it measures, each after a collection, one tick of the match
// (the game's step included, as in a frame), a blocking binary save of
// it, the game loop's part of an asynchronous binary save, and a load of
// the save into a host of no units with the same behaviours and functions
// (each unit's body synced again as it is restored, as a game attaches
// its structs). It reports the medians of each one's process CPU time
// over the same iteration's tick's, the bytes of the save, and the
// per-unit CPU times.
//
//	go test ./host -run '^$' -bench RTSSave -benchtime 5x -count 3
func BenchmarkRTSSave(b *testing.B) {
	const units = 50_000
	h, w := newRTS(b, units)
	defer h.Close()
	for tick := 2; tick <= rtsWarmup+1; tick++ {
		w.step(tick)
		gmust(b, h.Tick(0.05))
	}
	opts := host.SaveOptions{Format: host.SnapshotBinary}
	var save, async, load, tickNs, loadNs []float64
	var size int
	b.ResetTimer()
	for i := range b.N {
		tick := measure(b, func() {
			w.step(rtsWarmup + 2 + i)
			gmust(b, h.Tick(0.05))
		})
		var buf, abuf bytes.Buffer
		blocking := measure(b, func() { gmust(b, h.WriteSnapshotWith(&buf, opts)) })
		var job *host.SaveJob
		loop := measure(b, func() {
			var err error
			job, err = h.SnapshotAsyncWith(&abuf, opts)
			gmust(b, err)
		})
		gmust(b, job.Wait())
		if !bytes.Equal(buf.Bytes(), abuf.Bytes()) {
			b.Fatal("the async save differs from the blocking one")
		}
		size = buf.Len()
		restored := loadRTS(b, &buf, units)
		save = append(save, float64(blocking.cpu)/float64(tick.cpu))
		async = append(async, float64(loop.cpu)/float64(tick.cpu))
		load = append(load, float64(restored.cpu)/float64(tick.cpu))
		tickNs = append(tickNs, float64(tick.cpu.Nanoseconds())/units)
		loadNs = append(loadNs, float64(restored.cpu.Nanoseconds())/units)
	}
	b.StopTimer()
	b.ReportMetric(median(save), "cpu-bin-save/tick")
	b.ReportMetric(median(async), "cpu-bin-async/tick")
	b.ReportMetric(median(load), "cpu-bin-load/tick")
	b.ReportMetric(median(tickNs), "cpu-tick-ns/unit")
	b.ReportMetric(median(loadNs), "cpu-load-ns/unit")
	b.ReportMetric(float64(size), "bin-bytes")
}

// loadRTS restores the match saved in buf into a host of no units (the
// world's bodies made anew, each unit's synced again by Attach) and
// returns what the restore cost; it checks that every unit came back.
func loadRTS(b *testing.B, buf *bytes.Buffer, units int) cost {
	b.StopTimer()
	w := newRTSWorld(units)
	h, kinds := rtsHost(b, w)
	defer h.Close()
	behs := make([]*host.Behaviour, 0, len(kinds))
	for _, k := range rtsKinds {
		behs = append(behs, kinds[k])
	}
	attach := host.RestoreOptions{Attach: func(a *host.Agent, synced []string) error {
		for _, key := range synced {
			if key != "body" {
				return fmt.Errorf("unit %d: unknown synced key %q", a.ID(), key)
			}
			if err := a.Sync("body", &w.bodies[a.ID()-1]); err != nil {
				return err
			}
		}
		return nil
	}}
	b.StartTimer()
	var got []*host.Agent
	c := measure(b, func() {
		var err error
		got, err = h.RestoreFrom(buf, attach, behs...)
		gmust(b, err)
	})
	if len(got) != units {
		b.Fatalf("restored %d units of %d", len(got), units)
	}
	return c
}
