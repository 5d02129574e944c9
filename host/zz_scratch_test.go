package host_test

import (
	"bytes"
	"testing"

	"github.com/luaai/luaai/host"
)

func BenchmarkZZSave(b *testing.B) {
	const n = 50_000
	h := newGuards(b, n, 1, false)
	defer h.Close()
	for i, a := range h.Agents() {
		if i%2 == 0 {
			a.Set("player", "found")
		}
	}
	var buf bytes.Buffer
	opts := host.SaveOptions{Format: host.SnapshotBinary}
	var rs, ra, ss []float64
	b.ResetTimer()
	for range b.N {
		tk := measure(b, func() {
			if err := h.Tick(0.016); err != nil {
				b.Fatal(err)
			}
		})
		buf.Reset()
		sv := measure(b, func() {
			if err := h.WriteSnapshotWith(&buf, opts); err != nil {
				b.Fatal(err)
			}
		})
		var abuf bytes.Buffer
		var job *host.SaveJob
		as := measure(b, func() {
			var err error
			if job, err = h.SnapshotAsyncWith(&abuf, opts); err != nil {
				b.Fatal(err)
			}
		})
		if err := job.Wait(); err != nil {
			b.Fatal(err)
		}
		rs = append(rs, float64(sv.cpu)/float64(tk.cpu))
		ra = append(ra, float64(as.cpu)/float64(tk.cpu))
		ss = append(ss, float64(sv.cpu.Nanoseconds())/n)
	}
	b.ReportMetric(median(rs), "med-save/tick")
	b.ReportMetric(median(ra), "med-async/tick")
	b.ReportMetric(median(ss), "med-save-ns")
}
