package host_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU runs fn on the calling goroutine locked to its thread and
// returns the CPU time (user and system) that thread used meanwhile: with
// one worker, what a Host.Tick made it do.
func threadCPU(t *testing.T, fn func()) time.Duration {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := rusageThread(t)
	fn()
	return rusageThread(t) - before
}

func rusageThread(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
