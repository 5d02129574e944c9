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
// RunFile's Result holds each test's Case, which a Go test turns into
// subtests with t.Run (see the example).
//
// # Concurrency
//
// RunFile runs on the calling goroutine in the host's Lua state: call it
// where the host is owned, never while it ticks on another goroutine.
// Options.OnCase is called on that goroutine too.
package luatest
