// Package luabind is the Lua side of luaai: sandboxed gopher-lua states with
// require("luaai") preloaded, the decoding and validation of behaviour
// definitions (ai.fsm, ai.utility), the native conditions and scorers that
// evaluate in Go, protected calls that leave the Lua stack balanced, the
// budgets (time, instructions, memory).
//
// Its files by concern: vm.go (the state), sandbox.go (what scripts get),
// isolation.go (a global table per mod, read-only libraries), compile.go
// (every chunk's pipeline: parse, internal/astpass's depth check,
// internal/dialect, internal/astpass's `..` rewrite to concat.go's capped
// cat), require.go (files and roots), files.go (reading scripts),
// strlib.go, tablib.go, colib.go, mathlib.go, oslib.go, patterns.go (the
// library functions luaai replaces), budget.go (the watchdog of the time,
// instruction and memory budgets; budgetctx.go the context the VM polls
// and the budgeted calls, budgeterr.go their errors, memory.go the heap
// side), state.go (the definition
// types, CheckRoot), module.go (the luaai
// module), defs.go (definitions), tree.go and btkinds.go (behaviour-tree
// nodes and steps; the kinds of node as one table), natives.go and curve.go (native
// conditions and scorers: conditions.go, scorers.go, the ai.* constructors
// in natives.go), describe.go (naming natives, the fields they
// read), call.go (protected calls), walk.go (the one walk over a
// definition), sources.go (where states are written, through
// internal/srcpos).
//
// It imports its internal packages (astpass, dialect, pattern, srcpos,
// syntax), internal/safefile, internal/suggest and gopher-lua; it must not
// import host, luatest, inspect, inspector or anything above it.
//
// It knows nothing of agents or ticks: where a luaai function must act on
// the running agent (ai.push, ai.send, ai.state, ...) it calls the Runner
// interface, and ai.spawn calls the Spawner interface; package host
// implements both. A game should import host, not this package.
//
// # Sandbox
//
// Scripts get base (without dofile, loadfile, getfenv, setfenv,
// collectgarbage, module; load and loadstring take source text only),
// string, table, math, coroutine, os.time, os.clock and os.date, and a
// require that loads only from the folder of the calling script and the
// configured roots (no absolute paths, no ".."). There is no io, no
// os.execute, no debug library.
//
// # Concurrency
//
// A VM is owned by one goroutine.
package luabind
