//go:build !amd64 && !arm64

package prefetch

// Lines4 hints that the cache lines holding a, b, c and d will be read
// (nothing, on this architecture).
func Lines4(a, b, c, d uintptr) {}

// Line hints that the cache line holding a will be read (nothing, on this
// architecture).
func Line(a uintptr) {}
