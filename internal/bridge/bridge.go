// Package bridge lets the module's own tools reach what package host keeps
// out of its public API: the Lua side of a host, the definition a
// behaviour runs, an agent's live context. luatest runs test files in a
// host's Lua state; inspect lints and draws the definition of a loaded
// behaviour; tests check the Lua stack. A game, which cannot import an
// internal package, sees only host's API.
//
// host fills the variables in its init; the arguments are *host.Host,
// *host.Behaviour and *host.Agent (typed any, since host imports this
// package). It imports luabind and gopher-lua only.
package bridge

import (
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

var (
	// VM returns the first worker's Lua side of a *host.Host.
	VM func(h any) *luabind.VM
	// Definition returns the validated definition a *host.Behaviour runs.
	Definition func(b any) *luabind.State
	// Context returns the live context table of a *host.Agent.
	Context func(a any) *lua.LTable
)
