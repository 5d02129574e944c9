// Package host is the engine a Go game embeds to run game AI written in Lua.
//
// Go owns the scheduling: finite state machines, hierarchical machines,
// utility selection and a pushdown stack on every fsm, behaviour trees
// (ai.tree), parallel regions (ai.regions) and steps that survive saves,
// with the tick semantics of the luaai contract (clock, deferred requests,
// decide, update). Lua owns the behaviour: state hooks, transition
// conditions, utility scorers and tree leaves are Lua functions sharing one
// context table per agent. Every piece of an agent's progress (stacks,
// timers, steps, running tree nodes, pending events and messages) is plain
// data that snapshots save and hot reloads carry over.
//
// A minimal game loop:
//
//	h, err := host.New(host.Options{Seed: 1})
//	if err != nil { ... }
//	defer h.Close()
//	guard, err := h.LoadFile("scripts/guard.lua") // file:line errors, refused whole
//	if err != nil { ... }
//	a, _ := h.Spawn(guard, map[string]any{"player": "none"})
//	for frame := 0; frame < 600; frame++ {
//		a.Set("player", "found") // the game writes the context between ticks
//		h.Tick(1.0 / 60)         // every agent: clock, requests, decide, update
//		fmt.Println(a.Path())    // "combat.walk_to_player"
//	}
//
// # Agents and contexts
//
// Each agent owns one Lua table, its context: defaults from the behaviour's
// `context` fields (deep-copied), then the overrides given to Spawn. Read and
// write it with Agent.Get, Number, Text, Bool and Set. Two ways put the
// game's objects in it:
//
//   - Agent.Sync (the fast binding) copies a struct's `lua`-tagged fields
//     into a plain table before each of the agent's ticks and back after
//     it: scripts read ctx.body.hp at table speed, and a snapshot saves it.
//   - Agent.Bind (the slow binding) puts the Go value itself in the context
//     with gopher-luar, so Lua calls its methods (ctx.body:MoveTo(x, y));
//     each access goes through reflection.
//
// SpawnWith attaches both, and the agent's UserData, before the enter
// hooks run. Module functions (Options.Modules, Options.Funcs) are the
// game's API for scripts; Caller tells one which agent called it.
//
// # Errors
//
// Loading reports every problem of a script as an ErrorList of Problems,
// each "file:line: message" (Pos). A callback that fails at run time never
// stops the game: it is reported to Options.OnError as a *ScriptError
// (state path, callback, file:line, traceback), kept for Agent.Errors, and
// counts as false, score 0 or no-op. A callback stopped by a limit wraps a
// *BudgetError (errors.As), and ErrBudget or ErrMemoryLimit (errors.Is).
// LogErrors and LogLines write errors and ai.log lines to a log/slog
// logger.
//
// # Limits
//
// Everything a script can use has an owner and a limit: Options.Budget
// (one callback), Options.AgentTickBudget (one agent's tick),
// Options.MemoryLimit (contexts and each script's own data), MaxOverruns
// (an agent whose callbacks keep running past their budget is suspended),
// MaxPendingEvents, and a frame deadline given to TickContext (what does
// not fit waits for the next tick, and its time is not lost). A suspended
// agent stays so across snapshots until Agent.Resume. The reference's Safety
// section lists each limit and its default.
//
// # Observing
//
// Host.Observe attaches a tool (the web inspector of package inspector, a
// recorder) that is called at the start and end of each Tick and receives
// transitions, errors and log lines; Observation.Follow keeps an agent's
// decisions for it. Agent.View and Behaviour.Structure give what such a
// tool shows as plain Go data. Pause, Step and Resume stop and step the
// ticks. The engine itself serves nothing.
//
// # Concurrency
//
// A Lua state is not goroutine-safe. A Host owns one Lua state per worker
// (Options.Workers), each ticking its own shard of the agents on its own
// goroutine during Host.Tick. A Host and everything it hands out
// (Behaviour, Agent) must otherwise be used from one goroutine at a time:
// the game loop's. Ticks, spawns, context reads and writes all happen
// there, between ticks, or in the hooks of Options (which run on it after
// the workers finish).
//
// Module functions and bound Go methods run on a worker's goroutine while
// the other workers tick: there, every Host and Agent method that changes
// agents returns ErrReentrant, Host.Tick from a hook too. Host.QueueReload
// may be used from any goroutine.
//
// Reads are checked too, so that a module function cannot race with the
// worker ticking another agent. While the workers tick (Host.Tick, a
// reload), an Agent's read methods serve only that agent's own callbacks:
// the agent Caller returns, on its worker's goroutine. Any other caller (a
// module function of another agent, whatever its worker, so that what a
// script sees does not depend on how agents are sharded) is refused: the
// method returns its zero value (nil, 0, "", false, the zero AgentView;
// Stack an error wrapping ErrReentrant), and the first refusal of each
// behaviour is reported to Options.OnError as a *ScriptError wrapping
// ErrReentrant, naming the method, at the line that called the module
// function. The read methods checked are Get, Context, Number, Text, Bool,
// State, Path, Active, Stack, Paused, Ticks, Clock, Suspended,
// SuspendReason, Dropped, LastDecision, View and Errors (which returns nil
// to every caller while the workers tick, as it forgets what it returns).
// ID, Behaviour and UserData do not change while the workers tick and are
// served to every caller; Snapshot returns ErrReentrant then. Between
// ticks, and in the hooks of Options, every read is served; checking costs
// one flag there. During a tick with several workers, a read of the
// caller's own agent costs a look-up of the calling thread (a system call
// on Linux, about 0.1 to 1 µs), and each worker keeps its goroutine on one
// OS thread while it ticks (runtime.LockOSThread). Read other agents
// between ticks and hand the scripts what they need, in their contexts or
// as events.
package host
