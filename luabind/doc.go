// Package luabind is the Lua machine luaai runs on: sandboxed gopher-lua
// states with their budgets (time, instructions, memory), the library
// functions luaai replaces, the compile step and dialect, require and its
// roots, isolation between mods, and protected calls that leave the Lua
// stack balanced.
//
// Its files by concern: vm.go (the state), sandbox.go (what scripts get),
// isolation.go (a global table per mod, read-only libraries), compile.go
// (every chunk's pipeline: parse, internal/astpass's depth check,
// internal/dialect, internal/astpass's `..` rewrite to concat.go's capped
// cat), require.go and modules.go (files, roots, the modules loaded),
// files.go (reading scripts), strlib.go, tablib.go, colib.go, mathlib.go,
// oslib.go, patterns.go (the library functions luaai replaces), budget.go
// (the watchdog of the time, instruction and memory budgets; budgetctx.go
// the context the VM polls and the budgeted calls, budgeterr.go their
// errors, memory.go the heap side), call.go (protected calls and their
// errors), plain.go and togo.go (plain values between Go and Lua),
// luasrc.go (the one writer of Lua literals).
//
// It imports its internal packages (astpass, dialect, pattern, syntax),
// internal/safefile and gopher-lua; it knows nothing of behaviour
// definitions: package luabind/defs, on top of it, gives require("luaai")
// through Options.Module and the running agent's generator through
// Options.Rand. It must not import defs, host, luatest, inspect, inspector
// or anything above it. A game should import host, not this package.
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
