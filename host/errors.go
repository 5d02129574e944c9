package host

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/internal/suggest"
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// Sentinel errors, wrapped with %w where they occur.
var (
	// ErrUnknownState: a name or path that is not a state of the behaviour.
	ErrUnknownState = errors.New("unknown state")
	// ErrStackDepth: a push would make a machine's stack deeper than Options.MaxStackDepth.
	ErrStackDepth = errors.New("stack depth limit reached")
	// ErrOnStack: a push or replace names a state already paused on the stack.
	ErrOnStack = errors.New("state is already on the stack")
	// ErrEmptyStack: a pop of the last state of a machine.
	ErrEmptyStack = errors.New("cannot pop the last state of a machine")
	// ErrTicking: an agent ticked again from inside its own tick.
	ErrTicking = errors.New("agent is already ticking")
	// ErrClosed: the host was closed, or the agent removed from it
	// (Remove, Despawn).
	ErrClosed = errors.New("closed")
	// ErrBindByValue: a struct given by value to Bind, Set or Spawn: Lua
	// would change a copy the game never sees. Bind a pointer.
	ErrBindByValue = errors.New("a struct bound by value (Lua would change a copy; bind a pointer)")
	// ErrNotInHook: ai.push/pop/replace called from when, lock or score.
	ErrNotInHook = errors.New("only allowed in hooks (enter, exit, update, pause, resume, on_reload), a transition's run, steps and tree actions; not in conditions, scorers and locks")
	// ErrNoMachine: ai.push/pop/replace from a state with no fsm above it.
	ErrNoMachine = errors.New("no fsm holds this state")
	// ErrSuspended: Agent.Tick on an agent suspended by the Suspend fault policy.
	ErrSuspended = errors.New("agent is suspended after a failed callback")
	// ErrNilBehaviour: Spawn or Restore given a nil behaviour.
	ErrNilBehaviour = errors.New("behaviour is nil")
	// ErrReentrant: a Host or Agent method that changes agents or
	// behaviours (Tick, Spawn, Remove, Reload, Restore, Close, Agent.Tick,
	// Send, Set, SetPath, Bind, Sync, Suspend…) was called while the
	// workers were running scripts — from a module function or a bound Go
	// value, on a worker's goroutine, where any agent may be ticking on
	// another worker; or Host.Tick was called from a hook of Options, inside
	// the tick that calls the hook. The hooks run after the workers finish
	// and may call the rest; from inside a script, use ai.spawn (queued to
	// the end of the tick), ai.send_to or Host.QueueReload.
	ErrReentrant = errors.New("called from a script while the workers are running")
	// ErrNotShared: with Options.Workers > 1, a Go value already bound to
	// another agent, not marked with Shared (see Agent.Bind).
	ErrNotShared = errors.New("a Go value bound to several agents must be marked host.Shared when the host has several workers")
	// ErrOverruns: an agent suspended because Options.MaxOverruns of its
	// callbacks ran past the time budget.
	ErrOverruns = errors.New("too many runaway callbacks")
	// ErrInvalidDefinition: matched by every error of LoadFile, LoadString
	// and Reload that is a problem of the script (it does not compile,
	// fails while it runs, or returns an invalid definition): the error is
	// an ErrorList with each problem's file and line. A file that
	// cannot be read gives an fs error instead.
	ErrInvalidDefinition = scripterr.ErrInvalidDefinition
	// ErrBadDt: Tick given a dt that is negative, NaN or infinite.
	ErrBadDt = errors.New("dt must be a finite number ≥ 0")
	// ErrBadPath: Agent.SetPath given an empty path, or one that goes
	// through a value that is not a table.
	ErrBadPath = errors.New("not a table on the path")
	// ErrWrongBehaviour: a behaviour from another host.
	ErrWrongBehaviour = errors.New("behaviour belongs to another host")
	// ErrWrongHost: an agent from another host (hosttool.Observation.Follow).
	ErrWrongHost = errors.New("agent belongs to another host")
)

// errHostClosed is what a closed host's methods return.
var errHostClosed = fmt.Errorf("the host is %w", ErrClosed)

// The errors of scripts, shared with the Lua machine, named here so a game
// imports one package.
var (
	// ErrBudget is wrapped by a callback (or a script being loaded) stopped
	// for running past its time or instruction budget.
	ErrBudget = scripterr.ErrBudget
	// ErrMemoryLimit is wrapped by a callback stopped by Options.MemoryLimit,
	// and by the error of an agent suspended by it.
	ErrMemoryLimit = scripterr.ErrMemoryLimit
)

type (
	// ErrorList is every problem found in a script that did not load or
	// reload, each with its file and line: LoadFile, LoadString, Reload and
	// ReloadSource return one (errors.As), sorted by position; its Error
	// method prints one "file:line: message" per line.
	ErrorList = scripterr.ErrorList
	// Problem is one entry of an ErrorList: Pos (where) and Msg (what).
	Problem = scripterr.Error
	// Pos is a file and a 1-based line (0: unknown); String prints
	// "file:line".
	Pos = scripterr.Pos
	// BudgetError is a call stopped by a limit (errors.As): Pos is where
	// the script was, Budget the time budget it ran past (the callback's,
	// or the agent's tick's when Tick is set), Steps the instruction
	// budget, Memory the memory limit, Cause the context's cause for a
	// stop by TickContext's ctx. It wraps ErrBudget, ErrMemoryLimit or that
	// cause.
	BudgetError = scripterr.BudgetError
)

// ScriptError is a callback that failed: it raised a Lua error, returned a
// score that is not a number, or asked for a stack change that could not be
// made. The agent goes on: the callback counts as false / 0 / no-op.
type ScriptError struct {
	Script    string   // file the failing code is in, when Lua names it
	Line      int      // 0 when unknown
	Agent     int      // the agent's id (spawn number, from 1)
	Tick      int      // the agent's tick count when it failed (0: at spawn)
	State     string   // state path, "" for the root
	Callback  Callback // which kind of call failed (CallbackEnter, …)
	Msg       string   // the message without the position
	Traceback string   // Lua stack traceback, when there is one
	Err       error    // the underlying error
	// Count is how many times this (script, line, callback) has failed in
	// the host so far, when the error reaches Options.OnError.
	Count int
	// Suspends is true for the error that suspended the agent (the Suspend
	// fault policy, MaxOverruns, the memory limit): such an error always
	// reaches Options.OnError, whatever its Count.
	Suspends bool
	// Suspension is why that error suspended the agent (NotSuspended for
	// every other error); Suspension.Remedy says what lets it tick again.
	Suspension SuspendReason
}

// Error formats the error as "file:line: message (agent N, state S,
// callback C)"; the error that suspended the agent says after the message
// what lets it tick again (SuspendReason.Remedy).
func (e *ScriptError) Error() string {
	pos := scripterr.Pos{File: e.Script, Line: e.Line}.String()
	state := e.State
	if state == "" {
		state = "<root>"
	}
	if pos != "" {
		pos += ": "
	}
	msg := e.Msg
	if r := e.Suspension.Remedy(); r != "" {
		msg += " (" + r + ")"
	}
	if e.Count > 1 {
		return fmt.Sprintf("%s%s (agent %d, state %s, %s; failed %d times)", pos, msg, e.Agent, state, e.Callback, e.Count)
	}
	return fmt.Sprintf("%s%s (agent %d, state %s, %s)", pos, msg, e.Agent, state, e.Callback)
}

// Unwrap returns the underlying error.
func (e *ScriptError) Unwrap() error { return e.Err }

// Message is "file:line: message" as Lua reports it (what agent:errors() shows).
func (e *ScriptError) Message() string {
	if e.Script == "" {
		return e.Msg
	}
	return scripterr.Pos{File: e.Script, Line: e.Line}.String() + ": " + e.Msg
}

func newScriptError(a *Agent, n *place, callback Callback, err error) *ScriptError {
	msg := scripterr.ErrorMessage(err)
	pos, rest := scripterr.SplitPos(msg)
	if rest == "__len undefined" { // gopher-lua's words for # of a value without a length
		rest = lengthMsg
	}
	se := &ScriptError{
		Script: pos.File, Line: pos.Line, Agent: a.id, Tick: a.ticks,
		State: n.path, Callback: callback, Msg: rest, Traceback: scripterr.Traceback(err), Err: scripterr.Detach(err),
	}
	if se.Script == "" {
		// An error value that is not a string carries no position: the
		// traceback's first Lua frame has it.
		se.Script, se.Line = tracebackPos(se.Traceback)
	}
	if se.Script == "" {
		// Errors raised by the engine itself (stack rules, NaN scores) point
		// at the definition of the state.
		se.Script, se.Line = n.def.Pos.File, n.def.Pos.Line
	}
	se.Msg += a.nilFieldHint(se)
	return se
}

// tracebackPos is the file and line of the first Lua frame of a traceback
// ("\tscripts/x.lua:6: in function <…>"), or none.
func tracebackPos(tb string) (string, int) {
	for _, l := range strings.Split(tb, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "[G]") || strings.HasPrefix(l, "stack traceback") {
			continue
		}
		if p, _ := scripterr.SplitPos(l); p.File != "" && p.Line > 0 {
			return p.File, p.Line
		}
	}
	return "", 0
}

// nilOperation matches the errors of an operation on nil (arithmetic,
// comparison, concatenation, indexing).
var nilOperation = regexp.MustCompile(`\bnil\b.*\b(operation|compare|concatenate|index|arithmetic)|(operation|compare|concatenate|index|arithmetic).*\bnil\b`)

// lengthMsg is what # of a value that has no length (nil, a number, a
// boolean) raises.
const lengthMsg = "attempt to get the length of a value that is not a table or a string"

// ctxField finds the ctx.X in a line of Lua.
var ctxField = regexp.MustCompile(`\bctx\.([A-Za-z_][A-Za-z0-9_]*)`)

// nilFieldHint names the context field that is nil when an operation on
// nil failed on a line reading ctx.X: " (ctx.alertnes is nil; did you mean
// ctx.alertness?)". The line is read from the script file.
func (a *Agent) nilFieldHint(se *ScriptError) string {
	if se.Script == "" || se.Line <= 0 || !nilOperation.MatchString(se.Msg) && se.Msg != lengthMsg {
		return ""
	}
	line := a.h.sourceLine(se.Script, se.Line)
	if line == "" {
		return ""
	}
	var keys []string
	a.ctx.ForEach(func(k, _ lua.LValue) {
		if ks, ok := k.(lua.LString); ok {
			keys = append(keys, string(ks))
		}
	})
	for _, m := range ctxField.FindAllStringSubmatchIndex(line, -1) {
		name := line[m[2]:m[3]]
		if a.ctx.RawGetString(name) != lua.LNil || assigned(line[m[1]:]) {
			continue
		}
		hint := " (ctx." + name + " is nil"
		if best := suggest.Closest(name, keys); best != "" {
			hint += "; did you mean ctx." + best + "?"
		}
		return hint + ")"
	}
	if a.evName != "" && a.evNil {
		// No context field to blame, while handling an event that came
		// bare: the handler read its payload.
		return fmt.Sprintf(" (the payload of event %q is nil: it was sent with none; a handler that needs one can check it, e.g. when = function(_, p) return p ~= nil end)", a.evName)
	}
	return ""
}

// assigned tells whether the rest of a line after ctx.X makes it the
// target of an assignment ("ctx.X = …"), which is no read of a nil.
func assigned(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==")
}

// sourceLines caches the lines of script files, for error hints and for
// the line a suspension remembers: read once per file (errors may come
// every tick), dropped at each reload (which may have changed them).
type sourceLines struct {
	mu    sync.Mutex
	files map[string][]string
}

// sourceLine is line n of file, or "" when it cannot be read. Any
// goroutine may call it.
func (h *Host) sourceLine(file string, n int) string {
	c := &h.srcLines
	c.mu.Lock()
	defer c.mu.Unlock()
	lines, ok := c.files[file]
	if !ok {
		if len(c.files) >= 64 {
			clear(c.files)
		}
		if c.files == nil {
			c.files = map[string][]string{}
		}
		lines = readLines(file)
		c.files[file] = lines
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// readLines reads a script file's lines (nil when it cannot be read or is
// too large to be a script).
func readLines(file string) []string {
	st, err := os.Stat(file)
	if err != nil || !st.Mode().IsRegular() || st.Size() > luabind.MaxScriptSize {
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	return strings.Split(string(data), "\n")
}

// forgetSources drops the cached lines (a reload may have changed them).
func (h *Host) forgetSources() {
	h.srcLines.mu.Lock()
	clear(h.srcLines.files)
	h.srcLines.mu.Unlock()
}
