package host_test

import (
	"bytes"
	"testing"

	"github.com/luaai/luaai/host"
)

func BenchmarkZZHot(b *testing.B) {
	h := newGuards(b, 1000, 1, false)
	defer h.Close()
	for i, a := range h.Agents() {
		if i%2 == 0 {
			a.Set("player", "found")
		}
	}
	var buf bytes.Buffer
	b.ResetTimer()
	for range b.N {
		buf.Reset()
		if err := h.WriteSnapshotWith(&buf, host.SaveOptions{Format: host.SnapshotBinary}); err != nil {
			b.Fatal(err)
		}
	}
}
