package luabind

import (
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	lua "github.com/yuin/gopher-lua"
)

// NewTickBudgetError is the error of an agent's tick stopped by its tick
// budget d (Options.TickBudget) while the engine itself was working between
// callbacks, so that no callback's error carries the stop: a *BudgetError
// with Tick set and no position, which ErrorMessage and errors.Is(err,
// ErrBudget) treat as a callback's.
func NewTickBudgetError(d time.Duration) *scripterr.BudgetError {
	e := &scripterr.BudgetError{Budget: d, Tick: true}
	scripterr.SetAPI(e, &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(e.Msg())})
	return e
}
