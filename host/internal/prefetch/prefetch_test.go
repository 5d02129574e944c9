package prefetch

import (
	"testing"
	"unsafe"
)

// A prefetch changes nothing, whatever the addresses: real ones, nil, and
// ones no memory is mapped at.
func TestPrefetchChangesNothing(t *testing.T) {
	buf := []int{1, 2, 3, 4}
	real0, real3 := uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&buf[3]))
	tests := []struct {
		name       string
		a, b, c, d uintptr
	}{
		{"real", real0, real3, real0 + 8, real3 - 8},
		{"nil", 0, 0, 0, 0},
		{"unmapped", 64, ^uintptr(0) >> 1, ^uintptr(0), 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Lines4(tt.a, tt.b, tt.c, tt.d)
			Line(tt.a)
			Line(tt.d)
			List([]uintptr{tt.a, tt.b, tt.c, tt.d})
			List(nil)
			if buf[0] != 1 || buf[1] != 2 || buf[2] != 3 || buf[3] != 4 {
				t.Fatalf("memory changed: %v", buf)
			}
		})
	}
}
