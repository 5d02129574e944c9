package luabind

import (
	"sort"

	lua "github.com/yuin/gopher-lua"
)

// ForgetModules drops every module loaded by require (luaai stays), so a
// reload re-runs what the script requires. The returned function puts them
// back, for a reload that fails.
func (vm *VM) ForgetModules() (restore func()) {
	old := vm.modules
	vm.modules = make(map[moduleKey]lua.LValue)
	return func() { vm.modules = old }
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
