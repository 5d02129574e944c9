package luaval

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// A gopher-lua table keeps its string keys in three places: a string map
// (the values), a key list (the order next walks) and the key list's index
// (a map from each boxed key to its place). RawSetString is the one writer
// of all three, and leaves a key that is in the string map also in the list
// and the index. StringMap and SetStrings let the engine's hot paths (the
// compiled callbacks' writes, a context filled in one go) do what
// RawSetString would with less work; both need StringsLayout.

// StringsLayout reports whether this gopher-lua keeps a table's string keys
// where StringMap and SetStrings look (checked once, at start).
func StringsLayout() bool { return tableFields.stringsOK }

// StringMap is t's string map (nil without StringsLayout). Storing a non-nil
// value under a key the map already holds is the whole of what RawSetString
// does for it; any other write must go through RawSetString.
func StringMap(t *lua.LTable) map[string]lua.LValue {
	if !tableFields.stringsOK {
		return nil
	}
	return *(*map[string]lua.LValue)(unsafe.Add(unsafe.Pointer(t), tableFields.strdict))
}

// SetStrings gives t, a table with no string keys yet, the string map,
// key list and index given, which must be what RawSetString of each key in
// the list's order would leave (every key a distinct lua.LString, its value
// in strdict not nil, k2i[keys[i]] == i). False without StringsLayout
// (nothing is set).
func SetStrings(t *lua.LTable, strdict map[string]lua.LValue, keys []lua.LValue, k2i map[lua.LValue]int) bool {
	f := &tableFields
	if !f.stringsOK {
		return false
	}
	p := unsafe.Pointer(t)
	*(*map[string]lua.LValue)(unsafe.Add(p, f.strdict)) = strdict
	*(*[]lua.LValue)(unsafe.Add(p, f.keys)) = keys
	*(*map[lua.LValue]int)(unsafe.Add(p, f.k2i)) = k2i
	return true
}

// SetString is t.RawSetString(key, v) with one map operation where the key
// is already there: the store into the string map that finds the key is
// the whole write; one that added the key is completed by RawSetString
// (which stores again and records the key's place for next()).
func SetString(t *lua.LTable, key string, v lua.LValue) {
	if sd := StringMap(t); sd != nil && v != lua.LNil {
		n := len(sd)
		if sd[key] = v; len(sd) == n {
			return
		}
	}
	t.RawSetString(key, v)
}
