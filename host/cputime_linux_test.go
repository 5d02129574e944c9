package host_test

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// rusageThread is the calling thread's CPU time so far.
func rusageThread(t testing.TB) time.Duration { return cpuClock(t, unix.CLOCK_THREAD_CPUTIME_ID) }

// processCPU is the CPU time the whole process has used: for benchmarks,
// their work without the time they waited on a busy machine.
func processCPU(t testing.TB) time.Duration { return cpuClock(t, unix.CLOCK_PROCESS_CPUTIME_ID) }

// cpuClock reads a CPU-time clock. These clocks count the running thread's
// time to the nanosecond; getrusage counts it only as of the scheduler's
// last tick (1-4 ms), which would make a frame of a few milliseconds look
// up to twice as long as the next.
func cpuClock(t testing.TB, clock int32) time.Duration {
	t.Helper()
	var ts unix.Timespec
	if err := unix.ClockGettime(clock, &ts); err != nil {
		t.Fatalf("clock_gettime: %v", err)
	}
	return time.Duration(ts.Nano())
}
