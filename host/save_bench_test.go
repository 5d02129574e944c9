package host_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
)

// BenchmarkSaveVsTick measures, in one run, a full tick of 50,000 guards
// and, in each format (JSON and binary), a blocking save of them
// (WriteSnapshotWith), the game loop's part of an asynchronous save
// (SnapshotAsyncWith until it returns) and a load (RestoreFrom into an
// empty host), beside spawning as many guards into an empty host (what a
// load cannot be cheaper than). It reports each as a ratio to the tick, in wall time and
// (cpu-) in the process's CPU time, which other programs on a busy
// machine do not inflate; each part starts after a collection, so that it
// pays for its own garbage only.
//
//	go test ./host -run XXX -bench SaveVsTick -benchtime 3x -count 3
func BenchmarkSaveVsTick(b *testing.B) {
	const agents = 50_000
	h := savedGuards(b, agents)
	defer h.Close()
	if err := h.Tick(0.016); err != nil {
		b.Fatal(err)
	}
	formats := []struct {
		name string
		opts host.SaveOptions
	}{{"json", host.SaveOptions{}}, {"bin", host.SaveOptions{Format: host.SnapshotBinary}}}
	var tick, spawn cost
	save, async, load := make([]cost, 2), make([]cost, 2), make([]cost, 2)
	size := make([]int, 2)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tick.add(measure(b, func() {
			if err := h.Tick(0.016); err != nil {
				b.Fatal(err)
			}
		}))
		spawn.add(spawnInto(b, agents))
		for f, format := range formats {
			var buf, abuf bytes.Buffer
			save[f].add(measure(b, func() {
				if err := h.WriteSnapshotWith(&buf, format.opts); err != nil {
					b.Fatal(err)
				}
			}))
			var job *host.SaveJob
			async[f].add(measure(b, func() {
				var err error
				if job, err = h.SnapshotAsyncWith(&abuf, format.opts); err != nil {
					b.Fatal(err)
				}
			}))
			if err := job.Wait(); err != nil {
				b.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), abuf.Bytes()) {
				b.Fatal("the async save differs from the blocking one")
			}
			size[f] = buf.Len()
			load[f].add(loadInto(b, &buf))
		}
	}
	b.ReportMetric(float64(tick.wall.Nanoseconds())/float64(b.N)/agents, "tick-ns/agent")
	spawn.report(b, "spawn", tick)
	for f, format := range formats {
		save[f].report(b, format.name+"-save", tick)
		async[f].report(b, format.name+"-async", tick)
		load[f].report(b, format.name+"-load", tick)
		b.ReportMetric(float64(size[f]), format.name+"-bytes")
	}
}

// savedGuards is a host of n guards on one worker, half of them having
// found the player (two states in use), as the save benchmarks save.
func savedGuards(b *testing.B, n int) *host.Host {
	h := newGuards(b, n, 1, false)
	for i, a := range h.Agents() {
		if i%2 == 0 {
			if err := a.Set("player", "found"); err != nil {
				b.Fatal(err)
			}
		}
	}
	return h
}

// cost is the wall and process CPU time of a part of a benchmark.
type cost struct{ wall, cpu time.Duration }

func (c *cost) add(d cost) { c.wall, c.cpu = c.wall+d.wall, c.cpu+d.cpu }

// report reports c as ratios to tick: name/tick and cpu-name/tick.
func (c cost) report(b *testing.B, name string, tick cost) {
	b.ReportMetric(float64(c.wall)/float64(tick.wall), name+"/tick")
	b.ReportMetric(float64(c.cpu)/float64(tick.cpu), "cpu-"+name+"/tick")
}

// measure runs fn after collecting the garbage of what ran before (timer
// stopped), and returns its wall and process CPU time.
func measure(b *testing.B, fn func()) cost {
	b.StopTimer()
	runtime.GC()
	b.StartTimer()
	w0, c0 := time.Now(), processCPU(b)
	fn()
	return cost{time.Since(w0), processCPU(b) - c0}
}

// emptyGuardHost is a host of one worker with the guard loaded and no
// agent.
func emptyGuardHost(b *testing.B) (*host.Host, *host.Behaviour) {
	h, err := host.New(host.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	beh, err := h.LoadString("guard.lua", guardSource(false))
	if err != nil {
		h.Close()
		b.Fatal(err)
	}
	return h, beh
}

// spawnInto spawns n guards into an empty host (the floor of a load,
// which makes the same agents) and returns what the spawns cost.
func spawnInto(b *testing.B, n int) cost {
	b.StopTimer()
	h2, beh := emptyGuardHost(b)
	defer h2.Close()
	b.StartTimer()
	return measure(b, func() {
		for range n {
			if _, err := h2.Spawn(beh, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// loadInto restores the save in buf into an empty host of guards and
// returns what the restore cost.
func loadInto(b *testing.B, buf *bytes.Buffer) cost {
	b.StopTimer()
	h2, beh := emptyGuardHost(b)
	defer h2.Close()
	b.StartTimer()
	return measure(b, func() {
		if _, err := h2.RestoreFrom(buf, host.RestoreOptions{}, beh); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkLoadReaders loads one snapshot of 50,000 guards in turn with
// the reader loads use for what Save writes and with encoding/json (the
// same document with its first key in other case, which only encoding/json
// takes), beside a tick of the same agents, and reports each per agent,
// each as a ratio to the tick, and encoding/json's time over the reader's.
//
//	go test ./host -run XXX -bench LoadReaders -benchtime 3x -count 1
func BenchmarkLoadReaders(b *testing.B) {
	const agents = 50_000
	h := newGuards(b, agents, 1, false)
	defer h.Close()
	var buf bytes.Buffer
	if err := h.WriteSnapshot(&buf); err != nil {
		b.Fatal(err)
	}
	fast := buf.Bytes()
	slow := bytes.Replace(fast, []byte(`{"version":`), []byte(`{"Version":`), 1)
	load := func(data []byte) time.Duration {
		b.StopTimer()
		h2, err := host.New(host.Options{Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer h2.Close()
		beh, err := h2.LoadString("guard.lua", guardSource(false))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		got, err := h2.Restore(data, beh)
		d := time.Since(t0)
		if err != nil || len(got) != agents {
			b.Fatal(len(got), err)
		}
		return d
	}
	var tick, tFast, tSlow time.Duration
	var ratios []float64
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := h.Tick(0.016); err != nil {
			b.Fatal(err)
		}
		tk := time.Since(t0)
		f, s := load(fast), load(slow)
		tick, tFast, tSlow = tick+tk, tFast+f, tSlow+s
		ratios = append(ratios, float64(s)/float64(f))
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / agents }
	b.ReportMetric(per(tick), "tick-ns/agent")
	b.ReportMetric(per(tFast), "load-ns/agent")
	b.ReportMetric(per(tSlow), "json-load-ns/agent")
	b.ReportMetric(float64(tFast)/float64(tick), "load/tick")
	b.ReportMetric(float64(tSlow)/float64(tick), "json-load/tick")
	b.ReportMetric(median(ratios), "json-load/load")
}

// BenchmarkBinarySaveVsTick measures, per iteration, a full tick of 50,000
// guards, a blocking binary save of them and the game loop's part of an
// asynchronous one (each after a collection), and reports the medians of
// each save's process CPU time over the same iteration's tick's: the
// ratios of BenchmarkSaveVsTick without its spawns and loads, which leave
// each tick a heap of another size to run in.
//
//	go test ./host -run XXX -bench BinarySaveVsTick -benchtime 9x -count 3
func BenchmarkBinarySaveVsTick(b *testing.B) {
	const agents = 50_000
	h := savedGuards(b, agents)
	defer h.Close()
	opts := host.SaveOptions{Format: host.SnapshotBinary}
	var save, async, tickNs, saveNs []float64
	var buf bytes.Buffer
	b.ResetTimer()
	for range b.N {
		tick := measure(b, func() {
			if err := h.Tick(0.016); err != nil {
				b.Fatal(err)
			}
		})
		buf.Reset()
		blocking := measure(b, func() {
			if err := h.WriteSnapshotWith(&buf, opts); err != nil {
				b.Fatal(err)
			}
		})
		var abuf bytes.Buffer
		var job *host.SaveJob
		loop := measure(b, func() {
			var err error
			if job, err = h.SnapshotAsyncWith(&abuf, opts); err != nil {
				b.Fatal(err)
			}
		})
		if err := job.Wait(); err != nil {
			b.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), abuf.Bytes()) {
			b.Fatal("the async save differs from the blocking one")
		}
		save = append(save, float64(blocking.cpu)/float64(tick.cpu))
		async = append(async, float64(loop.cpu)/float64(tick.cpu))
		tickNs = append(tickNs, float64(tick.cpu.Nanoseconds())/agents)
		saveNs = append(saveNs, float64(blocking.cpu.Nanoseconds())/agents)
	}
	b.ReportMetric(median(save), "cpu-bin-save/tick")
	b.ReportMetric(median(async), "cpu-bin-async/tick")
	b.ReportMetric(median(tickNs), "cpu-tick-ns/agent")
	b.ReportMetric(median(saveNs), "cpu-save-ns/agent")
}
