package luabind

import (
	"sort"

	lua "github.com/yuin/gopher-lua"
)

// DropModules forgets the modules loaded by require with env as the
// requiring chunk's globals (one behaviour's), so that env's next require
// of them runs them afresh.
func (vm *VM) DropModules(env *lua.LTable) {
	for k := range vm.modules {
		if k.env == env {
			delete(vm.modules, k)
		}
	}
}

// ModulesIn lists the files of the modules loaded by require with env as
// the requiring chunk's globals, sorted.
func (vm *VM) ModulesIn(env *lua.LTable) []string {
	var out []string
	for k := range vm.modules {
		if env != nil && k.env == env {
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
