package host

import (
	"errors"
	"testing"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
)

// A tick its budget cut between callbacks is reported by the engine, once,
// at the definition of the state whose transitions it was matching: wrapping ErrBudget, a
// tick BudgetError, counted as an overrun.
func TestTickCutBetweenCallbacksReported(t *testing.T) {
	var got []*ScriptError
	h, err := New(Options{ReportAllErrors: true, OnError: func(e *ScriptError) { got = append(got, e) }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	b, err := h.LoadString("cut.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = {
  s = { transitions = { { on = "e", to = "s" } } },
} }`)
	if err != nil {
		t.Fatal(err)
	}
	a, err := h.Spawn(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := a.top(a.t.root)
	for range 2 { // the second is the rest of the same tick: not reported
		a.report(s, CallbackWhen, luabind.NewTickBudgetError(tickBudget(h.opts)))
	}
	h.dispatch()
	if len(got) != 1 {
		t.Fatalf("%d reports, want 1: %v", len(got), got)
	}
	e := got[0]
	var be *scripterr.BudgetError
	if !errors.Is(e, ErrBudget) || !errors.As(e, &be) || !be.Tick || be.Budget != 200*time.Millisecond {
		t.Fatalf("%v: want a tick BudgetError", e)
	}
	if e.Script != "cut.lua" || e.Line != s.def.Pos.Line || e.State != "s" || e.Callback != CallbackWhen ||
		e.Msg != "the agent's tick ran past its 200ms budget" {
		t.Fatalf("%+v", e)
	}
	if a.overruns != 1 {
		t.Fatalf("overruns %d, want 1", a.overruns)
	}
}
