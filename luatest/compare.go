package luatest

import (
	"github.com/luaai/luaai/internal/luatext"
	lua "github.com/yuin/gopher-lua"
)

// Comparing Lua values for the assertions: deep equality with the path of
// the first difference, raw equality, and how a key is written in a path.

func deepSame(a, b lua.LValue, path string, seen map[[2]*lua.LTable]bool) (same bool, at string) {
	d := deepDiff(a, b, path, seen)
	if d == nil {
		return true, ""
	}
	return false, d.path
}

// difference is where two values first differ, and what each holds there.
type difference struct {
	path string
	a, b lua.LValue
}

func deepDiff(a, b lua.LValue, path string, seen map[[2]*lua.LTable]bool) *difference {
	if m := matcherOf(a); m != nil {
		if m.accepts(b) {
			return nil
		}
		return &difference{path, a, b}
	}
	ta, ok1 := a.(*lua.LTable)
	tb, ok2 := b.(*lua.LTable)
	if !ok1 || !ok2 {
		if a.Type() == b.Type() && rawEqual(a, b) {
			return nil
		}
		return &difference{path, a, b}
	}
	if ta == tb {
		return nil
	}
	pair := [2]*lua.LTable{ta, tb}
	if seen[pair] {
		return nil
	}
	if seen == nil {
		seen = map[[2]*lua.LTable]bool{}
	}
	seen[pair] = true
	for _, k := range sortedKeys(ta) {
		if d := deepDiff(ta.RawGet(k), tb.RawGet(k), path+pathKey(k), seen); d != nil {
			return d
		}
	}
	for _, k := range sortedKeys(tb) {
		if ta.RawGet(k) == lua.LNil {
			return &difference{path + pathKey(k), lua.LNil, tb.RawGet(k)}
		}
	}
	return nil
}

// rawEqual is Lua's raw == on values of the same type.
func rawEqual(a, b lua.LValue) bool {
	switch av := a.(type) {
	case lua.LNumber:
		return av == b.(lua.LNumber)
	case lua.LString:
		return av == b.(lua.LString)
	case lua.LBool:
		return av == b.(lua.LBool)
	case *lua.LNilType:
		return true
	}
	return a == b
}

func pathKey(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok && luatext.IsName(string(s)) {
		return "." + string(s)
	}
	return "[" + formatValue(k) + "]"
}
