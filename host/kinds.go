package host

import (
	"path/filepath"
	"slices"
	"strings"
)

// Addressing agents: each agent has a kind, a name the game gives
// (SpawnOptions.Kind) or, by default, its script's name without folder and
// extension ("mods/guard.lua": "guard"). Scripts find agents by kind or by
// script with ai.agents, and games with Host.AgentsOf.

// Kind is the agent's kind: SpawnOptions.Kind, or its script's name
// without folder and extension.
func (a *Agent) Kind() string {
	if a.kind != "" {
		return a.kind
	}
	return DefaultKind(a.b.name)
}

// DefaultKind is the kind of an agent of the script at path when the game
// gives none: the file name without its folder and extension
// ("mods/guard.lua": "guard").
func DefaultKind(path string) string {
	base := filepath.Base(filepath.ToSlash(strings.TrimPrefix(path, "=")))
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// matches reports whether the agent is one of what: its kind, or, for a
// name ending in ".lua", its script (the path as loaded, or a path ending
// in it at a folder boundary: "guard.lua" finds "mods/guard.lua"). An
// empty what matches every agent.
func (a *Agent) matches(what string) bool {
	if what == "" {
		return true
	}
	if !strings.HasSuffix(what, ".lua") {
		return a.Kind() == what
	}
	script := filepath.ToSlash(a.b.name)
	what = filepath.ToSlash(what)
	return script == what || strings.HasSuffix(script, "/"+strings.TrimPrefix(what, "./"))
}

// AgentsOf lists the live agents of a kind, or of a script (a name ending
// in ".lua"), in id order; "" lists them all. It is what ai.agents returns
// to scripts, which also lists the agents a script spawned outside a tick
// and still holds (as luaai test files do).
func (h *Host) AgentsOf(what string) []*Agent {
	var out []*Agent
	for _, a := range h.agents {
		if !a.removed && a.matches(what) {
			out = append(out, a)
		}
	}
	return out
}

// agentIDs is ai.agents: AgentsOf, and the agents ai.spawn made outside
// a tick that a script still holds, as ids in id order.
func (h *Host) agentIDs(what string) []int {
	var ids []int
	for _, a := range h.AgentsOf(what) {
		ids = append(ids, a.id)
	}
	n := len(ids)
	for _, p := range h.loose {
		if a := p.Value(); a != nil && !a.removed && a.matches(what) {
			ids = append(ids, a.id)
		}
	}
	if len(ids) > n {
		slices.Sort(ids)
		ids = slices.Compact(ids)
	}
	return ids
}

// Agents is ai.agents during a tick: the agents listed when the tick
// began (an agent spawned during it is listed from the next), so every
// worker sees the same list whatever their order.
func (r runner) Agents(what string) []int { return r.a.h.agentIDs(what) }

// Agents is ai.agents outside a tick (a test file's code).
func (s luaSpawner) Agents(what string) []int { return s.w.h.agentIDs(what) }

// Agent is the agent behind an ai.spawn handle, nil while it is queued:
// for tools (luaai test's reload) that reach the host through Lua.
func (l *luaAgent) Agent() *Agent { return l.a }
