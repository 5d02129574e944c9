//go:build linux && !luaai_wallclock

package luabind

import (
	"time"

	"golang.org/x/sys/unix"
)

// Linux gives every thread a CPU clock that any thread of the process can
// read: clock_gettime on the clock id the kernel builds from the thread's
// id (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED): the id's complement
// shifted left by three, then the per-thread bit and the scheduler clock).
// It counts the time the thread ran, in the kernel or not, and stands
// still while the thread sleeps, blocks or waits for a core.

// threadClocks reports that this platform charges budgets as CPU time.
const threadClocks = true

// threadID is the calling thread's id. The goroutine must be locked to its
// thread (runtime.LockOSThread) for the id to stay its own.
func threadID() int32 { return int32(unix.Gettid()) }

// threadClock is the clock id of thread tid's CPU time.
func threadClock(tid int32) int32 { return ^tid<<3 | 6 }

// threadCPU is the CPU time thread tid has used; false when it cannot be
// read (the thread is gone).
func threadCPU(tid int32) (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(threadClock(tid), &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
