package host

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// Agent is one running instance of a behaviour: its context table, the
// active states, their stacks and timers, pending events and requests, and
// its random numbers.
//
// An Agent is used from the goroutine that owns its Host. While the
// workers tick, its read methods serve only its own callbacks (Caller's
// agent, on its worker's goroutine) and refuse every other caller, with a
// zero value, reported once to Options.OnError: another agent's state
// cannot be read mid-tick, as it may be changing on another worker. ID,
// Behaviour and UserData, which do not change while the workers tick, are
// served to every caller.
type Agent struct {
	// Hot: what every tick touches, first, packed into the struct's first
	// five cache lines (an agent's first touch in a tick is a cache miss,
	// and each line more is one more unless the tick's lookahead asked
	// for it; Agents are 64-byte aligned, each padded to a multiple of 64
	// bytes in its block: agentslab.go). The first line is all that
	// Host.Tick reads of an agent it skips (suspended, or not due at its
	// interval).
	suspension SuspendReason // NotSuspended while the agent ticks (suspend.go)
	ticking    bool
	// tickStopped: the agent's tick budget stopped this tick, and it was
	// reported (the callbacks it stops after that are not).
	tickStopped bool
	// The running callback, for the functions usable inside callbacks.
	curKind  callback
	curScore bool // cur is a utility candidate that is not active
	// requested: a machine may hold a pending request (ai.push/pop/replace,
	// a restored or reloaded one): the next tick's step 1 looks for them.
	requested bool
	// watch: the agent keeps its last decisions (WatchDecisions).
	watch bool
	// interval: tick interval (SetInterval); 0 and 1 both tick every host tick
	interval int
	id       int
	owed     float64 // seconds of ticks a cut-short TickContext skipped, for the next dt
	clock    float64
	ticks    int
	logs     int // ai.log lines in this tick (MaxLogLines)
	w        *worker

	h        *Host
	t        *layout // b's tree in w
	ctx      *lua.LTable
	cur      *place
	nodes    []placeRT   // by node id
	ms       []machineRT // by machine index
	visible  []event     // events this decide phase sees
	incoming []event     // events sent since, for the next tick
	inbox    []event     // ai.send_to messages from other agents, after incoming
	syncs    []*synced   // Agent.Sync
	path     []*place    // scratch: machines on the active path
	scores   []float64   // scratch: utility scores
	// followers: observations following the agent in full (its decisions,
	// transitions and log lines are kept for it whatever the hooks).
	followers int
	// End of the hot fields (296 bytes).

	bt []btRT // behaviour-tree nodes' records, by tree state's btBase + node index
	// lag and frameAt order the host's ticks after a frame deadline
	// (workers.go): the ticks the agent is owed, and the last host tick
	// that ticked it. Used only while Host.fair is set.
	lag     int32
	frameAt int
	// gap: the fsm a transition's run is between states in (between).
	gap *place
	// suspendAt and suspendText: the line whose failure suspended the
	// agent, and its text then (a reload that changes it resumes the agent).
	suspendAt   scripterr.Pos
	suspendText string

	kind string // SpawnOptions.Kind; "" for the script's name (Kind)
	b    *Behaviour
	pcg  *rand.PCG
	rng  *rand.Rand
	// ownPCG and ownRand: where pcg and rng point after seedRandom.
	ownPCG  rand.PCG
	ownRand rand.Rand
	order   []int    // scratch: random_top candidates
	parts   [][]Part // scratch: native scorers' parts, when decisions are traced

	errs      []*ScriptError
	dropped   int                 // errors MaxErrors discarded
	decisions map[string]Decision // last decision by machine path, when watched
	user      any                 // SetUserData
	removed   bool                // by Remove or Despawn
	spawnSeq  int                 // ai.spawn calls queued by this agent's callbacks
	msgSeq    int                 // ai.send_to calls made by this agent's callbacks
	sent      int                 // messages queued in tick sentAt (MaxMessagesPerTick)
	sentAt    int
	evFrom    int       // sender of the event being handled (ai.sender), 0 for none
	evName    string    // the event being handled, "" for none
	evNil     bool      // it came with no payload (for the hint of an error indexing it)
	bound     []uintptr // Go values this agent binds (Host.boundBy)
	overruns  int       // callbacks stopped by the time budget since spawn or Resume
}

type placeRT struct {
	time     float64 // seconds active (frozen while paused)
	every    float64 // seconds since the last timed update
	stepTime float64 // steps: seconds in the current item
	step     int     // steps: the current item, from 0 (len(steps): done)
	stepSeen bool    // steps: the current item ran in an earlier update
	treeTime float64 // a tree state: the dt of the updates its tree received
}

type machineRT struct {
	stack []int // child indices, top last
	// reads: where a utility machine's score plan last found the
	// context's fields (nil until its first planned decision, or from
	// the records' pool); the tick's lookahead reads the root's in its
	// first line.
	reads     *defs.Reads
	history   int // child on top when last left, -1 for none
	decideAcc float64
	req       request
	blocked   int // tick in which a request was applied here
}

type event struct {
	name     string
	payload  lua.LValue
	consumed bool
	from     int // the sending agent's id (ai.sender); 0: the game
	// at is the host tick whose end delivered a message into the inbox
	// (TickNumber then): Host.Deliver puts a message from another host
	// among those of the last one.
	at int
}

type callback uint8

const (
	cbNone callback = iota
	cbEnter
	cbExit
	cbUpdate
	cbPause
	cbResume
	cbReload
	cbRun
	cbSteps
	cbAction
	cbLock
	cbWhen
	cbScore
	cbCheck
	cbWaitUntil // a steps item's ai.wait_until: a condition, reported as "steps"
)

var callbackNames = [...]string{"", "enter", "exit", "update", "pause", "resume", "on_reload", "run", "steps", "action", "lock", "when", "score", "check", "wait_until"}

func (c callback) String() string { return callbackNames[c] }

// isHook: the callback may ask for push, pop and replace (hooks, actions,
// steps and behaviour-tree actions).
func (c callback) isHook() bool { return c >= cbEnter && c <= cbAction }

// newAgent makes the runtime of agent id running tree t of behaviour b on
// worker w: a record per placed state and per machine, every slice sized
// once. Spawn and Restore both build their agents with it; the caller sets
// the context, the random numbers and, for a restore, the saved state.
func (w *worker) newAgent(id int, b *Behaviour, t *layout) *Agent {
	a := w.takeAgent()
	a.h, a.w, a.id, a.b, a.t, a.requested = w.h, w, id, b, t, true
	a.nodes, a.ms, a.bt, a.path, a.scores = t.pool.take(t)
	t.pool.takeReads(t, a.ms)
	return a
}

// spawn makes an agent on w with id and runs its enter hooks; events are
// queued for its first tick before they run.
func (w *worker) spawn(id agentID, b *Behaviour, t *layout, ctx *lua.LTable, events []event) *Agent {
	a, _ := w.spawnWith(id, b, t, ctx, events, nil)
	return a
}

// spawnWith is spawn with setup run before the enter hooks (SpawnOptions);
// when setup fails, no agent is made.
func (w *worker) spawnWith(id agentID, b *Behaviour, t *layout, ctx *lua.LTable, events []event, setup func(*Agent) error) (*Agent, error) {
	h := w.h
	a := w.newAgent(id.id, b, t)
	a.ctx = ctx
	a.seedRandom(id.seed)
	a.incoming = append(a.incoming, events...)
	if setup != nil {
		if err := setup(a); err != nil {
			h.release(a)
			return nil, err
		}
	}
	if id.own {
		h.spawned = id.id // the host's numbering, which a game's id never moves
	}
	h.roster++
	old := w.vm.SetRunner(runner{a})
	a.enter(t.root, lua.LNil)
	w.vm.SetRunner(old)
	a.emitState(TransitionSpawn, "")
	return a, nil
}

// ID is the agent's id: its spawn number in the host (from 1), or the
// game's (Options.NewID, SpawnOptions.ID, Import's id map). It is served to
// every caller, also while the workers tick.
func (a *Agent) ID() int { return a.id }

// Behaviour is the behaviour the agent runs. It is served to every caller,
// also while the workers tick.
func (a *Agent) Behaviour() *Behaviour { return a.b }

// Ticks is the number of ticks the agent has run.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets 0, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Ticks() int {
	if !a.readable("Ticks") {
		return 0
	}
	return a.ticks
}

// Clock is the agent's game time: the sum of every tick's dt.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets 0, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Clock() float64 {
	if !a.readable("Clock") {
		return 0
	}
	return a.clock
}

// State is the active path, e.g. "combat.attack_player"; on a stack, the
// path through its top state. ok is false while nothing is active (a utility
// root without initial before its first decision).
//
// Behaviour trees and regions show in it (docs/lua-reference.md: Behaviour trees, Parallel
// regions): a tree state's running node path follows it in brackets
// ("combat.tree[sequence.attack]"), and the regions of an ai.regions state
// follow it in braces, in name order ("alive{movement.walk,weapon.reload}").
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets "", false, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) State() (path string, ok bool) {
	if !a.readable("State") {
		return "", false
	}
	return a.state()
}

// state is State for the engine, on the agent's own goroutine.
func (a *Agent) state() (path string, ok bool) {
	if a.t.regions {
		var b strings.Builder
		a.writeConfig(&b, a.t.root)
		s := strings.TrimPrefix(b.String(), ".")
		return s, s != ""
	}
	n := a.deepest()
	if n.bt != nil {
		if leaf := a.runningLeaf(n); leaf >= 0 {
			return n.btPaths[leaf], true
		}
	}
	if n == a.t.root {
		return "", false
	}
	return n.path, true
}

// writeConfig writes what is active below n, relative to it: ".child…"
// for a machine, "{region…,region…}" for regions, "[node.node]" for a
// running tree.
func (a *Agent) writeConfig(b *strings.Builder, n *place) {
	if n.bt != nil {
		if leaf := a.runningLeaf(n); leaf >= 0 {
			b.WriteByte('[')
			b.WriteString(n.bt.Nodes[leaf].Path)
			b.WriteByte(']')
		}
		return
	}
	if !n.isMachine() || n == a.gap {
		return
	}
	st := a.ms[n.mid].stack
	if len(st) == 0 {
		return
	}
	if n.isRegions() {
		b.WriteByte('{')
		for k, i := range st {
			if k > 0 {
				b.WriteByte(',')
			}
			c := n.children[i]
			b.WriteString(c.name)
			a.writeConfig(b, c)
		}
		b.WriteByte('}')
		return
	}
	c := n.children[st[len(st)-1]]
	b.WriteByte('.')
	b.WriteString(c.name)
	a.writeConfig(b, c)
}

// Path is State without the flag: "" while nothing is active.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets "", and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Path() string {
	if !a.readable("Path") {
		return ""
	}
	return a.statePath()
}

// statePath is Path for the engine, on the agent's own goroutine.
func (a *Agent) statePath() string {
	p, _ := a.state()
	return p
}

// eachActive calls fn for n and every active state below it (not the
// paused ones), each before the states below it: the active path, and
// every region of an ai.regions state in name order.
func (a *Agent) eachActive(n *place, fn func(*place)) {
	for {
		fn(n)
		if !n.isMachine() {
			return
		}
		st := a.ms[n.mid].stack
		if len(st) == 0 {
			return
		}
		if n.isRegions() {
			for _, i := range st {
				a.eachActive(n.children[i], fn)
			}
			return
		}
		n = n.children[st[len(st)-1]]
	}
}

// deepest is the last node of the active path (an ai.regions state, when
// the path reaches one: below it the active states branch).
func (a *Agent) deepest() *place {
	n := a.t.root
	for n.isMachine() && !n.isRegions() && n != a.gap {
		st := a.ms[n.mid].stack
		if len(st) == 0 {
			break
		}
		n = n.children[st[len(st)-1]]
	}
	return n
}

// Active reports whether a state is on the active path or paused on a stack
// (a paused machine's frozen subtree counts). A bare name matches at any
// depth; a dotted path must match from the root.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets false, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Active(nameOrPath string) bool {
	return a.readable("Active") && a.active(nameOrPath)
}

// active is Active for the engine, on the agent's own goroutine.
func (a *Agent) active(nameOrPath string) bool {
	if n, ok := a.t.byPath[nameOrPath]; ok && n != a.t.root {
		if a.live(n) {
			return true
		}
	}
	for _, n := range a.t.byName[nameOrPath] {
		if a.live(n) {
			return true
		}
	}
	return false
}

// live: the node is on its parent's stack, and the parent is live; during
// a push's run the covered state is paused, not active: it stays live.
func (a *Agent) live(n *place) bool {
	for ; n.parent != nil; n = n.parent {
		found := false
		for _, i := range a.ms[n.parent.mid].stack {
			if i == n.index {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Stack returns the stack of the fsm at path ("" for the root), bottom
// first, as state names.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets an error
// wrapping ErrReentrant, and the first refusal of each behaviour is
// reported to OnError.
func (a *Agent) Stack(path string) ([]string, error) {
	if !a.readable("Stack") {
		return nil, fmt.Errorf("stack of agent %d: read from another agent's callback while the workers tick: %w", a.id, ErrReentrant)
	}
	n, ok := a.t.byPath[path]
	if !ok || !n.isMachine() {
		return nil, fmt.Errorf("stack of %q: %w", path, ErrUnknownState)
	}
	var out []string
	for _, i := range a.ms[n.mid].stack {
		out = append(out, n.children[i].name)
	}
	return out, nil
}

// PausedStates lists the states paused on the stacks of the machines along the
// active path (pushed over, waiting for a pop), outermost machine first and
// bottom of each stack first, as paths; nil when no stack holds more than
// its active state.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets nil, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) PausedStates() []string {
	if !a.readable("PausedStates") {
		return nil
	}
	var out []string
	for _, n := range a.activeMachines() {
		st := a.ms[n.mid].stack
		if len(st) == 0 || n.isRegions() {
			continue
		}
		for _, i := range st[:len(st)-1] {
			out = append(out, n.children[i].path)
		}
	}
	return out
}

// usable is nil for an agent Tick, Send, Set, Bind and Snapshot may act on:
// ErrClosed once its host is closed or it was removed, ErrReentrant while
// the host's workers run scripts (a module function or a bound Go value
// calling in: the agent may be ticking on another worker's goroutine).
func (a *Agent) usable() error {
	if a.h.running {
		return fmt.Errorf("agent %d: %w", a.id, ErrReentrant)
	}
	return a.alive()
}

// alive is usable without the check for running workers: for agent:tick
// from Lua, which ticks an agent of the caller's own worker.
func (a *Agent) alive() error {
	switch {
	case a.h.closed:
		return fmt.Errorf("agent %d: %w", a.id, errHostClosed)
	case a.removed:
		return fmt.Errorf("agent %d: removed from its host: %w", a.id, ErrClosed)
	}
	return nil
}

// TakeErrors returns the callback errors reported for this agent since
// the last call, oldest first, and forgets them: the same *ScriptError
// values OnError receives (tick, file:line, traceback, Unwrap). At most
// Options.MaxErrors are kept; Dropped counts the older ones discarded.
//
// While the workers run scripts it returns nil and forgets nothing (to
// every caller, the agent's own callbacks too: it changes the agent); a
// call from another agent's callback is reported once to OnError.
func (a *Agent) TakeErrors() []*ScriptError {
	if a.h.running {
		a.readable("TakeErrors")
		return nil
	}
	return a.takeErrors()
}

// takeErrors is TakeErrors for the engine: ai.spawn's handles, on the
// goroutine of the worker the agent lives on.
func (a *Agent) takeErrors() []*ScriptError {
	if a.h.running {
		return nil
	}
	out := a.errs
	a.errs = nil
	return out
}

// SetUserData attaches a value of the game's (its entity, say) to the
// agent, for the game's own use: scripts never see it, snapshots do not
// save it. It returns ErrReentrant while the workers run scripts.
func (a *Agent) SetUserData(v any) error {
	if err := a.usable(); err != nil {
		return err
	}
	a.user = v
	return nil
}

// UserData is the value SetUserData attached, or nil. It is served to
// every caller, also while the workers tick (SetUserData is refused then).
func (a *Agent) UserData() any { return a.user }

// Dropped is how many errors of this agent Options.MaxErrors discarded
// before Errors returned them, since it was spawned.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets 0, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) Dropped() int {
	if !a.readable("Dropped") {
		return 0
	}
	return a.dropped
}

// WatchDecisions makes the agent keep the last decision of each of its
// utility machines (LastDecision) and, with Options.DecisionsOptIn, report
// its decisions to OnDecision. Off by default: a kept decision costs a copy
// of its scores at every decision. It returns ErrReentrant while the
// workers run scripts.
func (a *Agent) WatchDecisions(on bool) error {
	if err := a.usable(); err != nil {
		return err
	}
	a.watch = on
	if !on && a.followers == 0 {
		a.decisions = nil
	}
	return nil
}

// LastDecision returns the last decision of the utility machine at path
// ("" for the root) while the agent is watched; ok is false before the
// first one, or when the agent is not watched.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets no decision (ok false), and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) LastDecision(machine string) (d Decision, ok bool) {
	if !a.readable("LastDecision") {
		return Decision{}, false
	}
	d, ok = a.decisions[machine]
	return d, ok
}

// tracesDecisions reports whether decisions of this agent are built: kept
// for LastDecision or sent to OnDecision.
func (a *Agent) tracesDecisions() bool {
	return a.watch || a.followers > 0 || a.h.opts.OnDecision != nil && !a.h.opts.DecisionsOptIn
}
