package host_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
)

// BenchmarkSpawnGuards spawns 50,000 guards into an empty host per
// iteration (the cost of making agents, which a load pays too); for
// profiling that cost on its own.
//
//	go test ./host -run XXX -bench SpawnGuards -benchtime 3x -cpuprofile cpu.out
func BenchmarkSpawnGuards(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		spawnInto(b, 50_000)
	}
}

// BenchmarkBinaryLoad restores a binary save of 50,000 guards into an empty
// host per iteration; for profiling a load on its own.
//
//	go test ./host -run XXX -bench BinaryLoad -benchtime 3x -cpuprofile cpu.out
func BenchmarkBinaryLoad(b *testing.B) {
	h := newGuards(b, 50_000, 1, false)
	defer h.Close()
	var buf bytes.Buffer
	if err := h.WriteSnapshotWith(&buf, host.SaveOptions{Format: host.SnapshotBinary}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration
	for range b.N {
		cpu += loadInto(b, bytes.NewBuffer(buf.Bytes())).cpu
	}
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

// BenchmarkBinarySave writes a blocking binary save of 50,000 guards per
// iteration; for profiling a save on its own.
//
//	go test ./host -run XXX -bench BinarySave -benchtime 3x -cpuprofile cpu.out
func BenchmarkBinarySave(b *testing.B) {
	h := newGuards(b, 50_000, 1, false)
	defer h.Close()
	for i, a := range h.Agents() {
		if i%2 == 0 {
			a.Set("player", "found")
		}
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration
	for range b.N {
		buf.Reset()
		cpu += measure(b, func() {
			if err := h.WriteSnapshotWith(&buf, host.SaveOptions{Format: host.SnapshotBinary}); err != nil {
				b.Fatal(err)
			}
		}).cpu
	}
	b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
}

// BenchmarkBinaryLoadVsTick measures, per iteration, a full tick of 50,000
// guards (half of them having found the player) and a load of their binary
// save into an empty host (each after a collection), and reports the
// medians of the load's time over the same iteration's tick's, in process
// CPU time (cpu-) and wall time: BenchmarkSaveVsTick's bin-load/tick with
// a tick beside each load, and medians, which one slow tick or load of a
// busy machine does not move as it moves a sum.
//
//	go test ./host -run XXX -bench BinaryLoadVsTick -benchtime 9x -count 3
func BenchmarkBinaryLoadVsTick(b *testing.B) {
	const agents = 50_000
	h := savedGuards(b, agents)
	defer h.Close()
	var save bytes.Buffer
	if err := h.WriteSnapshotWith(&save, host.SaveOptions{Format: host.SnapshotBinary}); err != nil {
		b.Fatal(err)
	}
	var cpu, wall, loadNs []float64
	b.ResetTimer()
	for range b.N {
		tick := measure(b, func() {
			if err := h.Tick(0.016); err != nil {
				b.Fatal(err)
			}
		})
		load := loadInto(b, bytes.NewBuffer(save.Bytes()))
		cpu = append(cpu, float64(load.cpu)/float64(tick.cpu))
		wall = append(wall, float64(load.wall)/float64(tick.wall))
		loadNs = append(loadNs, float64(load.cpu.Nanoseconds())/agents)
	}
	b.ReportMetric(median(cpu), "cpu-bin-load/tick")
	b.ReportMetric(median(wall), "bin-load/tick")
	b.ReportMetric(median(loadNs), "cpu-load-ns/agent")
}
