//go:build linux

package host_test

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"

	"github.com/luaai/luaai/host"
)

// BenchmarkBinarySaveCPU: a blocking binary save's CPU time per agent,
// saves one after another (no tick or collection between them), on the
// game loop's thread: of 1,000 guards, whose records fit in the caches
// (when other programs leave them there), and of 50,000, whose records
// are read from memory. It reports the median and the lowest tenth (p10,
// what a save costs when the machine's other work leaves it alone).
//
//	go test ./host -run '^$' -bench BinarySaveCPU -benchtime 200x -count 3
func BenchmarkBinarySaveCPU(b *testing.B) {
	for _, agents := range []int{1_000, 50_000} {
		b.Run(fmt.Sprintf("agents=%d", agents), func(b *testing.B) {
			h := savedGuards(b, agents)
			defer h.Close()
			if err := h.Tick(0.016); err != nil {
				b.Fatal(err)
			}
			opts := host.SaveOptions{Format: host.SnapshotBinary}
			runtime.GC()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			per := make([]float64, 0, b.N)
			b.ResetTimer()
			for range b.N {
				c0 := rusageThread(b)
				if err := h.WriteSnapshotWith(io.Discard, opts); err != nil {
					b.Fatal(err)
				}
				per = append(per, float64(rusageThread(b)-c0)/float64(agents))
			}
			b.StopTimer()
			slices.Sort(per)
			b.ReportMetric(median(per), "cpu-ns/agent")
			b.ReportMetric(per[len(per)/10], "p10-cpu-ns/agent")
		})
	}
}
