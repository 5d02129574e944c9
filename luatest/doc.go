// Package luatest runs busted-style Lua test files (*_test.lua) in a host's
// Lua state (host.Host.RunLua): the runner behind `luaai test` (README:
// Agents from Lua, and tests).
//
// A file's body records its tests and describe blocks; a describe's body
// runs when the run reaches it (after the tests before it, as busted does);
// each `it` runs with the before_each hooks of its enclosing blocks
// (outer to inner) before it and their after_each hooks (inner to outer)
// after it. Every test body and hook is a budgeted call of the VM, so a
// runaway test stops like a runaway callback.
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
