// Package luaval reads and copies gopher-lua values for luabind, host and
// the tools: the sequence limit (MaxSequence, which importing this package
// sets), the parts of tables and threads the memory measure reads, plain
// data copied between states (CopyPlain, FromPlain), Lua values as Go data
// (ToGo) and numbers (NumberOf).
package luaval

// Array parts: how long a table's sequence may be, so that no integer key
// can make one instruction fill a huge gap, and the reads of gopher-lua's
// unexported table and thread fields that the memory measure needs.

import (
	"math"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// MaxSequence is the longest sequence a table's array part holds: keys 1
// to MaxSequence live there, larger integer keys in the hash part.
//
// Importing luaval (luabind does) lowers gopher-lua's process-wide lua.MaxArrayIndex
// (67,108,864 by default) to MaxSequence+1, once, at init (it never raises
// it). gopher-lua fills the gap up to an integer key past the end of a
// table's array part one slot at a time inside one instruction (t[k] = v,
// rawset, table.insert(t, k, v)), with no budget poll: at the default,
// t[8388608] = 1 alone allocates 400 MB. At MaxSequence the largest such
// fill is 131,071 slots: 2 MiB kept, 10.8 MiB allocated on the way (the
// slice grows by copies), under the 16 MiB a callback is always left at
// the default 256 MiB limit (a sixteenth of the limit).
//
// The limit is a constant, not tied to what a callback has left: gopher-lua
// reads lua.MaxArrayIndex from every state of the process without
// synchronisation, and a key stored under one value is not found under
// another, so it is set once, before any state exists.
//
// The cost, a dialect difference: a sequence longer than MaxSequence keeps
// its later elements as ordinary keys. t[k] reads and writes them and
// pairs visits them, but #t, ipairs, unpack, table.concat, table.sort and
// table.remove see only the first MaxSequence, and table.insert past it is
// an error ("table.insert: the table already holds 131072 elements in
// sequence ...") rather than a table whose # and t[#t] disagree. A loop
// `t[#t + 1] = v` past it keeps writing t[131073].
const MaxSequence = 1 << 17

func init() {
	if lua.MaxArrayIndex > MaxSequence+1 {
		lua.MaxArrayIndex = MaxSequence + 1
	}
}

// MaxLen is the longest sequence this process's tables hold (smaller
// than MaxSequence if the game lowered lua.MaxArrayIndex further).
func MaxLen() int { return lua.MaxArrayIndex - 1 }

// tableFields is where gopher-lua keeps a table's array part, its string
// keys and a thread's value stack, found by reflection when the package is
// initialised: the one place luaai reads gopher-lua's unexported fields.
// Each ok is false if this version of gopher-lua has no such fields, and
// every user then falls back to what the public API does.
var tableFields struct {
	array uintptr // LTable.array
	ok    bool

	keys   uintptr // LTable.keys, the hash part's key list
	keysOK bool

	// LTable.strdict and LTable.k2i (the key list's index): with keys,
	// what a table of string keys is built from at once (buildStrings).
	strdict, k2i uintptr
	stringsOK    bool

	reg              uintptr // LState.reg, a *registry
	regArray, regTop uintptr // registry.array, registry.top
	frameSize        uintptr // callFrame's size
	regOK            bool
}

var luaValues = reflect.TypeOf([]lua.LValue(nil))

func init() { findTableFields() }

func findTableFields() {
	f := &tableFields
	if sf, ok := reflect.TypeOf(lua.LTable{}).FieldByName("array"); ok && sf.Type == luaValues {
		f.array, f.ok = sf.Offset, true
	}
	if sf, ok := reflect.TypeOf(lua.LTable{}).FieldByName("keys"); ok && sf.Type == luaValues {
		f.keys, f.keysOK = sf.Offset, true
	}
	sd, ok1 := reflect.TypeOf(lua.LTable{}).FieldByName("strdict")
	ki, ok2 := reflect.TypeOf(lua.LTable{}).FieldByName("k2i")
	if f.keysOK && ok1 && ok2 && sd.Type == reflect.TypeOf(map[string]lua.LValue(nil)) && ki.Type == reflect.TypeOf(map[lua.LValue]int(nil)) {
		f.strdict, f.k2i, f.stringsOK = sd.Offset, ki.Offset, true
	}
	st := reflect.TypeOf(lua.LState{})
	reg, ok1 := st.FieldByName("reg")
	frame, ok2 := st.FieldByName("currentFrame")
	if !ok1 || !ok2 || reg.Type.Kind() != reflect.Pointer || reg.Type.Elem().Kind() != reflect.Struct || frame.Type.Kind() != reflect.Pointer {
		return
	}
	arr, ok1 := reg.Type.Elem().FieldByName("array")
	top, ok2 := reg.Type.Elem().FieldByName("top")
	if !ok1 || !ok2 || arr.Type != luaValues || top.Type.Kind() != reflect.Int {
		return
	}
	f.reg, f.regArray, f.regTop, f.frameSize, f.regOK = reg.Offset, arr.Offset, top.Offset, frame.Type.Elem().Size(), true
}

// ArrayPart is t's array part (nil slots included), or false when this
// gopher-lua keeps none where luaval looks.
func ArrayPart(t *lua.LTable) ([]lua.LValue, bool) {
	f := &tableFields
	if !f.ok {
		return nil, false
	}
	return *(*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), f.array)), true
}

// HashKeys is gopher-lua's list of the keys ever set in t's hash part, in
// the order next visits them: a key set to nil stays in it (and in its
// index of the list) for as long as t lives, and next steps over it. ok is
// false when this gopher-lua keeps no such list where luaval looks.
func HashKeys(t *lua.LTable) (keys []lua.LValue, ok bool) {
	f := &tableFields
	if !f.keysOK {
		return nil, false
	}
	return *(*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), f.keys)), true
}

// ArrayLen is the length of t's array part, nil slots included (false:
// unknown in this gopher-lua; t.MaxN() is then the best guess).
func ArrayLen(t *lua.LTable) (int, bool) {
	a, ok := ArrayPart(t)
	return len(a), ok
}

// ArrayCap is the capacity of t's array part in slots, nil slots and room
// to grow included: what the part holds in memory. Without the field it
// is t.MaxN().
func ArrayCap(t *lua.LTable) int {
	if a, ok := ArrayPart(t); ok {
		return cap(a)
	}
	return t.MaxN()
}

// ThreadStack is what a coroutine holds on its own: its value stack (the
// locals and arguments of every call it is suspended in, up to its top) and
// the bytes of that stack and of its call-frame stack. ok is false when
// this gopher-lua keeps them where luaval does not look.
func ThreadStack(th *lua.LState) (values []lua.LValue, bytes int64, ok bool) {
	f := &tableFields
	if !f.regOK {
		return nil, 0, false
	}
	reg := *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(th), f.reg))
	if reg == nil {
		return nil, 0, false
	}
	arr := *(*[]lua.LValue)(unsafe.Add(reg, f.regArray))
	top := *(*int)(unsafe.Add(reg, f.regTop))
	top = min(max(top, 0), len(arr))
	bytes = int64(cap(arr))*int64(unsafe.Sizeof(lua.LValue(nil))) + int64(th.Options.CallStackSize)*int64(f.frameSize)
	return arr[:top], bytes, true
}

// ReserveArray makes room in t's array part for n slots, so that filling
// it (gopher-lua appends one slot at a time, copying the part each time it
// grows) allocates the n slots once. False when this gopher-lua keeps no
// array part where luaval looks (nothing is reserved). n is capped at the
// sequence limit.
func ReserveArray(t *lua.LTable, n int) bool {
	f := &tableFields
	if !f.ok {
		return false
	}
	n = min(n, MaxLen())
	p := (*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), f.array))
	if cap(*p) >= n {
		return true
	}
	grown := make([]lua.LValue, len(*p), n)
	copy(grown, *p)
	*p = grown
	return true
}

// NumberOf reads a Lua value as a float64; ok is false for non-numbers
// and NaN.
func NumberOf(v lua.LValue) (float64, bool) {
	n, ok := v.(lua.LNumber)
	if !ok {
		return 0, false
	}
	return float64(n), !math.IsNaN(float64(n))
}
