package luabind

// Plain data: a Lua value copied out of one Lua state to be rebuilt in
// another (ai.send_to's payloads cross workers' states).

import (
	"errors"
	"fmt"
	"strings"

	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/scripterr"
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
	c := plainCopier{open: map[*lua.LTable]bool{}}
	return c.copy(v, 0)
}

// plainCopier is one CopyPlain: the entries copied so far, the tables on
// the path, and the path's keys, spelled out only for an error (a path
// string per value would cost depth × key length bytes each: gigabytes for
// a deep payload with long keys).
type plainCopier struct {
	entries int
	open    map[*lua.LTable]bool
	keys    []lua.LValue
}

func (c *plainCopier) where() string {
	if len(c.keys) == 0 {
		return "the value"
	}
	return plainPath(c.keys)
}

func (c *plainCopier) copy(v lua.LValue, depth int) (any, error) {
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
			return nil, fmt.Errorf("%w: %s has a metatable", ErrNotPlain, c.where())
		case c.open[x]:
			return nil, fmt.Errorf("%w: %s contains itself", ErrNotPlain, c.where())
		case depth >= MaxPlainDepth:
			return nil, fmt.Errorf("%w: %s nests more than %d tables deep", ErrNotPlain, c.where(), MaxPlainDepth)
		}
		c.open[x] = true
		defer delete(c.open, x)
		return c.table(x, depth)
	}
	return nil, fmt.Errorf("%w: %s is a %s", ErrNotPlain, c.where(), v.Type())
}

// at copies val, the value at key k of the table being copied.
func (c *plainCopier) at(k, val lua.LValue, depth int) (any, error) {
	c.keys = append(c.keys, k)
	defer func() { c.keys = c.keys[:len(c.keys)-1] }()
	return c.copy(val, depth+1)
}

func (c *plainCopier) count(n int) error {
	if c.entries += n; c.entries > MaxPlainEntries {
		return fmt.Errorf("%w: more than %d entries (array slots that hold nil count)", ErrNotPlain, MaxPlainEntries)
	}
	return nil
}

// table copies x's array part (up to its last non-nil slot, nil slots
// included), then its other keys.
func (c *plainCopier) table(x *lua.LTable, depth int) (*PlainTable, error) {
	t := &PlainTable{}
	n := x.MaxN()
	if err := c.count(n); err != nil {
		return nil, err
	}
	if n > 0 {
		t.Array = make([]any, n)
	}
	for i := 1; i <= n; i++ {
		if val := x.RawGetInt(i); val != lua.LNil {
			vv, err := c.at(lua.LNumber(i), val, depth)
			if err != nil {
				return nil, err
			}
			t.Array[i-1] = vv
		}
	}
	var err error
	x.ForEach(func(k, val lua.LValue) {
		if err != nil {
			return
		}
		if i, ok := k.(lua.LNumber); ok && i >= 1 && int(i) <= n && float64(i) == float64(int(i)) {
			return // copied with the array part
		}
		if err = c.count(1); err != nil {
			return
		}
		var kv any
		switch k := k.(type) {
		case lua.LString:
			kv = string(k)
		case lua.LNumber:
			kv = float64(k)
		case lua.LBool:
			kv = bool(k)
		default:
			err = fmt.Errorf("%w: %s has a %s key", ErrNotPlain, c.where(), k.Type())
			return
		}
		var vv any
		if vv, err = c.at(k, val, depth); err == nil {
			t.Keys, t.Vals = append(t.Keys, kv), append(t.Vals, vv)
		}
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// plainPath spells a path of keys as "[a][1]", each key clipped to 40
// bytes and the whole to 400.
func plainPath(keys []lua.LValue) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteByte('[')
		b.WriteString(luatext.CutText(k.String(), 40))
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
var ErrLongList = scripterr.ErrLongList

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
