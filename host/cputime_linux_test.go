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

func rusageThread(t testing.TB) time.Duration { return rusage(t, syscall.RUSAGE_THREAD) }

// processCPU is the CPU time the whole process has used: for benchmarks,
// their work without the time they waited on a busy machine.
func processCPU(t testing.TB) time.Duration { return rusage(t, syscall.RUSAGE_SELF) }

func rusage(t testing.TB, who int) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
