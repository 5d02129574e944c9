package host

// Reading agents while the workers tick: each agent changes on its
// worker's goroutine, so its read methods serve only its own callbacks
// there, and refuse every other caller until the tick is over (README:
// Concurrency). Between ticks nothing is checked but one flag.

import (
	"fmt"
	"sync"

	"github.com/luaai/luaai/internal/scripterr"
)

// run runs fn on the calling goroutine for w, named by w.thread for the
// reads of agents meanwhile. With one worker there is one goroutine:
// nothing to name.
func (w *worker) run(fn func(*worker)) {
	lockThread()
	w.thread.Store(threadID())
	defer func() {
		w.thread.Store(0)
		unlockThread()
	}()
	fn(w)
}

// readable reports whether a's state may be read by the caller now:
// always between ticks; while the workers run scripts, only from a's own
// callbacks (on its worker's goroutine, a being the agent whose callback
// runs there). A refused read is reported once (refuse).
func (a *Agent) readable(method string) bool {
	if !a.h.running {
		return true
	}
	return a.readableNow(method)
}

func (a *Agent) readableNow(method string) bool {
	h := a.h
	var on *worker // the worker whose goroutine calls
	if len(h.workers) == 1 {
		on = h.workers[0] // the only goroutine running scripts
	} else if id := threadID(); id != 0 {
		for _, w := range h.workers {
			if w.thread.Load() == id {
				on = w
				break
			}
		}
	}
	if on == nil {
		return false // not a worker's goroutine: nothing to report to
	}
	r, _ := on.vm.Runner().(runner)
	if r.a == a {
		return true
	}
	if r.a != nil {
		h.refusals.report(on, r.a, a, method)
	}
	return false
}

// refusals remembers which behaviours' refused reads were reported: the
// first of each behaviour, whatever the method (one report says the rule;
// a report for each read would flood OnError). Behaviours are known by
// name (their script), so that the definitions a script builds and spawns
// by the thousand are one behaviour here, and the map stays small.
type refusals struct {
	mu   sync.Mutex
	seen map[string]bool
}

// report records for OnError (and the observers) that caller's callback,
// running on worker on, read agent a with method and was refused, the
// first time its behaviour has a read refused. Called on on's goroutine.
func (rs *refusals) report(on *worker, caller, a *Agent, method string) {
	h := on.h
	if h.opts.OnError == nil && len(h.observers) == 0 {
		return
	}
	k := caller.b.name
	rs.mu.Lock()
	seen := rs.seen[k]
	if !seen {
		if rs.seen == nil {
			rs.seen = map[string]bool{}
		}
		rs.seen[k] = true
	}
	rs.mu.Unlock()
	if seen {
		return
	}
	err := fmt.Errorf("%w: Agent.%s of agent %d from a callback of agent %d was refused (it returns %s): while the workers tick, an agent's read methods serve only its own callbacks, as another agent may be ticking on another worker at that moment; read other agents between ticks and hand the script what it needs (reported once per behaviour: its other refused reads are not)",
		ErrReentrant, method, a.id, caller.id, refusedValue[method])
	se := &ScriptError{Agent: caller.id, Tick: caller.ticks, Callback: Callback(caller.curKind.String()), Msg: err.Error(), Err: err}
	if n := caller.cur; n != nil {
		se.State = n.path
		se.Script, se.Line = n.def.Pos.File, n.def.Pos.Line
	}
	if p, _ := scripterr.SplitPos(on.vm.L.Where(1) + " "); p.File != "" && p.Line > 0 {
		se.Script, se.Line = p.File, p.Line // the line that called the module function
	}
	on.records = append(on.records, record{kind: recError, err: se})
}

// refusedValue is what each read method returns when it is refused.
var refusedValue = map[string]string{
	"Get": "nil", "Context": "nil", "Number": "0, false", "Text": `"", false`, "Bool": "false, false",
	"State": `"", false`, "Path": `""`, "Active": "false", "Stack": "an error wrapping ErrReentrant",
	"PausedStates": "nil", "Ticks": "0", "Clock": "0", "Suspended": "false", "SuspendReason": "NotSuspended",
	"Dropped": "0", "LastDecision": "no decision", "View": "the zero link.AgentView", "TakeErrors": "nil",
}
