//go:build amd64 || arm64

package prefetch

// Lines4 hints that the cache lines holding a, b, c and d will be read.
//
//go:noescape
func Lines4(a, b, c, d uintptr)

// Line hints that the cache line holding a will be read.
//
//go:noescape
func Line(a uintptr)
