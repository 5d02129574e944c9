package luabind

// require and the script roots: which files a script may load.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/luaai/luaai/internal/safefile"
	"github.com/luaai/luaai/internal/scripterr"
	lua "github.com/yuin/gopher-lua"
)

// moduleKey names a loaded module: the mod's global table it was loaded
// into, and its file.
type moduleKey struct {
	env  *lua.LTable
	path string
}

// CallerFile is the chunk name of the Lua function that called the running Go
// function, or "" when there is none.
func CallerFile(L *lua.LState) string {
	for level := 1; level < 8; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return ""
		}
		if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil {
			return ""
		}
		if dbg.What != "G" && dbg.Source != "" && !strings.HasPrefix(dbg.Source, "=") && !strings.HasPrefix(dbg.Source, "<") {
			return dbg.Source
		}
	}
	return ""
}

// CallerPos is the file and line of the Lua code that called the running Go
// function.
func CallerPos(L *lua.LState) scripterr.Pos {
	p, _ := scripterr.SplitPos(L.Where(1) + " ")
	return p
}

// Resolve turns a script-relative name into a path inside the allowed roots:
// the folder of the calling script, then each configured root. Absolute paths
// and ".." are refused.
func (vm *VM) Resolve(from, name string) (string, error) {
	if name == "" || filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) {
		return "", fmt.Errorf("%q: %w", name, ErrOutsideRoots)
	}
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", fmt.Errorf("%q: \"..\" is not allowed: %w", name, ErrOutsideRoots)
		}
	}
	var dirs []string
	if from != "" {
		dirs = append(dirs, filepath.Dir(from))
	}
	dirs = append(dirs, vm.roots...)
	for _, d := range dirs {
		p := filepath.Join(d, name)
		st, err := os.Stat(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			// There, but unreadable: a loop of symbolic links, a
			// permission. Say so rather than "not found".
			if _, lerr := os.Lstat(p); lerr == nil {
				if errors.Is(err, syscall.ELOOP) {
					return "", fmt.Errorf("%q: symbolic links that lead to each other in a loop: %w", name, err)
				}
				return "", fmt.Errorf("%q: %w", name, err)
			}
		}
		if err == nil && !st.IsDir() {
			if !inside(d, p) {
				return "", fmt.Errorf("%q: a symbolic link leads out of %s: %w", name, d, ErrOutsideRoots)
			}
			if !st.Mode().IsRegular() {
				return "", fmt.Errorf("%q: %w (%s)", name, ErrNotRegular, safefile.Kind(st.Mode()))
			}
			if st.Size() > MaxScriptSize {
				return "", fmt.Errorf("%q: %w", name, scriptTooLarge(st.Size()))
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("%q not found next to %s or in the script roots: %w", name, displayDir(from), os.ErrNotExist)
}

// inside reports whether path, with symbolic links followed, is still
// inside dir (links followed too): a mod archive may carry links.
func inside(dir, path string) bool {
	realDir, err1 := filepath.EvalSymlinks(dir)
	realPath, err2 := filepath.EvalSymlinks(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(realDir, realPath)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func displayDir(from string) string {
	if from == "" {
		return "the script"
	}
	return filepath.Dir(from)
}

func (vm *VM) luaRequire(L *lua.LState) int {
	name := L.CheckString(1)
	if name == "luaai" {
		L.Push(vm.luaai)
		return 1
	}
	if m, ok := vm.goModules[name]; ok {
		L.Push(m)
		return 1
	}
	rel := strings.ReplaceAll(name, ".", "/") + ".lua" // a module name: lib.util
	switch {
	case strings.HasSuffix(name, ".lua"):
		rel = name // a path: lib/util.lua (Resolve refuses ".." and absolute paths)
	case strings.HasPrefix(name, "."):
		L.RaiseError("require %q: a module name cannot start with \".\": %v", name, ErrOutsideRoots)
	case strings.ContainsAny(name, `/\`):
		rel = name + ".lua" // a path without .lua: sub/mod, ../x (refused)
	}
	from := CallerFile(L)
	path, err := vm.Resolve(from, rel)
	if errors.Is(err, os.ErrNotExist) && !strings.HasSuffix(name, ".lua") {
		// A package folder: name/init.lua, as Lua's ?/init.lua.
		if p, err2 := vm.Resolve(from, strings.TrimSuffix(rel, ".lua")+"/init.lua"); err2 == nil {
			path, err = p, nil
		}
	}
	if err != nil {
		L.RaiseError("require %q: %v", name, err)
	}
	abs, _ := filepath.Abs(path)
	env := callerEnv(L)
	key := moduleKey{env, abs}
	if v, ok := vm.modules[key]; ok {
		L.Push(v)
		return 1
	}
	if vm.loading[key] {
		L.RaiseError("require %q: circular require", name)
	}
	size := 0
	if st, err := os.Stat(path); err == nil {
		size = int(st.Size())
	}
	proto, err := vm.budgetedCompile(L, "require", size, func() (*lua.FunctionProto, error) {
		return vm.opts.Cache.CompileFile(path)
	})
	if err != nil {
		L.RaiseError("require %q: %v", name, err)
	}
	vm.loading[key] = true
	defer delete(vm.loading, key)
	fn := L.NewFunctionFromProto(proto)
	fn.Env = env // a module runs with the globals of the mod that requires it
	L.Push(fn)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
		// Remembered for a definition error: a module that forgot its
		// return makes a state that is true.
		noReturn, _ := L.G.Registry.RawGetString(noReturnKey).(*lua.LTable)
		if noReturn == nil {
			noReturn = L.NewTable()
			L.G.Registry.RawSetString(noReturnKey, noReturn)
		}
		noReturn.RawSetString(name, lua.LString(filepath.Base(path)))
	}
	vm.modules[key] = v
	L.Push(v)
	return 1
}

// LoadedModules is which modules require has loaded, and their values: a
// snapshot SaveModules takes and RestoreModules puts back.
type LoadedModules struct{ m map[moduleKey]lua.LValue }

// SaveModules records the modules loaded now (busted's insulate saves
// package.loaded so).
func (vm *VM) SaveModules() LoadedModules {
	m := make(map[moduleKey]lua.LValue, len(vm.modules))
	for k, v := range vm.modules {
		m[k] = v
	}
	return LoadedModules{m}
}

// RestoreModules puts back the modules s recorded: a module loaded since
// is loaded afresh by its next require.
func (vm *VM) RestoreModules(s LoadedModules) {
	clear(vm.modules)
	for k, v := range s.m {
		vm.modules[k] = v
	}
}

// noReturnKey is the registry table of the modules whose chunk returned
// nothing (require gave true): module name → file.
const noReturnKey = "luaai modules without return"

// ModulesWithoutReturn gives the modules L's require loaded whose chunk
// returned nothing (require gave true), by module name → file name: what a
// definition error names when a state is true.
func ModulesWithoutReturn(L *lua.LState) map[string]string {
	t, _ := L.G.Registry.RawGetString(noReturnKey).(*lua.LTable)
	if t == nil {
		return nil
	}
	out := map[string]string{}
	t.ForEach(func(k, f lua.LValue) {
		out[lua.LVAsString(k)] = lua.LVAsString(f)
	})
	return out
}
