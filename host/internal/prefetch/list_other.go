//go:build !amd64 && !arm64

package prefetch

// List hints that the cache lines holding each of addrs will be read
// (nothing, on this architecture).
func List(addrs []uintptr) {}
