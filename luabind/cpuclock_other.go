//go:build !linux || luaai_wallclock

package luabind

import "time"

// Without a CPU clock per thread that another thread can read, budgets
// keep the wall-time rule: a call is stopped when it has run past its
// budget in wall time and has done work of its own meanwhile (budget.go).

// threadClocks reports that this platform charges budgets as CPU time.
const threadClocks = false

func threadID() int32 { return 0 }

func threadCPU(int32) (time.Duration, bool) { return 0, false }
