//go:build !linux && !windows

package host

import (
	"bytes"
	"runtime"
	"strconv"
)

// threadID names the calling goroutine, where no cheap name of its OS
// thread is at hand: its number, read from the header of its stack trace
// ("goroutine 42 [running]:"). It costs a few microseconds, paid only by a
// read of an agent while the workers tick.
func threadID() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := bytes.TrimPrefix(buf[:n], []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		if id, err := strconv.ParseUint(string(b[:i]), 10, 64); err == nil {
			return id
		}
	}
	return 0 // never a worker's: the read is refused
}

// A goroutine's number stays with it: nothing to lock.
func lockThread()   {}
func unlockThread() {}
