package luabind

import (
	"errors"
	"testing"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
)

// The engine's own tick-budget error reads like a stopped callback's:
// its message, ErrBudget, a *BudgetError with Tick set, and no position.
func TestNewTickBudgetError(t *testing.T) {
	err := error(NewTickBudgetError(200 * time.Millisecond))
	const msg = "the agent's tick ran past its 200ms budget"
	if got := ErrorMessage(err); got != msg {
		t.Fatalf("ErrorMessage = %q, want %q", got, msg)
	}
	if got := err.Error(); got != msg {
		t.Fatalf("Error = %q, want %q", got, msg)
	}
	if !errors.Is(err, scripterr.ErrBudget) || errors.Is(err, scripterr.ErrMemoryLimit) {
		t.Fatalf("%v: want ErrBudget only", err)
	}
	var be *scripterr.BudgetError
	if !errors.As(err, &be) || !be.Tick || be.Budget != 200*time.Millisecond || be.Pos != (scripterr.Pos{}) {
		t.Fatalf("%#v", be)
	}
	if tb := Traceback(err); tb != "" {
		t.Fatalf("traceback %q, want none", tb)
	}
	if d := Detach(err); ErrorMessage(d) != msg {
		t.Fatalf("Detach: %v", d)
	}
}
