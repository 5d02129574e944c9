// Package luabind is the Lua machine luaai runs on: sandboxed gopher-lua
// states with their budgets (time, instructions, memory), the library
// functions luaai replaces, the compile step and dialect, require and its
// roots, isolation between mods, and protected calls that leave the Lua
// stack balanced.
//
// It knows nothing of behaviour definitions: package luabind/defs, on top
// of it, gives require("luaai") through Options.Module and the running
// agent's generator through Options.Rand. It is the door luaai's own tools
// use to the Lua machine; a game should import host, not this package.
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
