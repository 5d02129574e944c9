package host

// A flat context in the binary form: the common context (string keys,
// each holding a number, a boolean or a string) written without the
// general walk, through a plan of its keys that the contexts of one
// behaviour mostly share.

import (
	"encoding/binary"
	"slices"
	"strings"
	"unsafe"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// flatPlan is the key list of the last flat context written: the boxed
// keys in the table's order, the order they are written in (sorted: order
// lists their indexes) and each written one's string number (-1: a long
// string, written whole each time).
type flatPlan struct {
	keys  []lua.LValue
	order []int
	nums  []int
	ok    bool
}

// maxFlatKeys bounds the keys of a table flatBin sorts itself.
const maxFlatKeys = 32

// flatBin writes t's body as tableBin does when t is flat: no array part
// and no key but strings, every key listed holding a value, and every
// value a number, a boolean, a string or a table that is flat in turn
// (one level: its values scalars) or a list of scalars (no hole, no other
// key) reached once; it returns false, having written nothing and
// numbered no string, for any other table. The keys are sorted as
// tableBin sorts them, at no cost when they are the plan's. It writes as
// it checks, and takes back what it wrote when a value does not fit: in
// encodeBinOnce's walk (once), the strings it numbered are listed in
// added, whence they are forgotten, and the tables met in seen (which
// holds t).
func (e *encoder) flatBin(t *lua.LTable) bool {
	if !tableMirrored || !e.once {
		return false
	}
	start, added, seen := len(e.buf), len(e.added), len(e.seen)
	if e.flatBody(t, &e.plan, 0) {
		return true
	}
	e.buf = e.buf[:start]
	for _, s := range e.added[added:] {
		e.strs.forget(s)
	}
	e.added, e.seen = e.added[:added], e.seen[:seen]
	e.innerPlan.ok = false // its numbers may be of strings just forgotten
	return false
}

// flatBody writes a flat table's body (see flatBin) at depth 0 (the
// context) or 1 (a table in it), with plan p, which it updates.
func (e *encoder) flatBody(t *lua.LTable, p *flatPlan, depth int) bool {
	if arr, ok := luaval.ArrayPart(t); !ok || len(arr) > 0 {
		return false
	}
	keys, ok := luaval.HashKeys(t)
	sm := luaval.StringMap(t)
	if !ok || len(keys) == 0 || len(sm) != len(keys) || len(keys) > maxFlatKeys {
		return false
	}
	same := p.ok && len(p.keys) == len(keys)
	for i := 0; same && i < len(keys); i++ {
		// A context's keys are its behaviour's boxes; a table in it, such
		// as a synced one, has boxes of its own, equal strings.
		same = sameBox(p.keys[i], keys[i]) || depth > 0 && p.keys[i] == keys[i]
	}
	var order []int
	if same {
		order = p.order
	} else if order, ok = e.sortedOrder(keys, depth); !ok {
		return false
	}
	e.buf = append(e.buf, 0) // no list
	e.buf = binary.AppendUvarint(e.buf, uint64(len(keys)))
	for j, i := range order {
		ks := string(keys[i].(lua.LString))
		v := sm[ks]
		if same && p.nums[j] >= 0 {
			e.buf = append(e.buf, binStrRef)
			e.buf = binary.AppendUvarint(e.buf, uint64(p.nums[j]))
		} else {
			e.binString(ks)
		}
		switch v := v.(type) {
		case lua.LNumber:
			e.binNumber(float64(v))
		case lua.LString:
			e.binString(string(v))
		case lua.LBool:
			e.buf = append(e.buf, binFalse+byte(boolByte(bool(v))))
		case *lua.LTable:
			if depth > 0 || !e.flatInner(v) {
				return false
			}
		default:
			return false
		}
	}
	if !same {
		p.keys, p.order, p.nums, p.ok = append(p.keys[:0], keys...), append(p.order[:0], order...), p.nums[:0], true
		for _, i := range order {
			k := string(keys[i].(lua.LString))
			num, ok := e.strs.get(k)
			if !ok || len(k) > binInternMax {
				num = -1
			}
			p.nums = append(p.nums, num)
		}
	}
	return true
}

// sortedOrder is the order of keys (all strings, else false) sorted as
// tableBin writes them, in the encoder's scratch for depth.
func (e *encoder) sortedOrder(keys []lua.LValue, depth int) ([]int, bool) {
	order := e.flatOrder[depth][:0]
	for i, k := range keys {
		ks, ok := k.(lua.LString)
		if !ok {
			return nil, false
		}
		// Insertion sort: the keys are few, and mostly in order already.
		j := len(order)
		order = append(order, i)
		for j > 0 && strings.Compare(string(keys[order[j-1]].(lua.LString)), string(ks)) > 0 {
			order[j] = order[j-1]
			j--
		}
		order[j] = i
	}
	e.flatOrder[depth] = order
	return order, true
}

// flatInner writes a table inside a flat context (tag and body): a list
// of scalars, or a flat table of scalars, reached once in this walk.
func (e *encoder) flatInner(v *lua.LTable) bool {
	if len(e.seen) >= 32 || slices.Contains(e.seen, v) {
		return false
	}
	e.seen = append(e.seen, v)
	arr, ok := luaval.ArrayPart(v)
	if !ok {
		return false
	}
	e.buf = append(e.buf, binTable)
	if len(arr) == 0 {
		return e.flatBody(v, &e.innerPlan, 1)
	}
	if keys, ok := luaval.HashKeys(v); !ok || len(keys) > 0 {
		return false
	}
	e.buf = binary.AppendUvarint(e.buf, uint64(len(arr)))
	e.buf = append(e.buf, 0) // no pairs
	for _, x := range arr {
		switch x.(type) {
		case lua.LNumber, lua.LString, lua.LBool:
			e.writeScalar(x)
		default:
			return false
		}
	}
	return true
}

// boolByte is 1 for true, 0 for false.
func boolByte(v bool) int {
	if v {
		return 1
	}
	return 0
}

// sameBox tells whether x and y are the same boxed value: the same type
// and the same pointer to it (so equal; equal values in two boxes are
// not the same box).
func sameBox(x, y lua.LValue) bool {
	type iface struct{ tab, data unsafe.Pointer }
	a, b := (*iface)(unsafe.Pointer(&x)), (*iface)(unsafe.Pointer(&y))
	return a.tab == b.tab && a.data == b.data
}

// writeScalar writes a number, boolean or string as writeBin does.
func (e *encoder) writeScalar(v lua.LValue) {
	switch v := v.(type) {
	case lua.LBool:
		if v {
			e.buf = append(e.buf, binTrue)
		} else {
			e.buf = append(e.buf, binFalse)
		}
	case lua.LNumber:
		e.binNumber(float64(v))
	case lua.LString:
		e.binString(string(v))
	}
}
