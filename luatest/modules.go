package luatest

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// busted's own modules, as a spec helper requires them: require("luassert")
// is the file's assert table, require("say") a string store for assertion
// messages, luassert.spy, .stub, .mock and .match the globals of the same
// names, and require("busted") a table of busted's globals. require of any
// other name is the VM's require, unchanged.

// bustedModules are the modules a test file may require by name, from the
// globals installed for it.
func bustedModules(L *lua.LState, globals map[string]lua.LValue, say lua.LValue) map[string]lua.LValue {
	busted := L.NewTable()
	for name, v := range globals {
		if name != "require" {
			busted.RawSetString(name, v)
		}
	}
	return map[string]lua.LValue{
		"luassert":        globals["assert"],
		"luassert.assert": globals["assert"],
		"luassert.spy":    globals["spy"],
		"luassert.stub":   globals["stub"],
		"luassert.mock":   globals["mock"],
		"luassert.match":  globals["match"],
		"say":             say,
		"busted":          busted,
	}
}

// requireWith wraps the VM's require (a Go function): the names in mods
// come from there, any other goes to orig with the stack as it was, so
// that orig sees its caller's file and line as if called directly.
func requireWith(L *lua.LState, orig lua.LValue, mods map[string]lua.LValue) lua.LValue {
	fn, ok := orig.(*lua.LFunction)
	if !ok || !fn.IsG {
		return orig
	}
	wrapped := L.NewFunction(func(L *lua.LState) int {
		if name, ok := L.Get(1).(lua.LString); ok {
			if m, ok := mods[string(name)]; ok && m != nil {
				L.Push(m)
				return 1
			}
		}
		return fn.GFunction(L)
	})
	return wrapped
}

// unsupportedGlobals are busted's globals luaai test does not have.
var unsupportedGlobals = []string{"file", "randomize"}

// say is a string store by namespace, as busted's say module: say:set
// stores a string in the current namespace, say(key, {args}) formats it
// with string.format (the fallback namespace's when the current one lacks
// it), say[namespace] is a namespace's table. luassert reads it for the
// messages of registered assertions.
type say struct {
	registry          *lua.LTable
	current, fallback string
}

// sayGlobal makes the say module of one test file.
func (r *runner) sayGlobal(L *lua.LState) *lua.LTable {
	s := &say{registry: L.NewTable(), current: "en", fallback: "en"}
	r.say = s
	s.namespace(L, "en")
	t := L.NewTable()
	t.RawSetString("_registry", s.registry)
	t.RawSetString("set_namespace", L.NewFunction(func(L *lua.LState) int {
		s.current = L.CheckString(2)
		s.namespace(L, s.current)
		return 0
	}))
	t.RawSetString("set_fallback", L.NewFunction(func(L *lua.LState) int {
		s.fallback = L.CheckString(2)
		s.namespace(L, s.fallback)
		return 0
	}))
	t.RawSetString("get_namespace", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(s.current))
		return 1
	}))
	t.RawSetString("set", L.NewFunction(func(L *lua.LState) int {
		s.namespace(L, s.current).RawSet(L.CheckAny(2), L.Get(3))
		return 0
	}))
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.Push(s.registry.RawGet(L.Get(2)))
		return 1
	}))
	mt.RawSetString("__call", L.NewFunction(func(L *lua.LState) int {
		key := L.CheckAny(2)
		var vars []lua.LValue
		switch v := L.Get(3).(type) {
		case *lua.LNilType:
		case *lua.LTable:
			n := v.Len()
			if c, ok := v.RawGetString("n").(lua.LNumber); ok {
				n = max(n, int(math.Min(float64(c), 1<<20)))
			}
			for i := 1; i <= n; i++ {
				vars = append(vars, v.RawGetInt(i))
			}
		default:
			// As busted's say words it (its own spec checks the words).
			L.RaiseError("expected parameter table to be a table, got '%s'", v.Type())
		}
		msg, ok := s.format(L, key, vars)
		if !ok {
			L.Push(lua.LNil)
		} else {
			L.Push(lua.LString(msg))
		}
		return 1
	}))
	L.SetMetatable(t, mt)
	return t
}

// namespace is the table of namespace ns, made when missing.
func (s *say) namespace(L *lua.LState, ns string) *lua.LTable {
	t, ok := s.registry.RawGetString(ns).(*lua.LTable)
	if !ok {
		t = L.NewTable()
		s.registry.RawSetString(ns, t)
	}
	return t
}

// format is the string stored under key, formatted with vars (each shown
// with tostring) by the sandbox's string.format; false when none is
// stored.
func (s *say) format(L *lua.LState, key lua.LValue, vars []lua.LValue) (string, bool) {
	str := lua.LNil
	for _, ns := range []string{s.current, s.fallback} {
		if t, ok := s.registry.RawGetString(ns).(*lua.LTable); ok {
			if str = t.RawGet(key); str != lua.LNil {
				break
			}
		}
	}
	if str == lua.LNil {
		return "", false
	}
	text := L.ToStringMeta(str).String()
	if len(vars) == 0 {
		return text, true
	}
	format := L.GetField(L.GetGlobal(lua.StringLibName), "format")
	L.Push(format)
	L.Push(lua.LString(text))
	for _, v := range vars {
		L.Push(L.ToStringMeta(v))
	}
	L.Call(len(vars)+1, 1)
	out := L.ToStringMeta(L.Get(-1)).String()
	L.Pop(1)
	return out, true
}
