package luabind

// Isolation between mods (docs/safety.md, Isolation).
//
// Every behaviour file runs with a global table of its own (newEnv): the
// standard functions, its own _G (the table itself) and package, and the
// libraries string, table, math, os, coroutine and luaai as read-only
// views. What the file requires runs with the same globals, and is loaded
// once per global table, so two mods that require one library get one
// instance each; load() and loadstring() compile chunks into the caller's
// globals too. Nothing a mod does to its globals — _G.x, rawset(_G, …),
// setmetatable(_G, …), replacing tostring — reaches another mod.
//
// A read-only library is an empty table whose metatable reads through to
// the real one and raises on assignment; pairs, next, ipairs and rawget see
// the real table, and rawset and the table library refuse to write into it.
// The string metatable's __index is the real string table, so ("x"):rep(3)
// costs what it always did.

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// readOnlyLibs are the global tables every mod shares, read-only.
var readOnlyLibs = []string{lua.StringLibName, lua.TabLibName, lua.MathLibName, "os", lua.CoroutineLibName, "io", "debug"}

// isolate replaces the shared libraries in the VM's globals with read-only
// views, wraps the functions that could write through them, and records the
// globals a new mod starts with. It runs once, at the end of openLibs.
//
// It is long because it wraps, in one place, every table scripts share
// (the libraries, the luaai module, the game's modules) read-only.
func (vm *VM) isolate() {
	L := vm.L
	G := L.G.Global
	vm.readOnly = map[*lua.LTable]readOnlyTable{}
	for _, name := range readOnlyLibs {
		if t, ok := G.RawGetString(name).(*lua.LTable); ok {
			G.RawSetString(name, vm.newReadOnly(name, t))
		}
	}
	vm.luaai = vm.newReadOnly("luaai", vm.module)
	for name, fns := range vm.opts.Modules {
		t := L.CreateTable(0, len(fns))
		for fname, fn := range fns {
			if fn == nil {
				continue
			}
			if vm.guard.bud != nil {
				// A module call is work of the calling callback's own (the
				// time budget stops only calls that worked: budget.go).
				inner, ctx := fn, &vm.guard.bud.ctx
				fn = func(L *lua.LState) int {
					ctx.addWork(moduleCallWork)
					return inner(L)
				}
			}
			t.RawSetString(fname, L.NewFunction(fn))
		}
		if vm.goModules == nil {
			vm.goModules = map[string]lua.LValue{}
		}
		vm.goModules[name] = vm.newReadOnly(name, t)
	}

	real := func(v lua.LValue) lua.LValue {
		if t, ok := v.(*lua.LTable); ok {
			if ro, ok := vm.readOnly[t]; ok {
				return ro.real
			}
		}
		return v
	}
	refuse := func(L *lua.LState, n int, fn string) {
		if t, ok := L.Get(n).(*lua.LTable); ok {
			if ro, ok := vm.readOnly[t]; ok {
				L.RaiseError("%s: the %s library is read-only", fn, ro.name)
			}
		}
	}
	wrapG := func(tab *lua.LTable, name string, pre func(L *lua.LState)) {
		fn, ok := tab.RawGetString(name).(*lua.LFunction)
		if !ok || !fn.IsG {
			return
		}
		g := fn.GFunction
		wrapped := L.NewFunction(func(L *lua.LState) int {
			pre(L)
			return g(L)
		})
		// pairs and ipairs return their iterator from an upvalue: keep it.
		wrapped.Upvalues = fn.Upvalues
		tab.RawSetString(name, wrapped)
	}
	through := func(L *lua.LState) { L.Replace(1, real(L.Get(1))) }
	for _, name := range []string{"pairs", "ipairs", "next", "rawget"} {
		wrapG(G, name, through)
	}
	wrapG(G, "rawset", func(L *lua.LState) { refuse(L, 1, "rawset") })
	if tab, ok := real(G.RawGetString(lua.TabLibName)).(*lua.LTable); ok {
		for _, name := range []string{"insert", "remove", "sort"} {
			name := name
			wrapG(tab, name, func(L *lua.LState) { refuse(L, 1, "table."+name) })
		}
	}

	vm.pristine = map[string]lua.LValue{}
	G.ForEach(func(k, v lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			vm.pristine[string(s)] = v
		}
	})
}

// readOnlyTable is what a read-only view stands for.
type readOnlyTable struct {
	name string
	real *lua.LTable
}

// newReadOnly makes the read-only view of real.
func (vm *VM) newReadOnly(name string, real *lua.LTable) *lua.LTable {
	L := vm.L
	proxy := L.CreateTable(0, 0)
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", real)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("cannot assign %s.%s: the %s library is read-only", name, fieldName(L.Get(2)), name)
		return 0
	}))
	mt.RawSetString("__metatable", lua.LString(name+" (read-only)"))
	L.SetMetatable(proxy, mt)
	vm.readOnly[proxy] = readOnlyTable{name: name, real: real}
	return proxy
}

func fieldName(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok {
		return string(s)
	}
	return fmt.Sprintf("[%s]", k.String())
}

// newEnv is a fresh global table for one mod: the VM's standard globals as
// they were when it opened, _G naming the table itself, and a package
// table of its own.
func (vm *VM) newEnv() *lua.LTable {
	L := vm.L
	env := L.CreateTable(0, len(vm.pristine)+2)
	for k, v := range vm.pristine {
		env.RawSetString(k, v)
	}
	env.RawSetString("_G", env)
	env.RawSetString("package", newPackage(L))
	return env
}

// Package path and cpath strings: what package.path and package.cpath hold
// when a mod starts. They describe luaai's search (a module name's dots
// become folders, name.lua or name/init.lua, next to the calling file and
// in the script roots) and no C modules. A script may change them, as spec
// helpers do (package.path = package.path .. ";./?/init.lua"); the script
// roots alone decide what require loads.
const (
	packagePath  = "./?.lua;./?/init.lua"
	packageCPath = ""
)

// newPackage is a mod's package table: loaded and preload tables (which
// require does not consult) and the path strings, without loadlib, path
// searching or C loaders.
func newPackage(L *lua.LState) *lua.LTable {
	pkg := L.CreateTable(0, 4)
	pkg.RawSetString("loaded", L.CreateTable(0, 0))
	pkg.RawSetString("preload", L.CreateTable(0, 0))
	pkg.RawSetString("path", lua.LString(packagePath))
	pkg.RawSetString("cpath", lua.LString(packageCPath))
	return pkg
}

// callerEnv is the global table of the Lua function that called the running
// Go function: the mod it belongs to. Without one, the VM's globals.
func callerEnv(L *lua.LState) *lua.LTable {
	for level := 1; level < 8; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		fn, err := L.GetInfo("f", dbg, lua.LNil)
		if err != nil {
			break
		}
		if f, ok := fn.(*lua.LFunction); ok && !f.IsG && f.Env != nil {
			return f.Env
		}
	}
	return L.G.Global
}
