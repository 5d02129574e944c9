package defs

import (
	lua "github.com/yuin/gopher-lua"
)

// AgentLister lists the host's live agents for ai.agents: the Runner of a
// tick, or the Spawner outside one (a test file's code), implements it.
// host implements both.
type AgentLister interface {
	// Agents lists the ids of the live agents of a kind, or of a script
	// (a name ending in ".lua"), in id order; "" lists them all.
	Agents(what string) []int
}

// luaAgents is ai.agents([kind or script]): the ids of the live agents of
// that kind (the game's name for them, by default the script's name
// without .lua) or script ("villager.lua"), or of all of them, in id
// order, as a list.
func (vm *VM) luaAgents(L *lua.LState) int {
	what := ""
	switch v := L.Get(1).(type) {
	case *lua.LNilType:
	case lua.LString:
		what = string(v)
		if what == "" {
			L.ArgError(1, "a kind or a script name expected, got an empty string")
		}
	default:
		L.ArgError(1, "a kind or a script name (a string) expected, got a "+luaTypeName(v))
	}
	var lister AgentLister
	if l, ok := vm.runner.(AgentLister); ok {
		lister = l
	} else if l, ok := vm.spawner.(AgentLister); ok {
		lister = l
	}
	if lister == nil {
		L.RaiseError("ai.agents needs a host: call it inside a callback or a test")
	}
	ids := lister.Agents(what)
	t := L.CreateTable(len(ids), 0)
	for i, id := range ids {
		t.RawSetInt(i+1, lua.LNumber(id))
	}
	L.Push(t)
	return 1
}
