package host_test

import (
	"fmt"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// BenchmarkMove50 moves 50 agents into a host of 500 and of 50,000
// agents and back out (Export, Import, Export, Import): the cost per
// agent moved (ns/agent) must not grow with the host. The moved agents'
// ids fall among the big host's (every 2 × size/50th id), the case where
// the host's lists move the most.
func BenchmarkMove50(b *testing.B) {
	for _, size := range []int{500, 50_000} {
		b.Run(fmt.Sprintf("host=%d", size), func(b *testing.B) {
			big, err := host.New(host.Options{Workers: 2})
			require.NoError(b, err)
			defer big.Close()
			bb, err := big.LoadString("walker.lua", walkerSrc)
			require.NoError(b, err)
			for i := 0; i < size; i++ {
				_, err := big.SpawnWith(bb, host.SpawnOptions{ID: 2*i + 1})
				require.NoError(b, err)
			}
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
		})
	}
}
