//go:build amd64 || arm64

package prefetch

// List hints that the cache lines holding each of addrs will be read: one
// call for many lines.
//
//go:noescape
func List(addrs []uintptr)
