package luaval

// Plain data: a Lua value copied out of one Lua state to be rebuilt in
// another (ai.send_to's payloads cross workers' states).

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/luaai/luaai/internal/luatext"
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
//
// A table's other keys come in the order next visits them (its key list,
// where this gopher-lua keeps one), so a rebuilt table's pairs visit them
// in its sender's order whatever the run.
func CopyPlain(v lua.LValue) (any, error) {
	var c plainCopier
	return c.copy(v, 0)
}

// plainCopier is one CopyPlain: the entries copied so far, the tables on
// the path, and the path's keys, spelled out only for an error (a path
// string per value would cost depth × key length bytes each: gigabytes for
// a deep payload with long keys). The outermost table is kept apart, so
// that a payload with no table inside costs the copier no allocation.
type plainCopier struct {
	entries int
	root    *lua.LTable
	open    []*lua.LTable // the tables inside root on the path
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
		case x == c.root || slices.Contains(c.open, x):
			return nil, fmt.Errorf("%w: %s contains itself", ErrNotPlain, c.where())
		case depth >= MaxPlainDepth:
			return nil, fmt.Errorf("%w: %s nests more than %d tables deep", ErrNotPlain, c.where(), MaxPlainDepth)
		}
		if c.root == nil {
			c.root = x
			t, err := c.table(x, depth)
			c.root = nil
			return t, err
		}
		c.open = append(c.open, x)
		t, err := c.table(x, depth)
		c.open = c.open[:len(c.open)-1]
		return t, err
	}
	return nil, fmt.Errorf("%w: %s is a %s", ErrNotPlain, c.where(), v.Type())
}

// at copies val, the value at key k of the table being copied (both read
// out of that table: see shareBox).
func (c *plainCopier) at(k, val lua.LValue, depth int) (any, error) {
	switch val.(type) {
	case lua.LNumber, lua.LString:
		return shareBox(val), nil
	}
	c.keys = append(c.keys, k)
	v, err := c.copy(val, depth+1)
	c.keys = c.keys[:len(c.keys)-1]
	return v, err
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
		switch val := x.RawGetInt(i); val.(type) {
		case *lua.LNilType:
		case lua.LNumber, lua.LString:
			t.Array[i-1] = shareBox(val) // no index boxed for the path
		default:
			vv, err := c.at(lua.LNumber(i), val, depth)
			if err != nil {
				return nil, err
			}
			t.Array[i-1] = vv
		}
	}
	keys, ok := HashKeys(x)
	if !ok {
		return t, c.eachKey(t, x, n, depth)
	}
	if len(keys) > 0 {
		// Keys and values in one allocation; a key set to nil leaves
		// room unused.
		kv := make([]any, 2*len(keys))
		t.Keys, t.Vals = kv[:0:len(keys)], kv[len(keys):len(keys)]
	}
	for _, k := range keys {
		val := x.RawGetH(k)
		if val == lua.LNil {
			continue // set to nil: next steps over it
		}
		if err := c.entry(t, k, val, n, depth); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// eachKey is table's hash part where this gopher-lua keeps no key list
// where luabind looks: ForEach, in the order of its maps.
func (c *plainCopier) eachKey(t *PlainTable, x *lua.LTable, n, depth int) error {
	var err error
	x.ForEach(func(k, val lua.LValue) {
		if err == nil {
			err = c.entry(t, k, val, n, depth)
		}
	})
	return err
}

// entry copies the hash part's entry k = val into t, unless k is an
// index of the array part (1 to n) copied with it.
func (c *plainCopier) entry(t *PlainTable, k, val lua.LValue, n, depth int) error {
	if i, ok := k.(lua.LNumber); ok && i >= 1 && int(i) <= n && float64(i) == float64(int(i)) {
		return nil // copied with the array part
	}
	if err := c.count(1); err != nil {
		return err
	}
	var kv any
	switch k.(type) {
	case lua.LString, lua.LNumber:
		kv = shareBox(k)
	case lua.LBool:
		kv = bool(k.(lua.LBool))
	default:
		return fmt.Errorf("%w: %s has a %s key", ErrNotPlain, c.where(), k.Type())
	}
	vv, err := c.at(k, val, depth)
	if err != nil {
		return err
	}
	t.Keys, t.Vals = append(t.Keys, kv), append(t.Vals, vv)
	return nil
}

// eface is the layout of an interface value: its type word and a pointer
// to its data.
type eface struct{ typ, data unsafe.Pointer }

// shareBox is v, an LNumber or LString read out of a table (so held in
// the heap, never on a stack), as the float64 or string it is, sharing
// v's box: the two types are laid out alike, and a box is never written
// once made, so the copy costs no allocation. (Converting each would be
// an allocation per number and string of every payload, twice: once out,
// once back in.)
func shareBox(v lua.LValue) any {
	var out any
	switch v.(type) {
	case lua.LNumber:
		out = float64(0)
	case lua.LString:
		out = ""
	default:
		panic("luabind: shareBox of a " + v.Type().String())
	}
	(*eface)(unsafe.Pointer(&out)).data = (*eface)(unsafe.Pointer(&v)).data
	return out
}

// luaBox is the reverse of shareBox: a float64 or string held in a
// PlainTable (so in the heap) as the LNumber or LString it is, sharing
// its box.
func luaBox(v any) lua.LValue {
	var out lua.LValue
	switch v.(type) {
	case float64:
		out = lua.LNumber(0)
	case string:
		out = lua.LString("")
	default:
		panic("luabind: luaBox of a " + fmt.Sprintf("%T", v))
	}
	(*eface)(unsafe.Pointer(&out)).data = (*eface)(unsafe.Pointer(&v)).data
	return out
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

// FromPlain rebuilds a value CopyPlain made, in L. The numbers and
// strings a table holds share their boxes with the copy (see shareBox).
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
		return fromPlainTable(L, x)
	}
	return lua.LNil
}

func fromPlainTable(L *lua.LState, x *PlainTable) *lua.LTable {
	t := L.CreateTable(len(x.Array), 0)
	for i, v := range x.Array {
		t.RawSetInt(i+1, fromPlainEntry(L, v)) // appended, nil too: no gap to fill
	}
	if buildStrings(L, t, x) {
		return t
	}
	for i, k := range x.Keys {
		v := fromPlainEntry(L, x.Vals[i])
		if s, ok := k.(string); ok {
			t.RawSetString(s, v)
			continue
		}
		t.RawSet(fromPlainEntry(L, k), v)
	}
	return t
}

// buildStrings fills t's hash part with x's keys and values when every key
// is a string, at once: gopher-lua's RawSetString boxes each key twice
// and grows the key list and its index one key at a time (four or five
// allocations a key, for every payload a message delivers), where this
// makes the three with their sizes and shares the keys' boxes. The table
// is what RawSetString would have made: the same maps and key list, keys
// in the same order. False (nothing done) for other keys, or where this
// gopher-lua keeps these fields elsewhere.
func buildStrings(L *lua.LState, t *lua.LTable, x *PlainTable) bool {
	if !tableFields.stringsOK || len(x.Keys) == 0 {
		return false
	}
	for _, k := range x.Keys {
		if _, ok := k.(string); !ok {
			return false
		}
	}
	n := len(x.Keys)
	strdict := make(map[string]lua.LValue, n)
	keys := make([]lua.LValue, 0, n)
	k2i := make(map[lua.LValue]int, n)
	for i, k := range x.Keys {
		v := fromPlainEntry(L, x.Vals[i])
		s := k.(string)
		if v == lua.LNil {
			delete(strdict, s) // as RawSetString does
			continue
		}
		strdict[s] = v
		lk := luaBox(k)
		if _, ok := k2i[lk]; !ok {
			k2i[lk] = len(keys)
			keys = append(keys, lk)
		}
	}
	return SetStrings(t, strdict, keys, k2i)
}

// fromPlainEntry is FromPlain of a value a PlainTable holds: a number or
// string shares its box.
func fromPlainEntry(L *lua.LState, v any) lua.LValue {
	switch v.(type) {
	case float64, string:
		return luaBox(v)
	}
	return FromPlain(L, v)
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
			if len(x) > MaxLen() {
				return fmt.Errorf("%w: %d elements, more than the %d a luaai table's sequence holds", ErrLongList, len(x), MaxLen())
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
