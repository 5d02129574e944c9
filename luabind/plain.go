package luabind

// Plain data: a Lua value copied out of one Lua state to be rebuilt in
// another (ai.send_to's payloads cross workers' states).

import (
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// PlainTable is a copied Lua table: its keys and values, in the order
// they were read.
type PlainTable struct{ Keys, Vals []any }

// Plain limits: how deep tables nest and how many entries a value holds
// in all.
const (
	MaxPlainDepth   = 100
	MaxPlainEntries = 1 << 16
)

// ErrNotPlain: a value that is not plain data (nil, booleans, numbers,
// strings and tables of those, without metatables or cycles).
var ErrNotPlain = errors.New("not plain data")

// CopyPlain copies v out of its Lua state as nil, bool, float64, string
// or *PlainTable. Functions, userdata, threads, tables with metatables,
// cycles (a table met twice on one path), keys that are not strings,
// numbers or booleans, and values deeper or larger than the limits are an
// error naming where they are (".a.b").
func CopyPlain(v lua.LValue) (any, error) {
	entries := 0
	open := map[*lua.LTable]bool{}
	var cp func(v lua.LValue, at string, depth int) (any, error)
	cp = func(v lua.LValue, at string, depth int) (any, error) {
		switch x := v.(type) {
		case *lua.LNilType:
			return nil, nil
		case lua.LBool:
			return bool(x), nil
		case lua.LNumber:
			return float64(x), nil
		case lua.LString:
			return string(x), nil
		case *lua.LTable:
			where := at
			if where == "" {
				where = "the value"
			}
			switch {
			case x.Metatable != lua.LNil:
				return nil, fmt.Errorf("%w: %s has a metatable", ErrNotPlain, where)
			case open[x]:
				return nil, fmt.Errorf("%w: %s contains itself", ErrNotPlain, where)
			case depth >= MaxPlainDepth:
				return nil, fmt.Errorf("%w: %s nests more than %d tables deep", ErrNotPlain, where, MaxPlainDepth)
			}
			open[x] = true
			defer delete(open, x)
			t := &PlainTable{}
			var err error
			x.ForEach(func(k, val lua.LValue) {
				if err != nil {
					return
				}
				if entries++; entries > MaxPlainEntries {
					err = fmt.Errorf("%w: more than %d entries", ErrNotPlain, MaxPlainEntries)
					return
				}
				switch k.(type) {
				case lua.LString, lua.LNumber, lua.LBool:
				default:
					err = fmt.Errorf("%w: %s has a %s key", ErrNotPlain, where, k.Type())
					return
				}
				var kv, vv any
				kv, _ = cp(k, "", depth+1)
				if vv, err = cp(val, at+"["+k.String()+"]", depth+1); err == nil {
					t.Keys, t.Vals = append(t.Keys, kv), append(t.Vals, vv)
				}
			})
			if err != nil {
				return nil, err
			}
			return t, nil
		}
		where := at
		if where == "" {
			where = "the value"
		}
		return nil, fmt.Errorf("%w: %s is a %s", ErrNotPlain, where, v.Type())
	}
	return cp(v, "", 0)
}

// FromPlain rebuilds a value CopyPlain made, in L.
func FromPlain(L *lua.LState, v any) lua.LValue {
	switch x := v.(type) {
	case nil:
		return lua.LNil
	case bool:
		return lua.LBool(x)
	case float64:
		return lua.LNumber(x)
	case string:
		return lua.LString(x)
	case *PlainTable:
		t := L.CreateTable(0, len(x.Keys))
		for i, k := range x.Keys {
			t.RawSet(FromPlain(L, k), FromPlain(L, x.Vals[i]))
		}
		return t
	}
	return lua.LNil
}
