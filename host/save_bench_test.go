package host_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
)

// BenchmarkSaveVsTick measures, in one run, a full tick of 50,000 guards,
// a blocking save of them (WriteSnapshot), the game loop's part of an
// asynchronous save (SnapshotAsync until it returns) and a load
// (RestoreFrom into an empty host), and reports each per agent and as a
// ratio to the tick.
//
//	go test ./host -run XXX -bench SaveVsTick -benchtime 3x -count 1
func BenchmarkSaveVsTick(b *testing.B) {
	const agents = 50_000
	h := newGuards(b, agents, 1, false)
	defer h.Close()
	for i, a := range h.Agents() {
		if i%2 == 0 {
			a.Set("player", "found")
		}
	}
	if err := h.Tick(0.016); err != nil {
		b.Fatal(err)
	}
	var tick, save, async, load time.Duration
	var size int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := h.Tick(0.016); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		var buf bytes.Buffer
		if err := h.WriteSnapshot(&buf); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		var abuf bytes.Buffer
		job, err := h.SnapshotAsync(&abuf)
		if err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		if err := job.Wait(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if !bytes.Equal(buf.Bytes(), abuf.Bytes()) {
			b.Fatal("the async save differs from the blocking one")
		}
		size = buf.Len()
		h2, err := host.New(host.Options{Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		beh, err := h2.LoadString("guard.lua", guardSource(false))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t4 := time.Now()
		if _, err := h2.RestoreFrom(&buf, host.RestoreOptions{}, beh); err != nil {
			b.Fatal(err)
		}
		t5 := time.Now()
		b.StopTimer()
		h2.Close()
		b.StartTimer()
		tick += t1.Sub(t0)
		save += t2.Sub(t1)
		async += t3.Sub(t2)
		load += t5.Sub(t4)
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / agents }
	b.ReportMetric(per(tick), "tick-ns/agent")
	b.ReportMetric(per(save), "save-ns/agent")
	b.ReportMetric(per(async), "async-loop-ns/agent")
	b.ReportMetric(per(load), "load-ns/agent")
	b.ReportMetric(float64(save)/float64(tick), "save/tick")
	b.ReportMetric(float64(async)/float64(tick), "async/tick")
	b.ReportMetric(float64(load)/float64(tick), "load/tick")
	b.ReportMetric(float64(size), "bytes")
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
