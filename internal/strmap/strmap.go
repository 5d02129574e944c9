//go:build go1.24 && !go1.27 && (go1.26 || goexperiment.swissmap)

// Package strmap reads where a gopher-lua table's string map (a Go
// map[string]lua.LValue) keeps its entries: for a utility decision that
// remembers where an agent's context fields are instead of looking each
// up (hashing the key and probing) at every decision.
//
// Go's maps (internal/runtime/maps, Go 1.24 to 1.26) start with a header:
// used (8 bytes), seed, dirPtr, dirLen. A map of up to eight entries has
// dirLen 0 and dirPtr is its one group of slots; a larger one has dirLen
// tables in a directory at dirPtr, each table's groups at offset 16 of
// the table, their count less one at offset 24. A group is a control word
// (a byte per slot, its high bit clear where the slot holds an entry)
// then eight slots, each a key and its value. Entries never move within a
// table: a larger map gets new groups. Known checks this layout once, at
// start, on maps of its own; without it (or with another Go, see
// strmap_other.go) every function here reads nothing and reports none.
package strmap

import (
	"unsafe"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

const (
	mapUsed     = 0
	mapDirPtr   = 16
	mapDirLen   = 24
	tableGroups = 16
	tableMask   = 24
)

// Slot layout: GroupSize bytes a group, its control byte for slot i at i,
// the slot's key at SlotKey(i) and its value KeySize bytes further.
const (
	SlotsPerGroup = 8
	KeySize       = unsafe.Sizeof("")
	slotSize      = KeySize + unsafe.Sizeof(lua.LValue(nil))
	GroupSize     = 8 + SlotsPerGroup*slotSize
)

// SlotKey is the offset of slot i's key in its group.
func SlotKey(i int) uintptr { return 8 + uintptr(i)*slotSize }

// known: the layout holds (checkLayout).
var known = checkLayout()

// Known reports whether maps are laid out as this package reads them.
func Known() bool { return known }

// checkLayout reports whether maps of 8 and 9 strings hold what the
// layout says: the count of entries first, a small map's group at dirPtr,
// a larger one's one table with two groups, and every entry in a full
// slot of them, under its key.
func checkLayout() bool {
	for _, n := range []int{8, 9} {
		m := map[string]lua.LValue{}
		for i := range n {
			m[string(rune('a'+i))] = lua.LNumber(i)
		}
		p := *(*unsafe.Pointer)(unsafe.Pointer(&m))
		if *(*uint64)(unsafe.Add(p, mapUsed)) != uint64(n) || *(*unsafe.Pointer)(unsafe.Add(p, mapDirPtr)) == nil {
			return false
		}
		dirLen := *(*int)(unsafe.Add(p, mapDirLen))
		if n == 8 && dirLen != 0 || n == 9 && dirLen != 1 {
			return false
		}
		g, groups := groupsOf(p)
		if g == nil || groups != (n+7)/8 {
			return false
		}
		found := 0
		for gi := range groups {
			for i := range SlotsPerGroup {
				base := unsafe.Add(g, uintptr(gi)*GroupSize)
				if *(*uint8)(unsafe.Add(base, i))&0x80 != 0 {
					continue
				}
				k := *(*string)(unsafe.Add(base, SlotKey(i)))
				v := *(*lua.LValue)(unsafe.Add(base, SlotKey(i)+KeySize))
				if x, ok := m[k]; !ok || x != v {
					return false
				}
				found++
			}
		}
		if found != n {
			return false
		}
	}
	return true
}

// Of is t's string map, nil for none (or an unknown layout).
func Of(t *lua.LTable) unsafe.Pointer {
	if t == nil || !known {
		return nil
	}
	m := luaval.StringMap(t)
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// Groups is where m keeps its entries when it keeps them all in one array
// of groups (a small map's one group, a larger one's one table), and how
// many groups that holds; nil, 0 otherwise.
func Groups(m unsafe.Pointer) (unsafe.Pointer, int) {
	if m == nil || !known {
		return nil, 0
	}
	return groupsOf(m)
}

// Table is Groups, with the table that holds the groups (nil for a small
// map's one group).
func Table(m unsafe.Pointer) (tab, g unsafe.Pointer, groups int) {
	if m == nil || !known {
		return nil, nil, 0
	}
	return tableOf(m)
}

func groupsOf(m unsafe.Pointer) (unsafe.Pointer, int) {
	_, g, n := tableOf(m)
	return g, n
}

func tableOf(m unsafe.Pointer) (tab, g unsafe.Pointer, groups int) {
	d := *(*unsafe.Pointer)(unsafe.Add(m, mapDirPtr))
	if d == nil {
		return nil, nil, 0
	}
	switch *(*int)(unsafe.Add(m, mapDirLen)) {
	case 0:
		return nil, d, 1
	case 1:
		t := *(*unsafe.Pointer)(d)
		if t == nil {
			return nil, nil, 0
		}
		return t, *(*unsafe.Pointer)(unsafe.Add(t, tableGroups)), int(*(*uint64)(unsafe.Add(t, tableMask)) + 1)
	}
	return nil, nil, 0
}
