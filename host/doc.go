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
// write it with Agent.Get, Number, String, Bool and Set; put a Go value in it
// with Agent.Bind (gopher-luar), so Lua calls its methods.
//
// # Errors
//
// Loading reports every problem of a script as a ErrorList of
// "file:line: message". A callback that fails at run time never stops the
// game: it is reported to Options.OnError as a *ScriptError (state path,
// callback, file:line, traceback), kept for Agent.Errors, and counts as
// false, score 0 or no-op.
//
// # Inspecting
//
// Inspector returns an http.Handler serving a web page that shows every
// agent live (state, stacks, context, utility scores, timers, errors, a
// history slider) and can pause, step, send events and set context values
// between ticks. Tick publishes what it shows; its handlers never touch a
// Lua state.
//
// # Concurrency
//
// A Lua state is not goroutine-safe. A Host owns one, and a Host and
// everything it hands out (Behaviour, Agent) must be used from one goroutine
// at a time: the game loop's. Ticks, spawns, context reads and writes all
// happen there, between or during ticks.
package host
