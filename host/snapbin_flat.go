package host

// A flat context in the binary form: the common context (string keys,
// each holding a number, a boolean or a string) written without the
// general walk, through a plan of its keys that the contexts of one
// behaviour mostly share.

import (
	"encoding/binary"
	"strings"

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
// nothing, for any other table. The keys are checked to be in order
// (tableBin sorts them), at no cost when they are the plan's.
func (e *encoder) flatBin(t *lua.LTable) bool {
	if !tableMirrored {
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
	vals := e.flatVals[:0]
	for _, k := range keys {
		ks, ok := k.(lua.LString)
		if !ok {
			return false
		}
		v := sm[string(ks)]
		switch v.(type) {
		case lua.LNumber, lua.LBool, lua.LString:
		default:
			return false
		}
		vals = append(vals, v)
	}
	e.flatVals = vals
	p := &e.plan
	same := p.ok && len(p.keys) == len(keys)
	for i := 0; same && i < len(keys); i++ {
		same = p.keys[i] == keys[i]
	}
	if !same {
		for i := 1; i < len(keys); i++ {
			if strings.Compare(string(keys[i-1].(lua.LString)), string(keys[i].(lua.LString))) >= 0 {
				return false
			}
		}
	}
	e.buf = append(e.buf, 0) // no list
	e.buf = binary.AppendUvarint(e.buf, uint64(len(keys)))
	for i, k := range keys {
		if same && p.nums[i] >= 0 {
			e.buf = append(e.buf, binStrRef)
			e.buf = binary.AppendUvarint(e.buf, uint64(p.nums[i]))
		} else {
			e.binString(string(k.(lua.LString)))
		}
		e.writeScalar(vals[i])
	}
	clear(vals)
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
