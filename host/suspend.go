package host

import (
	"github.com/luaai/luaai/internal/scripterr"
)

// SuspendReason says why an agent stopped ticking (Agent.SuspendReason).
type SuspendReason uint8

// The reasons an agent is suspended.
const (
	// NotSuspended: the agent ticks.
	NotSuspended SuspendReason = iota
	// SuspendedByFault: a callback failed under the Suspend fault policy.
	SuspendedByFault
	// SuspendedByOverruns: Options.MaxOverruns of its callbacks (or of its
	// ticks, Options.AgentTickBudget) ran past their time budget.
	SuspendedByOverruns
	// SuspendedByMemory: its context held the most when the agents together
	// held more than Options.MemoryLimit.
	SuspendedByMemory
	// SuspendedByHost: the game called Agent.Suspend.
	SuspendedByHost
)

var suspendNames = [...]string{"", "fault", "overruns", "memory", "host"}

// String is the word the CLI prints: "", "fault", "overruns", "memory" or
// "host".
func (r SuspendReason) String() string {
	if int(r) < len(suspendNames) {
		return suspendNames[r]
	}
	return "unknown"
}

// Suspended reports whether the agent is suspended: Host.Tick skips it
// until Agent.Unsuspend. SuspendReason says why.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets false, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Suspended() bool {
	return a.readable("Suspended") && a.suspension != NotSuspended
}

// SuspendReason says why the agent is suspended (NotSuspended when it
// ticks).
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets NotSuspended, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) SuspendReason() SuspendReason {
	if !a.readable("SuspendReason") {
		return NotSuspended
	}
	return a.suspension
}

// Suspend stops the agent ticking until Resume, as the engine's own
// suspensions do (SuspendedByHost): its context, states and timers stay as
// they are. It returns ErrReentrant while the workers run scripts.
func (a *Agent) Suspend() error {
	if err := a.usable(); err != nil {
		return err
	}
	a.suspend(SuspendedByHost)
	return nil
}

// Unsuspend lets a suspended agent tick again and starts its count of
// overruns afresh. It returns ErrReentrant while the workers run scripts.
func (a *Agent) Unsuspend() error {
	if err := a.usable(); err != nil {
		return err
	}
	a.suspension, a.overruns, a.suspendAt, a.suspendText = NotSuspended, 0, scripterr.Pos{}, ""
	return nil
}

// rememberCause records the line of the error that suspended the agent.
func (a *Agent) rememberCause(se *ScriptError) {
	a.suspendAt = scripterr.Pos{File: se.Script, Line: se.Line}
	a.suspendText = a.h.sourceLine(a.suspendAt.File, a.suspendAt.Line)
}

func (a *Agent) suspend(why SuspendReason) {
	if a.suspension == NotSuspended {
		a.suspension = why
	}
}

// Remedy says what lets an agent suspended for r tick again, in a Go
// game's words: "Agent.Unsuspend, or a reload that changes that line, lets it
// tick again" for a fault or overruns (a reload that changes the line that
// failed resumes it), "Agent.Unsuspend lets it tick again" for the others, ""
// for NotSuspended.
// ScriptError.Error adds it to the error that suspended the agent.
func (r SuspendReason) Remedy() string {
	switch r {
	case NotSuspended:
		return ""
	case SuspendedByFault, SuspendedByOverruns:
		return "Agent.Unsuspend, or a reload that changes that line, lets it tick again"
	}
	return "Agent.Unsuspend lets it tick again"
}
