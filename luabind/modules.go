package luabind

import (
	"sort"

	lua "github.com/yuin/gopher-lua"
)

// ReleaseModules drops the modules the behaviour whose root LoadProto
// returned has loaded, when a reload replaced it. (A reload needs no
// forgetting first: each load gets globals of its own, so its requires run
// the modules afresh; other mods keep theirs.)
func (vm *VM) ReleaseModules(root *State) {
	if root != nil && root.env != nil {
		vm.dropModules(root.env)
	}
}

func (vm *VM) dropModules(env *lua.LTable) {
	for k := range vm.modules {
		if k.env == env {
			delete(vm.modules, k)
		}
	}
}

// ModulesOf lists the files of the modules the behaviour whose root
// LoadProto returned has loaded by require (its own, not other mods'),
// sorted.
func (vm *VM) ModulesOf(root *State) []string {
	var out []string
	for k := range vm.modules {
		if root != nil && root.env != nil && k.env == root.env {
			out = append(out, k.path)
		}
	}
	sort.Strings(out)
	return out
}

// Modules lists the files of the modules loaded by require, sorted.
func (vm *VM) Modules() []string {
	seen := map[string]bool{}
	var out []string
	for k := range vm.modules {
		if !seen[k.path] {
			seen[k.path] = true
			out = append(out, k.path)
		}
	}
	sort.Strings(out)
	return out
}
