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
// empty host), and reports each per agent and as a ratio to the tick.
//
//	go test ./host -run XXX -bench SaveVsTick -benchtime 3x -count 3
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
	formats := []struct {
		name string
		opts host.SaveOptions
	}{{"json", host.SaveOptions{}}, {"bin", host.SaveOptions{Format: host.SnapshotBinary}}}
	var tick time.Duration
	save, async, load := make([]time.Duration, 2), make([]time.Duration, 2), make([]time.Duration, 2)
	size := make([]int, 2)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		settle(b)
		t0 := time.Now()
		if err := h.Tick(0.016); err != nil {
			b.Fatal(err)
		}
		tick += time.Since(t0)
		for f, format := range formats {
			s, a, l, n := saveAndLoad(b, h, format.opts)
			save[f], async[f], load[f], size[f] = save[f]+s, async[f]+a, load[f]+l, n
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / agents }
	b.ReportMetric(per(tick), "tick-ns/agent")
	for f, format := range formats {
		b.ReportMetric(per(save[f]), format.name+"-save-ns/agent")
		b.ReportMetric(float64(save[f])/float64(tick), format.name+"-save/tick")
		b.ReportMetric(float64(async[f])/float64(tick), format.name+"-async/tick")
		b.ReportMetric(float64(load[f])/float64(tick), format.name+"-load/tick")
		b.ReportMetric(float64(size[f]), format.name+"-bytes")
	}
}

// settle collects the garbage of what ran before (timer stopped), so that
// each timed part pays only for its own.
func settle(b *testing.B) {
	b.StopTimer()
	runtime.GC()
	b.StartTimer()
}

// saveAndLoad saves h with opts, blocking and asynchronously (checking
// that both write the same bytes), and loads the save into an empty host;
// it returns the blocking save's time, the async save's time on the
// calling goroutine, the load's time and the save's size.
func saveAndLoad(b *testing.B, h *host.Host, opts host.SaveOptions) (save, async, load time.Duration, size int) {
	settle(b)
	t1 := time.Now()
	var buf bytes.Buffer
	if err := h.WriteSnapshotWith(&buf, opts); err != nil {
		b.Fatal(err)
	}
	t2 := time.Now()
	b.StopTimer()
	runtime.GC()
	b.StartTimer()
	t2b := time.Now()
	var abuf bytes.Buffer
	job, err := h.SnapshotAsyncWith(&abuf, opts)
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
	defer h2.Close()
	beh, err := h2.LoadString("guard.lua", guardSource(false))
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	b.StartTimer()
	t4 := time.Now()
	if _, err := h2.RestoreFrom(&buf, host.RestoreOptions{}, beh); err != nil {
		b.Fatal(err)
	}
	load = time.Since(t4)
	return t2.Sub(t1), t3.Sub(t2b), load, size
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
