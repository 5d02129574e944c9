package scripterr

import (
	"errors"
	"fmt"
	"time"

	"github.com/luaai/luaai/internal/luatext"
	lua "github.com/yuin/gopher-lua"
)

// The errors of a stopped callback: BudgetError, ErrBudget and
// ErrMemoryLimit, and the messages that say what stopped it.

// ErrBudget is wrapped by the error of a callback, or of a script being
// loaded, that ran past its time budget (Options.Budget, Options.LoadBudget).
var ErrBudget = errors.New("ran past its time budget")

// BudgetError is a callback or a script load stopped for running past its
// time budget. It wraps ErrBudget, the *lua.ApiError of the protected call
// (so ErrorMessage and Traceback work as for any other failed callback), and
// an ErrorList of one entry (so a loader's errors.As(err, &list) finds it).
type BudgetError struct {
	// Pos is the file:line the script was running when it was stopped; the
	// zero Pos when it is not known.
	Pos Pos
	// Load is true for a script stopped while it was loading (RunProto,
	// LoadProto), false for a callback.
	Load bool
	// Budget is the budget it ran past.
	Budget time.Duration
	// Steps is set for a call stopped by the instruction budget instead
	// (Options.BudgetSteps): it ran more than Steps Lua instructions.
	Steps int64
	// Memory is set for a call stopped by the memory limit instead
	// (Options.MemoryLimit): it made the heap grow by more than Memory
	// bytes. Such an error wraps ErrMemoryLimit, not ErrBudget.
	Memory int64
	// Cause is set for a call stopped because the context given to StopOn
	// ended: the context's cause (context.Canceled, DeadlineExceeded…),
	// which the error wraps instead of ErrBudget.
	Cause error
	// Tick is set for a call stopped because the agent's whole tick ran
	// past Options.TickBudget (which Budget then holds).
	Tick bool

	api *lua.ApiError
}

// ErrMemoryLimit is wrapped by the error of a callback, or of a script being
// loaded, stopped for allocating past its memory limit.
var ErrMemoryLimit = errors.New("memory limit")

// Msg is the message without the position: "callback ran past its 50ms
// budget", "script ran past its 2s load budget" or "callback went past its
// memory limit (256 MiB)".
func (e *BudgetError) Msg() string {
	if e.Cause != nil {
		return CancelMessage(e.Load, e.Cause)
	}
	if e.Steps > 0 {
		return StepsMessage(e.Steps)
	}
	if e.Memory > 0 {
		return MemoryMessage(e.Load, e.Memory)
	}
	if e.Tick {
		return TickMessage(e.Budget)
	}
	return BudgetMessage(e.Load, e.Budget)
}

// TickMessage says an agent's tick ran past its budget d.
func TickMessage(d time.Duration) string {
	return "the agent's tick ran past its " + d.String() + " budget"
}

// CancelMessage says a call (or, with load, a script load) was stopped by
// its context, whose cause is cause.
func CancelMessage(load bool, cause error) string {
	if load {
		return "script load stopped: " + cause.Error()
	}
	return "callback stopped: " + cause.Error()
}

// BudgetMessage says a call (or, with load, a script load) ran past its
// time budget d.
func BudgetMessage(load bool, d time.Duration) string {
	if load {
		return "script ran past its " + d.String() + " load budget"
	}
	return "callback ran past its " + d.String() + " budget"
}

// Error is "file:line: callback ran past its 50ms budget".
func (e *BudgetError) Error() string {
	if e.Pos.File == "" {
		return e.Msg()
	}
	return e.Pos.String() + ": " + e.Msg()
}

// Unwrap returns ErrBudget (or ErrMemoryLimit), the Lua error and the
// position as an ErrorList.
func (e *BudgetError) Unwrap() []error {
	sentinel := ErrBudget
	if e.Memory > 0 {
		sentinel = ErrMemoryLimit
	}
	if e.Cause != nil {
		sentinel = e.Cause
	}
	return []error{sentinel, e.api, ErrorList{{Pos: e.Pos, Msg: e.Msg()}}}
}

// StepsMessage says a call ran past its budget of n instructions.
func StepsMessage(n int64) string {
	return fmt.Sprintf("callback ran past its %d-instruction budget", n)
}

// MemoryMessage says a call (or, with load, a script load) grew the heap
// by more than n bytes.
func MemoryMessage(load bool, n int64) string {
	what := "callback"
	if load {
		what = "script"
	}
	return fmt.Sprintf("memory limit: the %s allocated more than %s", what, luatext.FormatBytes(n))
}

// SetAPI records the *lua.ApiError of the protected call that e stopped,
// which e then wraps.
func SetAPI(e *BudgetError, api *lua.ApiError) { e.api = api }

// API is the *lua.ApiError e wraps; nil when none was recorded.
func API(e *BudgetError) *lua.ApiError { return e.api }
