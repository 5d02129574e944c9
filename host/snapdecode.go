package host

// The snapshot decoder: what encoder (snapcodec.go) wrote, read back as
// untrusted input.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// decoder reads what encoder wrote, keeping the order of object keys; one
// decoder reads all the values of one agent, which share their $id tables.
type decoder struct {
	L   *lua.LState
	ids map[int]*lua.LTable
	// bound lists where {"$bound": path} stood, for RestoreOptions.Rebind.
	bound []boundSlot
	// gapLeft is how many more bytes of empty array slots the value being
	// decoded may make gopher-lua fill (an integer key past the end of a
	// table's array part fills the slots before it): snapshotGapRatio
	// times the value's own bytes. A list's nulls are not counted: the
	// snapshot pays for them, five bytes or so a slot.
	gapLeft int64
	size    int // the bytes of the value being decoded
}

// snapshotGapRatio: a snapshot value may make its reader fill empty array
// slots worth at most this many times its own size. Save writes a table
// with more holes than elements as a list with nulls, so what it writes
// always reads back.
const snapshotGapRatio = 4

// boundSlot is a place in a restored table where a Go value was bound.
type boundSlot struct {
	t    *lua.LTable
	k    lua.LValue
	path string // as saved: "ctx.body", "ctx.squad.leader", "ctx.list[2]"
}

// boundMark stands for a {"$bound": path} value until set puts it in its
// table, where it leaves nil and records the slot.
type boundMark struct{ path string }

// set is t[k] = v for the tables the decoder fills, charging the empty
// array slots it makes gopher-lua fill against gapLeft.
//
// A bound value's slot is made too, holding nil (the game's rebind fills
// it later).
func (d *decoder) set(t *lua.LTable, k, v lua.LValue) error {
	if n, ok := k.(lua.LNumber); ok && n > 1 && float64(n) < float64(lua.MaxArrayIndex) && float64(n) == math.Trunc(float64(n)) {
		have, known := luaval.ArrayLen(t)
		if !known {
			have = t.MaxN()
		}
		if gap := int64(n) - 1 - int64(have); gap > 0 {
			d.gapLeft -= gap * int64(unsafe.Sizeof(lua.LValue(nil)))
			if d.gapLeft < 0 {
				return fmt.Errorf("key %d leaves %d empty array slots before it: more than a snapshot of %d bytes may make its reader fill (%d times its size)",
					int64(n), gap, d.size, snapshotGapRatio)
			}
			luaval.ReserveArray(t, int(n)) // one allocation, not gopher-lua's growing copies
		}
	}
	if ud, ok := v.(*lua.LUserData); ok {
		if m, ok := ud.Value.(boundMark); ok {
			d.bound = append(d.bound, boundSlot{t, k, m.path})
			v = lua.LNil // the slot is made (a list's next key then fills no gap), holding nil
		}
	}
	t.RawSet(k, v)
	return nil
}

func (d *decoder) decode(raw json.RawMessage) (lua.LValue, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return lua.LNil, nil
	}
	d.size = len(raw)
	d.gapLeft = snapshotGapRatio * int64(len(raw))
	dec := &tokReader{s: jsonBytes{b: raw}}
	v, err := d.value(dec, 0, nil)
	if err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data")
	}
	return unbound(v), nil
}

// unbound is a decoded value v as a whole: nil for a bound Go value, which
// has no table slot to be bound again in (a payload that was one).
func unbound(v lua.LValue) lua.LValue {
	if ud, ok := v.(*lua.LUserData); ok {
		if _, ok := ud.Value.(boundMark); ok {
			return lua.LNil
		}
	}
	return v
}

// objectKeys is the room a decoded object's table starts with for string
// keys (it grows past them).
const objectKeys = 4

// newTable is a table for the decoder: empty, with no room reserved
// (gopher-lua's NewTable reserves 32 array slots and a 32-entry map: 2 KB
// for the two bytes of "[]").
func (d *decoder) newTable(into *lua.LTable) *lua.LTable {
	if into != nil {
		return into
	}
	return d.L.CreateTable(0, 0)
}

// value reads one value; a table is read into into when it is not nil
// (the body of a shared table, which exists before it is read).
func (d *decoder) value(dec *tokReader, depth int, into *lua.LTable) (lua.LValue, error) {
	if depth > 2*maxSnapshotDepth+2 { // a shared table adds a level ($t)
		return nil, fmt.Errorf("nested more than %d deep", maxSnapshotDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); into != nil && (!ok || d != '[' && d != '{') {
		return nil, fmt.Errorf("$t must be a table")
	}
	switch tok := tok.(type) {
	case nil:
		return lua.LNil, nil
	case bool:
		return lua.LBool(tok), nil
	case string:
		return lua.LString(tok), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(tok), 64)
		if err != nil {
			return nil, err
		}
		return lua.LNumber(f), nil
	case json.Delim:
		if tok == '[' {
			return d.list(dec, depth, d.newTable(into))
		}
		if tok == '{' {
			return d.object(dec, depth, into)
		}
	}
	return nil, fmt.Errorf("unexpected %v", tok)
}

// list reads the elements of a JSON list (its '[' read) into t, from 1.
func (d *decoder) list(dec *tokReader, depth int, t *lua.LTable) (*lua.LTable, error) {
	for i := 1; dec.More(); i++ {
		v, err := d.value(dec, depth+1, nil)
		if err != nil {
			return nil, err
		}
		if err := d.set(t, lua.LNumber(i), v); err != nil {
			return nil, err
		}
	}
	_, err := dec.Token() // ]
	return t, err
}

func (d *decoder) object(dec *tokReader, depth int, into *lua.LTable) (lua.LValue, error) {
	t := into // made when a key needs it: a tagged value ($num, $ref) has none
	first := true
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := kt.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v", kt)
		}
		if first && strings.HasPrefix(key, "$") {
			if key == "$pairs" || key == "$array" {
				t = d.newTable(into)
			} else if into != nil {
				return nil, fmt.Errorf("$t must be a table")
			}
			v, err := d.special(dec, key, depth, t)
			if err != nil {
				return nil, err
			}
			if key == "$array" && dec.More() {
				// {"$array": [...], "$pairs": [...]}: a sparse array part and
				// the other keys.
				if kt, err := dec.Token(); err != nil || kt != "$pairs" {
					return nil, fmt.Errorf("$array object with a key other than $pairs")
				}
				if _, err := d.special(dec, "$pairs", depth, t); err != nil {
					return nil, err
				}
			}
			if dec.More() {
				return nil, fmt.Errorf("%s object with more keys", key)
			}
			_, err = dec.Token() // }
			return v, err
		}
		first = false
		if t == nil {
			// Room for a few string keys: gopher-lua's first string key
			// otherwise makes a map for 32.
			t = d.L.CreateTable(0, objectKeys)
		}
		v, err := d.value(dec, depth+1, nil)
		if err != nil {
			return nil, err
		}
		if err := d.set(t, lua.LString(key), v); err != nil {
			return nil, err
		}
	}
	_, err := dec.Token() // }
	return d.newTable(t), err
}

// special reads the value of a tagged object; t is the table a $pairs or
// $array fills.
//
// It is long because it is one switch over the tagged values a snapshot may
// hold (NaN, infinities, non-string keys, bound names), each case a few
// lines.
func (d *decoder) special(dec *tokReader, key string, depth int, t *lua.LTable) (lua.LValue, error) {
	switch key {
	case "$num":
		v, err := d.value(dec, depth+1, nil)
		if err != nil {
			return nil, err
		}
		switch v {
		case lua.LString("nan"):
			return lua.LNumber(math.NaN()), nil
		case lua.LString("inf"):
			return lua.LNumber(math.Inf(1)), nil
		case lua.LString("-inf"):
			return lua.LNumber(math.Inf(-1)), nil
		}
		return nil, fmt.Errorf("bad $num %v", v)
	case "$bytes":
		v, err := d.value(dec, depth+1, nil)
		if err != nil {
			return nil, err
		}
		s, ok := v.(lua.LString)
		if !ok {
			return nil, fmt.Errorf("$bytes must be a base64 string")
		}
		b, err := base64.StdEncoding.DecodeString(string(s))
		if err != nil {
			return nil, fmt.Errorf("$bytes: %w", err)
		}
		return lua.LString(b), nil
	case "$bound":
		v, err := d.value(dec, depth+1, nil)
		if err != nil {
			return nil, err
		}
		ud := d.L.NewUserData()
		ud.Value = boundMark{lua.LVAsString(v)} // the game binds it again
		return ud, nil
	case "$ref":
		v, err := d.value(dec, depth+1, nil)
		if err != nil {
			return nil, err
		}
		n, ok := v.(lua.LNumber)
		t := d.ids[int(n)]
		if !ok || t == nil || float64(n) != float64(int(n)) {
			return nil, fmt.Errorf("$ref %v names no table saved before it", v)
		}
		return t, nil
	case "$id":
		v, err := d.value(dec, depth+1, nil)
		if err != nil {
			return nil, err
		}
		n, ok := v.(lua.LNumber)
		if !ok || float64(n) != float64(int(n)) || int(n) != len(d.ids)+1 {
			return nil, fmt.Errorf("$id %v out of order", v)
		}
		// The table exists before its contents are read: they may refer
		// to it (a cycle).
		t := d.newTable(nil)
		if d.ids == nil {
			d.ids = map[int]*lua.LTable{}
		}
		d.ids[int(n)] = t
		if kt, err := dec.Token(); err != nil || kt != "$t" {
			return nil, fmt.Errorf("$id without $t")
		}
		if _, err := d.value(dec, depth+1, t); err != nil {
			return nil, err
		}
		return t, nil
	case "$array":
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return nil, fmt.Errorf("$array must be a list")
		}
		return d.list(dec, depth, t)
	case "$pairs":
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return nil, fmt.Errorf("$pairs must be a list")
		}
		for dec.More() {
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return nil, fmt.Errorf("$pairs entries must be [key, value]")
			}
			k, err := d.value(dec, depth+1, nil)
			if err != nil {
				return nil, err
			}
			if k == lua.LNil {
				return nil, fmt.Errorf("nil table key")
			}
			if n, ok := k.(lua.LNumber); ok && math.IsNaN(float64(n)) {
				return nil, fmt.Errorf("NaN table key")
			}
			v, err := d.value(dec, depth+1, nil)
			if err != nil {
				return nil, err
			}
			if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
				return nil, fmt.Errorf("$pairs entries must be [key, value]")
			}
			if err := d.set(t, k, v); err != nil {
				return nil, err
			}
		}
		_, err := dec.Token() // ]
		return t, err
	}
	return nil, fmt.Errorf("unknown %s object", key)
}
