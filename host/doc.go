// Package host is the engine a Go game embeds to run game AI written in Lua.
//
// Go owns the scheduling (state machines, utility selection, pushdown
// stacks, behaviour trees, parallel regions, steps); Lua owns the
// behaviour: hooks, conditions, scorers and tree leaves sharing one context
// table per agent. An agent's whole progress is plain data that snapshots
// save and hot reloads carry over. A minimal game loop:
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
// # Errors
//
// Loading reports every problem of a script as an ErrorList, each
// "file:line: message". A callback that fails at run time never stops the
// game: it is reported to Options.OnError as a *ScriptError, kept for
// Agent.TakeErrors, and counts as false, score 0 or no-op. A callback stopped
// by a limit wraps ErrBudget or ErrMemoryLimit.
//
// # Limits
//
// Everything a script can use has a limit: Options.Budget (one callback),
// AgentTickBudget (one agent's tick), MemoryLimit, MaxOverruns (an agent
// that keeps overrunning is suspended) and a frame deadline given to
// TickContext. The reference's Safety section lists each with its default.
//
// # Concurrency
//
// A Host and what it hands out (Behaviour, Agent) belong to one goroutine,
// the game loop's; QueueReload and QueueReloadSource may be called from any.
// Module functions run on a worker's goroutine while other workers tick:
// there, methods that change agents return ErrReentrant, and an Agent's
// read methods serve only that agent's own callbacks (Caller), returning
// zero values to anyone else. docs/embedding.md gives the details.
package host
