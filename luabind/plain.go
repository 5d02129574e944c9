package luabind

// Plain data: a Lua value copied out of one Lua state to be rebuilt in
// another (ai.send_to's payloads cross workers' states).

import (
	"errors"
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// PlainTable is a copied Lua table: its array part (t[1] to t[n], nil
// where the table holds nil: rebuilding it costs what the original's
// does, and the copy costs as much, so a payload cannot make its receiver
// fill gaps its sender never paid for), then its other keys and values, in
// the order they were read.
type PlainTable struct{ Array, Keys, Vals []any }

// Plain limits: how deep tables nest and how many entries a value holds
// in all (array slots that hold nil count as entries).
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
	// keys is the path to the value being copied; it is spelled out only
	// for an error (a path string per value would cost depth × key length
	// bytes each: gigabytes for a deep payload with long keys).
	var keys []lua.LValue
	var cp func(v lua.LValue, depth int) (any, error)
	cp = func(v lua.LValue, depth int) (any, error) {
		where := func() string {
			if len(keys) == 0 {
				return "the value"
			}
			return plainPath(keys)
		}
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
			switch {
			case x.Metatable != lua.LNil:
				return nil, fmt.Errorf("%w: %s has a metatable", ErrNotPlain, where())
			case open[x]:
				return nil, fmt.Errorf("%w: %s contains itself", ErrNotPlain, where())
			case depth >= MaxPlainDepth:
				return nil, fmt.Errorf("%w: %s nests more than %d tables deep", ErrNotPlain, where(), MaxPlainDepth)
			}
			open[x] = true
			defer delete(open, x)
			t := &PlainTable{}
			n := x.MaxN() // the array part, up to its last non-nil slot
			if entries += n; entries > MaxPlainEntries {
				return nil, fmt.Errorf("%w: more than %d entries (array slots that hold nil count)", ErrNotPlain, MaxPlainEntries)
			}
			if n > 0 {
				t.Array = make([]any, n)
			}
			for i := 1; i <= n; i++ {
				val := x.RawGetInt(i)
				if val == lua.LNil {
					continue
				}
				keys = append(keys, lua.LNumber(i))
				vv, err := cp(val, depth+1)
				keys = keys[:len(keys)-1]
				if err != nil {
					return nil, err
				}
				t.Array[i-1] = vv
			}
			var err error
			x.ForEach(func(k, val lua.LValue) {
				if err != nil {
					return
				}
				if i, ok := k.(lua.LNumber); ok && i >= 1 && int(i) <= n && float64(i) == float64(int(i)) {
					return // copied with the array part
				}
				if entries++; entries > MaxPlainEntries {
					err = fmt.Errorf("%w: more than %d entries (array slots that hold nil count)", ErrNotPlain, MaxPlainEntries)
					return
				}
				switch k.(type) {
				case lua.LString, lua.LNumber, lua.LBool:
				default:
					err = fmt.Errorf("%w: %s has a %s key", ErrNotPlain, where(), k.Type())
					return
				}
				var kv, vv any
				switch k := k.(type) {
				case lua.LString:
					kv = string(k)
				case lua.LNumber:
					kv = float64(k)
				case lua.LBool:
					kv = bool(k)
				}
				keys = append(keys, k)
				vv, err = cp(val, depth+1)
				keys = keys[:len(keys)-1]
				if err == nil {
					t.Keys, t.Vals = append(t.Keys, kv), append(t.Vals, vv)
				}
			})
			if err != nil {
				return nil, err
			}
			return t, nil
		}
		return nil, fmt.Errorf("%w: %s is a %s", ErrNotPlain, where(), v.Type())
	}
	return cp(v, 0)
}

// plainPath spells a path of keys as "[a][1]", each key clipped to 40
// bytes and the whole to 400.
func plainPath(keys []lua.LValue) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteByte('[')
		b.WriteString(CutText(k.String(), 40))
		b.WriteByte(']')
		if b.Len() > 400 {
			b.WriteString("…")
			break
		}
	}
	return b.String()
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
		t := L.CreateTable(len(x.Array), len(x.Keys))
		for i, v := range x.Array {
			t.RawSetInt(i+1, FromPlain(L, v)) // appended, nil too: no gap to fill
		}
		for i, k := range x.Keys {
			t.RawSet(FromPlain(L, k), FromPlain(L, x.Vals[i]))
		}
		return t
	}
	return lua.LNil
}

// ErrLongList: a list longer than a luaai table's sequence holds
// (MaxSequence): its later elements would be ordinary keys, which # and
// ipairs do not see.
var ErrLongList = errors.New("list too long")

// CheckLists refuses a list in v, at any depth, longer than a table's
// sequence holds; v is Go data as encoding/json decodes it (the values of
// the CLI's --input and the inspector's commands).
func CheckLists(v any) error {
	stack := []any{v}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := v.(type) {
		case []any:
			if len(x) > maxSequence() {
				return fmt.Errorf("%w: %d elements, more than the %d a luaai table's sequence holds", ErrLongList, len(x), maxSequence())
			}
			stack = append(stack, x...)
		case map[string]any:
			for _, e := range x {
				stack = append(stack, e)
			}
		}
	}
	return nil
}
