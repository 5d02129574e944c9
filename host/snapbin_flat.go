package host

// A flat context in the binary form: the common context (string keys,
// each holding a number, a boolean or a string) written without the
// general walk, through a plan of its keys that the contexts of one
// behaviour mostly share.

import (
	"encoding/binary"
	"strings"
	"unsafe"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// flatPlan is the key list of the last flat context written: the boxed
// keys (their order is sorted) and each one's string number (-1: a long
// string, written whole each time).
type flatPlan struct {
	keys []lua.LValue
	nums []int
	ok   bool
}

// flatBin writes t's body as tableBin does when t is flat: no array part
// and no key but strings, every key listed holding a value, and every
// value a number, a boolean or a string; it returns false, having written
// nothing and numbered no string, for any other table. The keys are
// checked to be in order (tableBin sorts them), at no cost when they are
// the plan's. It writes as it checks, and takes back what it wrote when a
// value is not a scalar: in encodeBinOnce's walk (once), the strings it
// numbered are listed in added, whence they are forgotten.
func (e *encoder) flatBin(t *lua.LTable) bool {
	if !tableMirrored || !e.once {
		return false
	}
	if arr, ok := luaval.ArrayPart(t); !ok || len(arr) > 0 {
		return false
	}
	keys, ok := luaval.HashKeys(t)
	sm := luaval.StringMap(t)
	if !ok || len(keys) == 0 || len(sm) != len(keys) {
		return false
	}
	p := &e.plan
	same := p.ok && len(p.keys) == len(keys)
	for i := 0; same && i < len(keys); i++ {
		same = sameBox(p.keys[i], keys[i])
	}
	if !same {
		for i, k := range keys {
			ks, ok := k.(lua.LString)
			if !ok || i > 0 && strings.Compare(string(keys[i-1].(lua.LString)), string(ks)) >= 0 {
				return false
			}
		}
	}
	start, added := len(e.buf), len(e.added)
	e.buf = append(e.buf, 0) // no list
	e.buf = binary.AppendUvarint(e.buf, uint64(len(keys)))
	for i, k := range keys {
		ks := string(k.(lua.LString))
		v := sm[ks]
		if same && p.nums[i] >= 0 {
			e.buf = append(e.buf, binStrRef)
			e.buf = binary.AppendUvarint(e.buf, uint64(p.nums[i]))
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
		default:
			e.buf = e.buf[:start]
			for _, s := range e.added[added:] {
				e.strs.forget(s)
			}
			e.added = e.added[:added]
			return false
		}
	}
	if !same {
		p.keys, p.nums, p.ok = append(p.keys[:0], keys...), p.nums[:0], true
		for _, k := range keys {
			num, ok := e.strs.get(string(k.(lua.LString)))
			if !ok || len(k.(lua.LString)) > binInternMax {
				num = -1
			}
			p.nums = append(p.nums, num)
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
