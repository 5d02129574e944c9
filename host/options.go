package host

import (
	"io"
	"time"
)

// FaultPolicy says what happens to an agent whose callback fails.
type FaultPolicy uint8

const (
	// FaultContinue: the failed callback counts as false, score 0 or
	// no-op and the agent goes on.
	FaultContinue FaultPolicy = iota
	// FaultSuspend: the agent finishes the tick in which a callback
	// failed, then stops ticking until Agent.Unsuspend.
	FaultSuspend
)

// Options configure a Host. The zero value works.
type Options struct {
	// Seed seeds every agent's random numbers (ai.random): an agent's stream
	// depends only on Seed and its id (or on SpawnOptions.Seed), so hosts
	// with the same Seed give an agent the same stream wherever it was
	// spawned. The default (zero) value is 0.
	Seed uint64
	// NewID, if set, gives every agent this host makes its id (Spawn, and
	// SpawnWith without SpawnOptions.ID; ai.spawn): the game's own ids,
	// unique across all its hosts (a range per host, or one counter for
	// the world). The host then never picks an id. It is called on the
	// game's goroutine; for ai.spawn during a tick, after the tick, in the
	// order of the spawning agent's id and then of its calls. An id below 1
	// or above MaxID (ErrBadID), or one in use in this host (ErrIDInUse),
	// fails the spawn (ai.spawn during a tick: reported to OnError for the
	// spawning agent). The default (zero) value numbers agents 1, 2, 3…,
	// skipping ids that imported agents hold.
	NewID func() int
	// Workers is the number of worker goroutines, each owning one Lua state
	// and a shard of the agents; Host.Tick ticks the shards in parallel.
	// Results do not depend on it, but Go values bound into contexts are
	// then called from several goroutines: see Agent.Bind. The default
	// (zero) value is 1, safe for a game that knows nothing of goroutines;
	// runtime.GOMAXPROCS(0) uses every core. More workers than
	// GOMAXPROCS gain nothing: they only take turns on the same cores.
	Workers int
	// Roots are extra folders scripts may require modules and spawn scripts
	// from, besides the folder of the script itself. The default (zero) value
	// is none.
	Roots []string
	// MaxStackDepth limits the depth of every fsm's stack; a push beyond it is
	// reported and does not happen. The default (zero) value is 32.
	MaxStackDepth int
	// MaxErrors bounds the callback errors an agent keeps until Agent.TakeErrors
	// is called; older ones are dropped. The default (zero) value is 256.
	MaxErrors int
	// Stdout receives what scripts print with print(). The default (zero)
	// value is os.Stdout: on a server, mods' prints go to the server's
	// standard output; set io.Discard, or a writer into the server's log.
	Stdout io.Writer
	// Budget is how much CPU time one callback may use before it is
	// stopped and reported like an error (errors.Is ErrBudget), so
	// a script that loops forever cannot hang the game. It charges the
	// work the callback makes its worker's thread do, whatever does it
	// (Lua, the libraries, the game's module functions), and never time it
	// waits (descheduled behind other workers, the GC or other processes,
	// blocked in a slow module function). A callback is stopped at its
	// next Lua instruction after it used up its budget (the overshoot is
	// bounded). On platforms other than Linux the budget is
	// wall time, and only a callback that kept working (a few thousand Lua
	// instructions, or the sandbox's Go work) is stopped. It costs a little
	// per Lua instruction and per call (the reference's performance section
	// has the measurements).
	// The default (zero) value is DefaultBudget; a negative value turns the
	// budget off.
	Budget time.Duration
	// AgentTickBudget bounds one agent's tick as a whole: all of its
	// callbacks (a parallel of a hundred slow actions) and the engine's own
	// work for it (events against transitions: the decide phase indexes
	// pending events by name, so it costs in proportion to the events plus
	// the transitions it tries, and its loops stop once the tick is over),
	// charged as for Budget (the CPU time of the worker's thread). Past it,
	// the running callback is stopped, the rest of the agent's tick is
	// skipped (callbacks count as failed, without a report each), and one
	// error is reported that wraps ErrBudget and counts as an overrun
	// (MaxOverruns). Events the cut decide phase did not consume are
	// dropped like every event no transition consumed (OnEventDropped
	// receives them), not kept for the next tick: the next tick sees only
	// what was sent since. The default (zero) value is four times Budget
	// (DefaultAgentTickBudget with the default Budget; off when Budget is
	// off); a negative value turns it off.
	AgentTickBudget time.Duration
	// BudgetSteps, if set, is a budget of Lua instructions per callback,
	// checked besides Budget: a callback that runs more is stopped and
	// reported like one past its time (errors.Is ErrBudget), at the
	// same instruction on every machine, so a recorded run replays its
	// stops exactly (set Budget high, or off, to rely on it alone). It costs
	// about a nanosecond per instruction. The default (zero) value is none.
	BudgetSteps int64
	// LoadBudget is the same for running a script's main chunk when it is
	// loaded or reloaded. The default (zero) value is DefaultLoadBudget; a
	// negative value turns it off.
	LoadBudget time.Duration
	// Modules give scripts a game API written in Go: require("game") in a
	// script returns a read-only table of Modules["game"]'s functions
	// (func(L *lua.LState) int, gopher-lua's convention: arguments with
	// L.CheckNumber and friends, results pushed). They run on the worker's
	// goroutine, inside the calling callback and its budget, which cannot
	// interrupt Go code: keep them quick, and with Workers > 1 safe to call
	// from several goroutines. A name may not be "luaai" and shadows any
	// file of the same name. The default (zero) value is none.
	Modules map[string]Module
	// Funcs give scripts typed Go functions, converted once by Func when
	// the host is made (an unconvertible one is New's error):
	// Funcs["game"]["move"] = func(a *host.Agent, x, y float64) error {…}
	// is game.move(x, y) in Lua, for the agent whose callback calls it. A
	// module may hold both Modules and Funcs entries, under different
	// names. The same rules as Modules hold (the worker's goroutine, the
	// callback's budget). The default (zero) value is none.
	Funcs map[string]map[string]any
	// Profile times every Lua callback (hosttool.ProfileOf: calls and time per
	// function, callback kind and state, and the ticks' time beside them).
	// It costs two clock reads per callback. The default (zero) value is
	// false.
	Profile bool
	// Coverage counts which parts of the behaviours run (hosttool.Coverage):
	// states entered, transitions fired, tree nodes ticked, step items
	// reached, utility children chosen. The default (zero) value is false.
	Coverage bool
	// MemoryLimit bounds the memory scripts hold and allocate, in bytes. A
	// callback (or a script's main chunk) that makes the heap grow past
	// what is left of it is stopped with an error wrapping
	// ErrMemoryLimit (file:line and state path, like any failed
	// callback); after a tick in which the agents together hold more than
	// the limit — their contexts and pending payloads, and each script's
	// own data (globals, upvalues, modules) shared among its agents — the
	// largest are suspended (whatever Faults says) with such an error until
	// the rest fit. A suspended agent leaves that account: one hog never
	// gets the others suspended; but it keeps what it holds (Remove frees
	// it), so while the agents hold more than the limit in all, the other
	// agents of a script with agents suspended for memory are suspended
	// too. What is measured: tables by capacity (array slots holding nil
	// included), strings, closures and their upvalues, coroutines whole
	// (their stacks, the locals of their suspended calls, the thread of a
	// coroutine.wrap function). Contexts are measured only
	// when the heap has grown since the last measure, so a host under its
	// limit pays one heap reading a tick. The heap is the process's: set
	// a limit well above what one agent needs, and run several workers only
	// with budgets you trust (growth is shared blame between callbacks
	// running at once). The default (zero) value is DefaultMemoryLimit; a
	// negative value turns it off.
	MemoryLimit int64
	// MaxString is the longest string string.rep, string.format,
	// table.concat and friends may build, in bytes. The default (zero)
	// value is 16 MiB.
	MaxString int
	// Now is the clock os.time and os.date read, so runs can replay. The
	// default (zero) value is time.Now.
	Now func() time.Time
	// Faults says what happens to an agent whose callback fails. The
	// default (zero) value is Continue.
	Faults FaultPolicy
	// MaxOverruns is how many of an agent's callbacks may run past the
	// time budget before the agent is suspended (whatever Faults says) and
	// reported with an error wrapping ErrOverruns: a runaway script would
	// otherwise cost the whole budget every tick. Agent.Unsuspend lets it tick
	// again and starts the count afresh. The default (zero) value is 3; a
	// negative value never suspends.
	MaxOverruns int
	// ReportAllErrors sends every failed callback to OnError. The default
	// (zero) value reports the first failure of each (script, line,
	// callback) and then its 10th, 100th, 1000th… with ScriptError.Count,
	// so a callback failing every tick for thousands of agents cannot flood
	// the log. Agent.TakeErrors is not affected.
	ReportAllErrors bool
	// MessagePolicy, if set, decides whether agent from may send event to
	// agent to with ai.send_to (to an agent that exists; to itself too):
	// false refuses it, and ai.send_to returns false, "refused" and
	// nothing reaches to. It runs on from's worker, inside the calling
	// callback and its budget, while other workers tick: it may read from
	// freely, but of to only what does not change during a tick (ID,
	// Behaviour, UserData) or the game's own data, and must be safe to
	// call from several goroutines when Workers > 1. A policy that panics
	// refuses the send and fails the sender's callback with a Lua error
	// ("ai.send_to: the message policy panicked on …" and the panic's
	// value); the host goes on. ai.send (an agent's event
	// to itself) does not ask it. The default (zero) value lets every
	// message through.
	MessagePolicy func(from, to *Agent, event string) bool
	// MaxMessagesPerTick bounds the messages one agent may queue in one
	// of its ticks, ai.send_to and ai.send together (its spawn-time enter
	// counts as tick 0): the call past it is a Lua error ("message quota
	// exceeded") in that agent's callback alone, and no other agent's messages are
	// ever refused for it. Sends that return false (no agent, refused) do
	// not count. A tick's messages therefore hold at most agents ×
	// MaxMessagesPerTick queued messages, each about 100 bytes plus its
	// payload's copy (at most luaval.MaxPlainEntries entries of about 40
	// bytes; strings are shared with the sender): with the default, a
	// thousand agents that all send small payloads up to the quota queue
	// about 100 MiB, and making the copies is charged to the senders'
	// Budget and AgentTickBudget. The default (zero) value is
	// DefaultMaxMessagesPerTick (1,024); a negative value is New's error.
	MaxMessagesPerTick int
	// Elsewhere, if set, is asked about every ai.send_to to an id this host
	// does not hold (an agent on another host of the game, for a world
	// split into zones or shards): true sends it there, and ai.send_to
	// returns true (the message counts against MaxMessagesPerTick and
	// goes to OnSendElsewhere after the tick); false makes ai.send_to
	// return false, "no agent". It runs like MessagePolicy: on the
	// sender's worker, inside its callback, while other workers tick (read
	// only what does not change during a tick: a routing table the game
	// updates between ticks); a panic fails the sender's callback and
	// sends nothing. The default (zero) value: with OnSendElsewhere set,
	// every such id is sent; without, none (ai.send_to returns false, "no
	// agent").
	Elsewhere func(from *Agent, to int, event string) bool

	// The hooks below are called on the goroutine that called Tick, Spawn or
	// Agent.Tick, after the ticks are done, ordered by agent id and tick —
	// never concurrently, whatever the number of workers.

	// OnTransition, if set, receives every state change of every agent.
	// The default (zero) value is none.
	OnTransition func(Transition)
	// OnError, if set, receives failed callbacks: the first failure of each
	// (script, line, callback) and then its 10th, 100th, 1000th… with
	// ScriptError.Count, unless ReportAllErrors is set. An error that
	// suspends an agent (ScriptError.Suspends: the Suspend fault policy,
	// MaxOverruns, the memory limit) is always delivered, never throttled.
	// The default (zero) value is none: errors are still kept for
	// Agent.TakeErrors.
	OnError func(*ScriptError)
	// OnLog, if set, receives every ai.log line. The default (zero) value
	// drops them.
	OnLog func(Log)
	// OnDecision, if set, receives every utility decision with every
	// candidate's score: of every agent, or with DecisionsOptIn only of the
	// agents that called Agent.WatchDecisions(true). The default (zero)
	// value is none (and costs nothing).
	OnDecision func(Decision)
	// DecisionsOptIn limits OnDecision to watched agents (a debug view of a
	// few agents among thousands). The default (zero) value is false.
	DecisionsOptIn bool
	// OnEventDropped, if set, receives every event that no transition
	// consumed in the decide phase that saw it (a typo in an event name, an
	// event sent to a state that does not listen). The default (zero) value
	// is none (and costs nothing).
	OnEventDropped func(DroppedEvent)
	// OnSendElsewhere, if set, receives the ai.send_to messages to agents
	// this host does not hold that Elsewhere let through, after the tick
	// that sent them, in sender order (sender id, then send order), for
	// the game to carry to the host that holds the receiver
	// (Host.Deliver there). It is called before the other hooks of the
	// tick. The default (zero) value is none.
	OnSendElsewhere func(Message)
	// OnReload, if set, receives the result of every reload. The default
	// (zero) value is none.
	OnReload func(ReloadResult)
}

// TransitionKind says what changed an agent's state. Its values are the
// words the CLI prints.
type TransitionKind string

// The kinds of Transition.
const (
	TransitionTo      TransitionKind = "to"      // a transition's `to`
	TransitionPush    TransitionKind = "push"    // a transition's `push`, or ai.push
	TransitionPop     TransitionKind = "pop"     // a transition's `pop`, or ai.pop
	TransitionReplace TransitionKind = "replace" // ai.replace
	TransitionSelect  TransitionKind = "select"  // a utility machine's decision
	TransitionReload  TransitionKind = "reload"  // a reload moved the agent (Reload, QueueReload)
	TransitionDespawn TransitionKind = "despawn" // Host.Despawn left every active state
	TransitionSpawn   TransitionKind = "spawn"   // the agent entered its initial states (From is "")
	TransitionRestore TransitionKind = "restore" // Host.Restore rebuilt the agent in its saved state (From is "")
	TransitionReset   TransitionKind = "reset"   // Agent.Reset took the agent back to its initial state
	TransitionRespawn TransitionKind = "respawn" // Agent.Respawn: its initial state with a fresh context
)

// Transition is one state change of one agent.
type Transition struct {
	Agent int            // the agent's id
	Tick  int            // the agent's tick count (0 for changes at spawn)
	Kind  TransitionKind // what changed it
	From  string         // path of the state left, paused or popped ("" when a utility machine had none)
	To    string         // path of the state entered or resumed
	// Event is the event that fired the transition ("" for none), and
	// Sender the id of the agent that sent it (ai.sender(); 0 for an
	// event from the game).
	Event  string
	Sender int
}

// Log is one ai.log line.
type Log struct {
	Agent int
	Tick  int
	State string // path of the running state
	Msg   string
}

// Decision is one utility decision: every candidate's score and the winner.
type Decision struct {
	Agent      int
	Tick       int
	Machine    string // path of the utility machine
	Candidates []Candidate
	Winner     string // path of the chosen child
	Kept       bool   // the active child was locked and kept
}

// Candidate is one child's score in a utility decision.
type Candidate struct {
	State string  // path
	Score float64 // after momentum
	// Parts are the values of a native scorer's direct sub-scorers (e.g.
	// the factors of ai.product), so a trace shows why it scored what it
	// did; nil for numbers and Lua functions.
	Parts []Part
}

// Part is the value of one sub-scorer of a native scorer, named as traces
// show it ("field(hunger)", "inverse(field(distance))").
type Part struct {
	Name  string
	Value float64
}

// DroppedEvent is an event no transition consumed in the decide phase
// that saw it: Options.OnEventDropped receives it.
type DroppedEvent struct {
	Agent int    // the agent's id
	Tick  int    // the tick whose decide phase saw it
	Event string // its name
	State string // the agent's state path when it was dropped
	// Sender is the id of the agent that sent it (ai.sender()); 0 for an
	// event from the game.
	Sender int
}

// Callback names the kind of script call that failed, in a ScriptError.
// Its values are the words the CLI and agent:errors() print.
type Callback string

// The callbacks a ScriptError names.
const (
	CallbackEnter      Callback = "enter"
	CallbackExit       Callback = "exit"
	CallbackUpdate     Callback = "update"
	CallbackPause      Callback = "pause"
	CallbackResume     Callback = "resume"
	CallbackReload     Callback = "on_reload"
	CallbackRun        Callback = "run"    // a transition's action
	CallbackSteps      Callback = "steps"  // an item of a state's steps
	CallbackAction     Callback = "action" // a behaviour-tree ai.action leaf
	CallbackCheck      Callback = "check"  // a behaviour-tree ai.check or ai.wait_until leaf
	CallbackLock       Callback = "lock"
	CallbackWhen       Callback = "when"
	CallbackScore      Callback = "score"
	CallbackTransition Callback = "transition" // a stack change the rules refused
	CallbackMemory     Callback = "memory"     // the agent was suspended by the memory limit
)
