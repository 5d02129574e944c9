// Package defs is luaai's behaviour definitions on top of the Lua machine
// of package luabind: the require("luaai") module, the decoding and
// validation of ai.fsm, ai.utility, ai.regions and ai.tree tables into
// States, and the native conditions, scorers and curves that evaluate in
// Go.
//
// It knows nothing of agents or ticks: where a luaai function must act on the running agent
// (ai.push, ai.send, ai.state, ...) it calls the Runner interface, and
// ai.spawn calls the Spawner interface; package host implements both.
//
// # Concurrency
//
// A VM is owned by one goroutine.
package defs
