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
	vm.modules = map[string]lua.LValue{"luaai": old["luaai"]}
	return func() { vm.modules = old }
}

// Modules lists the files of the modules loaded by require, sorted.
func (vm *VM) Modules() []string {
	var out []string
	for k := range vm.modules {
		if k != "luaai" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
