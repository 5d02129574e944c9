package host

import (
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// VM is the Lua side of h's first worker, for tests that look at the Lua
// stack or run code beside the agents.
func VM(h *Host) *defs.VM { return h.workers[0].vm }

// ContextTable is a's live context table.
func ContextTable(a *Agent) *lua.LTable { return a.ctx }

// KindsWithoutTicker lists the tree node kinds that have no tick function.
func KindsWithoutTicker() []string {
	var out []string
	for k := range defs.BTKindCount {
		if btTickers[k] == nil {
			out = append(out, k.String())
		}
	}
	return out
}
