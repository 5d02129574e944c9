package host

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// What an agent reports: script errors (with their suspension policy),
// transitions and ai.log lines, recorded on the worker and delivered by the
// host's dispatch after the tick; and what the ai.* functions see of an
// agent inside callbacks (runner) and through ai.spawn (luaAgent).

func (a *Agent) report(n *place, cb Callback, err error) { a.reportAt(n, cb, err, "") }

// reportAt is report naming where in the state it failed: " (tree node x.y)".
func (a *Agent) reportAt(n *place, cb Callback, err error, where string) {
	if be := (*scripterr.BudgetError)(nil); errors.As(err, &be) && be.Tick {
		if a.tickStopped {
			return // the rest of a tick its budget stopped: reported once
		}
		a.tickStopped = true
	}
	se := newScriptError(a, n, cb, err)
	se.Msg += where
	if len(a.errs) >= a.h.opts.MaxErrors {
		a.errs = a.errs[1:]
		a.dropped++
	}
	a.errs = append(a.errs, se)
	if a.h.opts.OnError != nil || len(a.h.observers) > 0 {
		a.w.records = append(a.w.records, record{kind: recError, err: se})
	}
	if a.h.opts.Faults == FaultSuspend && a.suspension == NotSuspended {
		a.suspend(SuspendedByFault)
		a.rememberCause(se)
		se.Suspends, se.Suspension = true, SuspendedByFault
	}
	if errors.Is(err, scripterr.ErrBudget) && a.h.opts.MaxOverruns > 0 && a.suspension == NotSuspended {
		a.overruns++
		if a.overruns >= a.h.opts.MaxOverruns {
			a.suspend(SuspendedByOverruns)
			a.rememberCause(se)
			at := ""
			if se.Script != "" && se.Line > 0 { // the line that ran away, not the state's definition
				at = scripterr.Pos{File: se.Script, Line: se.Line}.String() + ": "
			}
			a.report(n, cb, fmt.Errorf("%s%w: the agent is suspended after %d callbacks ran past their time budget", at, ErrOverruns, a.overruns))
			a.errs[len(a.errs)-1].Suspends = true
			a.errs[len(a.errs)-1].Suspension = SuspendedByOverruns
		}
	}
}

func (a *Agent) emit(kind TransitionKind, from, to *place) {
	if a.h.opts.OnTransition == nil && a.followers == 0 {
		return
	}
	t := Transition{Agent: a.id, Tick: a.ticks, Kind: kind, To: to.path, Event: a.evName, Sender: a.evFrom}
	if from != nil {
		t.From = from.path
	}
	a.w.records = append(a.w.records, record{kind: recTransition, tr: t})
}

// emitState reports a spawn, a restore, or (kind "reload") that a reload
// moved the agent because its active state vanished: to its whole state,
// from the path it had before ("" for none).
func (a *Agent) emitState(kind TransitionKind, from string) {
	if a.h.opts.OnTransition == nil && a.followers == 0 {
		return
	}
	a.w.records = append(a.w.records, record{kind: recTransition, tr: Transition{Agent: a.id, Tick: a.ticks, Kind: kind, From: from, To: a.statePath()}})
}

// --- defs.Runner: what ai.* functions act on inside callbacks ---

// runner is the agent as seen from the functions usable inside callbacks. It is one
// pointer wide, so handing it to the VM as an interface does not allocate.
type runner struct{ a *Agent }

func (r runner) State() (string, bool)   { return r.a.state() }
func (r runner) Active(name string) bool { return r.a.active(name) }
func (r runner) Rand() *rand.Rand        { return r.a.rng }
func (r runner) ID() int                 { return r.a.id }

// Time is the seconds the running state has been active.
func (r runner) Time() float64 {
	a := r.a
	if a.cur == nil || a.curScore {
		return 0
	}
	return a.nodes[a.cur.id].time
}

// Log passes an ai.log line to Options.OnLog.
func (r runner) Log(msg string) {
	a := r.a
	if a.h.opts.OnLog == nil && a.followers == 0 {
		return
	}
	if a.logs++; a.logs > MaxLogLines {
		return // counted; one line says how many at the end of the tick
	}
	state := ""
	if a.cur != nil {
		state = a.cur.path
	}
	msg = luatext.CutText(msg, maxLogBytes)
	a.w.records = append(a.w.records, record{kind: recLog, log: Log{Agent: a.id, Tick: a.ticks, State: state, Msg: msg}})
}

// MaxLogLines bounds the ai.log lines one agent's tick reports: a script
// logging in a loop until its budget stops it would otherwise pile up
// records outside any memory limit. The lines past it are counted in one
// line at the end of the tick.
const MaxLogLines = 1000

// maxLogBytes is where an ai.log line is cut.
const maxLogBytes = 4 << 10

// endLogs reports the ai.log lines MaxLogLines dropped in this tick.
func (a *Agent) endLogs() {
	if a.logs > MaxLogLines {
		state := ""
		if n := a.deepest(); n != nil {
			state = n.path
		}
		a.w.records = append(a.w.records, record{kind: recLog, log: Log{Agent: a.id, Tick: a.ticks, State: state,
			Msg: fmt.Sprintf("luaai: %d more ai.log lines in this tick were dropped (at most %d a tick)", a.logs-MaxLogLines, MaxLogLines)}})
	}
	a.logs = 0
}

// luaAgent adapts an Agent to defs.LuaAgent for ai.spawn. An agent
// spawned while the workers run exists only once they are done: until then
// (p != nil) its context can be read and written and events sent to it, and
// the rest reports that it is not there yet.
type luaAgent struct {
	a *Agent
	p *pendingSpawn
}

// errNotYetSpawned: agent:tick on an agent queued by ai.spawn this tick.
var errNotYetSpawned = errors.New("the agent is created at the end of this tick (ai.spawn during a tick is queued); tick it from the next tick on")

func (l *luaAgent) ID() int {
	if l.a == nil {
		return 0
	}
	return l.a.id
}

func (l *luaAgent) Tick(dt float64) error {
	if l.a == nil {
		return errNotYetSpawned
	}
	return l.a.tickOne(dt)
}

func (l *luaAgent) State() (string, bool) {
	if l.a == nil {
		return "", false
	}
	return l.a.state() // an agent of the caller's worker: ai.spawn made it there
}

func (l *luaAgent) Active(name string) bool { return l.a != nil && l.a.active(name) }

func (l *luaAgent) Ctx() *lua.LTable {
	if l.a == nil {
		return l.p.ctx
	}
	return l.a.ctx
}

func (l *luaAgent) Send(name string, payload lua.LValue) error {
	if l.a == nil {
		if len(l.p.events) >= MaxPendingEvents {
			return errTooManyEvents
		}
		l.p.events = append(l.p.events, event{name: name, payload: payload})
		return nil
	}
	return l.a.sendLua(name, payload)
}

func (l *luaAgent) Errors() []defs.CallbackError {
	if l.a == nil {
		return nil
	}
	errs := l.a.takeErrors()
	out := make([]defs.CallbackError, len(errs))
	for i, e := range errs {
		out[i] = defs.CallbackError{Message: e.Message(), State: e.State, Callback: string(e.Callback)}
	}
	return out
}
