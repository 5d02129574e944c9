package defs

import (
	"math/rand/v2"
	"reflect"

	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// VM is a luabind.VM with require("luaai") and what its functions act on:
// the running agent, ai.spawn's spawner, the behaviours loaded by path.
//
// A VM is not safe for concurrent use: one goroutine owns it.
type VM struct {
	*luabind.VM

	// runner is the agent whose callback is running, or nil outside a tick.
	runner Runner
	// spawner creates agents for ai.spawn; nil means ai.spawn raises an error.
	spawner Spawner

	bound     map[reflect.Type]*boundType // boundField's knowledge of bound Go types
	module    *lua.LTable                 // the luaai module itself
	behaviour map[string]*State           // behaviours loaded by path (ai.spawn)
}

// NewVM opens a sandboxed Lua state (luabind.NewVM) with require("luaai")
// preloaded; math.random inside a tick uses the running agent's generator
// (Runner.Rand). It sets opts.Module and opts.Rand.
func NewVM(opts luabind.Options) *VM {
	vm := &VM{behaviour: map[string]*State{}}
	opts.Module = func(base *luabind.VM) *lua.LTable {
		vm.VM = base
		vm.module = vm.newModule()
		return vm.module
	}
	opts.Rand = func() *rand.Rand {
		if vm.runner == nil {
			return nil
		}
		return vm.runner.Rand()
	}
	luabind.NewVM(opts)
	return vm
}

// SetSpawner installs what ai.spawn calls.
func (vm *VM) SetSpawner(s Spawner) { vm.spawner = s }

// Spawner is what ai.spawn calls (nil: none installed).
func (vm *VM) Spawner() Spawner { return vm.spawner }

// SetRunner makes r the agent whose callbacks run next and returns the
// previous one, so nested ticks (an agent ticked from a test) restore it.
func (vm *VM) SetRunner(r Runner) Runner {
	old := vm.runner
	vm.runner = r
	return old
}

// Runner is the agent whose callbacks are running, nil outside a tick.
func (vm *VM) Runner() Runner { return vm.runner }
