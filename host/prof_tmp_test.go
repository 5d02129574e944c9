package host_test

import "testing"

func BenchmarkRTSProf(b *testing.B) {
	h, w := newRTS(b, 5000)
	defer h.Close()
	b.ResetTimer()
	for i := range b.N {
		w.step(i + 2)
		gmust(b, h.Tick(0.05))
	}
}

func BenchmarkRTSFloorProf(b *testing.B) {
	h, w := newRTS(b, 5000)
	defer h.Close()
	floor, _ := recordRTSFloor(b, h, w, 1)
	b.ResetTimer()
	for range b.N {
		floor()
	}
}
