package host

import (
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// DetachInspectors takes h's inspectors off it until the returned function
// puts them back, so that a benchmark can tick the same host, in the same
// memory, with and without them in turn. (The agents they follow keep
// recording their transitions meanwhile.)
func DetachInspectors(h *Host) (reattach func()) {
	saved := h.insps
	h.insps = nil
	return func() { h.insps = saved }
}

// VM is the Lua side of h's first worker, for tests that look at the Lua
// stack or run code beside the agents.
func VM(h *Host) *luabind.VM { return h.workers[0].vm }

// ContextTable is a's live context table.
func ContextTable(a *Agent) *lua.LTable { return a.ctx }
