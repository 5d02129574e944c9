package host

// Filling a fresh context table in one go. gopher-lua's RawSetString boxes
// each key twice (for its key list and its key index), grows the key list
// and the index one key at a time, and checks for the key first; a context
// made from a layout's defaults has keys known in advance, all distinct, in
// a known order. fillStrings sets the table's own fields to exactly what
// those RawSetString calls leave (the same maps, the same key list in the
// same order, so next() and pairs() walk it as before), sharing the
// layout's boxed keys. It is used only when gopher-lua's LTable has the
// fields, types and offsets of tableFields (checked once, below);
// otherwise contexts are filled with RawSetString.

import (
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// tableFields mirrors gopher-lua's LTable (v1.1.2).
type tableFields struct {
	Metatable lua.LValue
	array     []lua.LValue
	dict      map[lua.LValue]lua.LValue
	strdict   map[string]lua.LValue
	keys      []lua.LValue
	k2i       map[lua.LValue]int
}

// tableMirrored: LTable is laid out as tableFields is.
var tableMirrored = sameLayout(reflect.TypeOf(lua.LTable{}), reflect.TypeOf(tableFields{}))

// sameLayout reports whether a and b are structs of the same size whose
// fields have the same names, types and offsets.
func sameLayout(a, b reflect.Type) bool {
	if a.Kind() != reflect.Struct || b.Kind() != reflect.Struct || a.Size() != b.Size() || a.NumField() != b.NumField() {
		return false
	}
	for i := range a.NumField() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || fa.Type != fb.Type || fa.Offset != fb.Offset {
			return false
		}
	}
	return true
}

// fillStrings makes a table holding vals[i] at keys[i], each key a
// distinct lua.LString and each value not nil: what RawSetString of each
// in turn on a table made by CreateTable(0, len(keys)) makes. It needs
// tableMirrored.
func fillStrings(keys, vals []lua.LValue) *lua.LTable {
	t := &lua.LTable{Metatable: lua.LNil}
	f := (*tableFields)(unsafe.Pointer(t))
	n := len(keys)
	f.strdict = make(map[string]lua.LValue, n)
	f.k2i = make(map[lua.LValue]int, n)
	f.keys = make([]lua.LValue, n)
	copy(f.keys, keys)
	for i, k := range keys {
		f.strdict[string(k.(lua.LString))] = vals[i]
		f.k2i[k] = i
	}
	return t
}
