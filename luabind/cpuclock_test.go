package luabind

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The thread clock counts what a thread runs and nothing else: a busy
// thread's advances, a sleeping one's stands still.
func TestThreadClock(t *testing.T) {
	if !threadClocks {
		t.Skip("no thread CPU clock on this platform")
	}
	stop := make(chan struct{})
	busyTid, sleepingTid := make(chan int32, 1), make(chan int32, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		busyTid <- threadID()
		x := 0
		for {
			select {
			case <-stop:
				return
			default:
			}
			for i := range 1 << 12 {
				x += i
			}
		}
	}()
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		sleepingTid <- threadID()
		<-stop
	}()
	busy, sleeping := <-busyTid, <-sleepingTid
	b0, ok := threadCPU(busy)
	require.True(t, ok)
	s0, ok := threadCPU(sleeping)
	require.True(t, ok)
	// Wait for the busy thread to run 20ms (however long that takes on a
	// loaded machine), then check the sleeping one did not.
	for {
		b1, ok := threadCPU(busy)
		require.True(t, ok)
		if b1-b0 >= 20*time.Millisecond {
			break
		}
		runtime.Gosched()
	}
	s1, ok := threadCPU(sleeping)
	require.True(t, ok)
	close(stop)
	require.Less(t, s1-s0, 2*time.Millisecond, "a sleeping thread's clock advanced")

	// A thread that does not exist has no clock to read: no id reaches
	// the kernel's pid_max. (Waiting for a locked goroutine's thread to
	// exit was flaky on a loaded machine: the runtime takes its time.)
	raw, err := os.ReadFile("/proc/sys/kernel/pid_max")
	require.NoError(t, err)
	pidMax, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	require.NoError(t, err)
	_, ok = threadCPU(int32(pidMax) + 1)
	require.False(t, ok, "a clock read for a thread id past pid_max")
}

// cpuOf runs f on a goroutine locked to its thread and returns the CPU time
// the thread spent in it.
func cpuOf(t testing.TB, f func()) time.Duration {
	t.Helper()
	if !threadClocks {
		t.Skip("no thread CPU clock on this platform")
	}
	done := make(chan time.Duration)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := threadID()
		c0, _ := threadCPU(tid)
		f()
		c1, _ := threadCPU(tid)
		done <- c1 - c0
	}()
	return <-done
}

// singleSteps are the most expensive single instructions and library calls
// that no budget can interrupt, at the largest sizes the sandbox allows
// (strings at the 16 MiB cap, an array part of 1<<20 nils): setup builds
// the inputs in globals, step is the one instruction or call measured.
// (The sandbox's own loops, table.concat, table.sort, string.upper, lower
// and format's %q, poll the budget as they go: cpuAttacks checks them.)
var singleSteps = []struct{ name, setup, step string }{
	{"s1 < s2, equal 16 MiB strings", `S1 = string.rep("x", 16777216) S2 = string.rep("x", 16777216)`, `local _ = S1 < S2`},
	{"s1 <= s2, equal 16 MiB strings", `S1 = string.rep("x", 16777216) S2 = string.rep("x", 16777216)`, `local _ = S1 <= S2`},
	{"s1 == s2, equal 16 MiB strings", `S1 = string.rep("x", 16777216) S2 = string.rep("x", 16777216)`, `local _ = S1 == S2`},
	{"#t, 1<<20 nils", `T = {} for i = 1, 1048576 do T[i] = true end for i = 1, 1048576 do T[i] = nil end`, `local _ = #T`},
	{"next(t), 1<<20 nils", `T = {} for i = 1, 1048576 do T[i] = true end for i = 1, 1048576 do T[i] = nil end T.x = 1`, `local _ = next(T)`},
	{"string.rep, 16 MiB", ``, `local _ = string.rep("x", 16777216)`},
	{"string.rep, 16 MiB of 64 KiB pieces", `P = string.rep("ab", 32768)`, `local _ = string.rep(P, 256)`},
	{"string.format %s, 4 MiB", `S = string.rep("x", 4194000)`, `local _ = string.format("%s", S)`},
	{"s .. s, 2 x 8 MiB", `S = string.rep("x", 8388608)`, `local _ = S .. S`},
	{"string.reverse, 16 MiB", `S = string.rep("xy", 8388608)`, `local _ = string.reverse(S)`},
	{"plain find, 16 MiB", `S = string.rep("x", 16777216) P = string.rep("x", 4096) .. "y"`, `local _ = string.find(S, P, 1, true)`},
	{"tonumber, 16 MiB", `S = string.rep("1", 16777216)`, `local _ = tonumber(S)`},
	{"tostring of a 16 MiB string", `S = string.rep("1", 16777216)`, `local _ = tostring(S)`},
	{"string.len, 16 MiB", `S = string.rep("1", 16777216)`, `local _ = #S`},
}

// The most one instruction or library call costs at the sizes the sandbox
// allows is under a budget (50ms) of CPU time, so a call is stopped within
// one step of running past its budget. Each step's cheapest of five runs
// (of up to 25 on a machine that slows all five) is checked (the CPU time of the same work varies little, and a loaded
// machine only makes it look worse: the worst, a comparison of two equal
// 16 MiB strings, took 16-41ms on a 2-core machine under a load of 10);
// the numbers are logged.
func TestSingleStepCost(t *testing.T) {
	if raceEnabled {
		t.Skip("CPU times are measured without the race detector")
	}
	var worst time.Duration
	var worstName string
	for _, tc := range singleSteps {
		t.Run(tc.name, func(t *testing.T) {
			vm := NewVM(Options{})
			defer vm.Close()
			_, err := vm.RunString("setup.lua", tc.setup)
			require.NoError(t, err)
			fn := compileFn(t, vm, "step.lua", "return function() "+tc.step+" end")
			// Five runs, and up to twenty more while the cheapest is
			// over the budget: a machine busy enough can slow every one
			// of five (one run of 16 MiB string.rep read 57ms, best of
			// five, beside four other builds and benchmarks), never the
			// work itself.
			best := time.Duration(1 << 62)
			for i := 0; i < 5 || (best >= testBudget && i < 25); i++ {
				d := cpuOf(t, func() {
					_, err := vm.Call(fn)
					require.NoError(t, err)
				})
				best = min(best, d)
			}
			t.Logf("%-40s %8.2f ms", tc.name, best.Seconds()*1000)
			if best > worst {
				worst, worstName = best, tc.name
			}
			require.Less(t, best, testBudget, "one step costs more than a budget")
		})
	}
	t.Logf("worst single step: %s, %.2f ms of CPU", worstName, worst.Seconds()*1000)
}
