package host_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// BenchmarkMove50 moves 50 agents into a host of 500 and into a host of
// 50,000 agents and back out (Export, Import, Export, Import): the cost
// per agent moved (ns/agent, and cpu-ns/agent: the process's CPU time,
// without the time it waited on a busy machine) must not grow with the
// host. The moved agents' ids fall among the big host's (every 2 ×
// size/50th id), the case where the host's lists move the most. Both
// hosts exist for both runs, so the garbage collector has the same heap
// to scan in each: what differs is only the host the agents move through.
func BenchmarkMove50(b *testing.B) {
	sizes := []int{500, 50_000}
	bigs := map[int]*host.Host{}
	behs := map[int]*host.Behaviour{}
	for _, size := range sizes {
		big, err := host.New(host.Options{Workers: 2})
		require.NoError(b, err)
		defer big.Close()
		bb, err := big.LoadString("walker.lua", walkerSrc)
		require.NoError(b, err)
		for i := 0; i < size; i++ {
			_, err := big.SpawnWith(bb, host.SpawnOptions{ID: 2*i + 1})
			require.NoError(b, err)
		}
		bigs[size], behs[size] = big, bb
	}
	for _, size := range sizes {
		b.Run(fmt.Sprintf("host=%d", size), func(b *testing.B) {
			big, bb := bigs[size], behs[size]
			small, err := host.New(host.Options{})
			require.NoError(b, err)
			defer small.Close()
			sb, err := small.LoadString("walker.lua", walkerSrc)
			require.NoError(b, err)
			var moving []*host.Agent
			for k := 0; k < 50; k++ {
				a, err := small.SpawnWith(sb, host.SpawnOptions{ID: 2 * (k*size/50 + 1)})
				require.NoError(b, err)
				moving = append(moving, a)
			}
			require.NoError(b, small.Tick(0.1))
			b.ReportAllocs()
			runtime.GC()
			cpu0 := cpuNow(b)
			b.ResetTimer()
			for b.Loop() {
				doc, err := small.Export(moving...)
				if err != nil {
					b.Fatal(err)
				}
				in, err := big.Import(doc, host.ImportOptions{}, bb)
				if err != nil {
					b.Fatal(err)
				}
				doc, err = big.Export(in...)
				if err != nil {
					b.Fatal(err)
				}
				if moving, err = small.Import(doc, host.ImportOptions{}, sb); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/agent")
			if runtime.GOOS == "linux" {
				b.ReportMetric(float64((cpuNow(b)-cpu0).Nanoseconds())/float64(b.N)/100, "cpu-ns/agent")
			}
		})
	}
}

// cpuNow is the process's CPU time so far (0 where it is not read).
func cpuNow(b *testing.B) time.Duration {
	if runtime.GOOS != "linux" {
		return 0
	}
	return processCPU(b)
}
