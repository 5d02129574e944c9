package host

import (
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// VM is the Lua side of h's first worker, for tests that look at the Lua
// stack or run code beside the agents.
func VM(h *Host) *luabind.VM { return h.workers[0].vm }

// ContextTable is a's live context table.
func ContextTable(a *Agent) *lua.LTable { return a.ctx }
