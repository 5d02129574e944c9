// Package luatest runs busted-style Lua test files (*_test.lua) in a host's
// Lua state (hosttool.RunLua): the runner behind `luaai test` (README:
// Agents from Lua, and tests).
//
// A file's body records its tests and describe blocks; a describe's body
// runs when the run reaches it (after the tests before it, as busted does);
// each `it` runs with the before_each hooks of its enclosing blocks
// (outer to inner) before it and their after_each hooks (inner to outer)
// after it. Every test body and hook is a budgeted call of the VM, so a
// runaway test stops like a runaway callback.
//
// Its files: run.go (running a file), report.go (what a run says), outcome.go
// (each test's outcome for Options.OnCase, and what a test's end undoes),
// collect.go (the describe/it/insulate globals that collect tests),
// assert.go (the assert table), errors.go (assertions about errors),
// compare.go and values.go (comparing and showing Lua values), spy.go
// (spies, stubs and mocks), modules.go (busted's own modules: luassert,
// say), reload.go (reload, a test's reload of a behaviour).
//
// It imports host, luabind/defs, luabind, internal/suggest and gopher-lua.
// Nothing in luabind or host may import it: the runner is a tool built on
// the engine, not part of it.
//
// # Concurrency
//
// RunFile uses the VM it is given, on the calling goroutine; a VM is owned
// by one goroutine.
package luatest
