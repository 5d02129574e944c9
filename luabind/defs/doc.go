// Package defs is luaai's behaviour definitions on top of the Lua machine
// of package luabind: the require("luaai") module, the decoding and
// validation of ai.fsm, ai.utility, ai.regions and ai.tree tables into
// States, and the native conditions, scorers and curves that evaluate in
// Go.
//
// Its files by concern: vm.go (a luabind.VM with the luaai module and the
// running agent), state.go (the definition types, CheckRoot), module.go
// (the luaai module, LoadBehaviour, LoadProto), defs.go and readers.go
// (decoding definitions), tree.go and btkinds.go (behaviour-tree nodes and
// steps; the kinds of node as one table), agent.go (Runner, Spawner and
// LuaAgent, which host implements; Cond and Scorer), natives.go and
// curve.go (native conditions and scorers: conditions.go, scorers.go, the
// ai.* constructors in natives.go), fastcond.go (Lua conditions that only
// compare a field, evaluated in Go), ctxfields.go and boundfields.go (the
// context fields natives read, bound Go values included), describe.go
// (naming natives, the fields they read), hints.go (what code reads and
// compares with: the hints explore builds inputs from), walk.go (the one
// walk over a definition), sources.go (where states are written, through
// luabind/internal/srcpos), modules.go (the modules a behaviour loaded).
//
// It imports luabind, luabind/internal/srcpos, internal/suggest,
// gopher-lua and gopher-luar; luabind never imports it. It knows nothing
// of agents or ticks: where a luaai function must act on the running agent
// (ai.push, ai.send, ai.state, ...) it calls the Runner interface, and
// ai.spawn calls the Spawner interface; package host implements both.
//
// # Concurrency
//
// A VM is owned by one goroutine.
package defs
