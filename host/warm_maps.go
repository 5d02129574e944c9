//go:build go1.24 && !go1.27 && (go1.26 || goexperiment.swissmap)

package host

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Where a context's string map keeps its slots, for the lookahead's hints
// (warm.go). Go's maps (internal/runtime/maps, Go 1.24 to 1.26) start with
// a header: used (8 bytes), seed, dirPtr, dirLen. A map of up to eight
// entries has dirLen 0 and dirPtr is its one group of slots; a larger one
// has dirLen tables in a directory at dirPtr, each table's slots (groups)
// at offset 16 of the table, their count less one at offset 24. These are
// the only reads the lookahead makes of a map, each of a pointer the
// runtime keeps valid while the map lives (dirLen guards the directory,
// and a nil check every pointer); mapsKnown checks them once, at start, on
// a map of its own, and the lookahead reads nothing of a map without it.

const (
	mapDirPtr    = 16
	mapDirLen    = 24
	tableGroups  = 16
	tableMask    = 24
	groupSize    = 8 + 8*(unsafe.Sizeof("")+unsafe.Sizeof(lua.LValue(nil)))
	maxSlotBytes = 12 * 64 // the most of a map's slots asked for
)

// mapsKnown: Go's maps are laid out as mapDir and mapSlots read them.
var mapsKnown = checkMaps()

// checkMaps reports whether maps of 0, 8 and 9 strings hold what the
// layout above says: the count of entries first, a small map's group at
// dirPtr, a larger one's one table with slots for 16 (two groups).
func checkMaps() bool {
	for _, n := range []int{8, 9} {
		m := map[string]lua.LValue{}
		for i := range n {
			m[string(rune('a'+i))] = lua.LTrue
		}
		p := *(*unsafe.Pointer)(unsafe.Pointer(&m))
		if *(*uint64)(p) != uint64(n) || *(*unsafe.Pointer)(unsafe.Add(p, mapDirPtr)) == nil {
			return false
		}
		dirLen := *(*int)(unsafe.Add(p, mapDirLen))
		if n == 8 && dirLen != 0 || n == 9 && dirLen != 1 {
			return false
		}
		if n == 9 {
			g, size := mapSlotsOf(p)
			if g == nil || size != 2*groupSize {
				return false
			}
		}
	}
	return true
}

// mapDir is where m's directory (dirLen > 0) or its one group of slots
// is, and whether it is a directory; nil for no map.
func mapDir(m unsafe.Pointer) (p unsafe.Pointer, dir bool) {
	if m == nil || !mapsKnown {
		return nil, false
	}
	return *(*unsafe.Pointer)(unsafe.Add(m, mapDirPtr)), *(*int)(unsafe.Add(m, mapDirLen)) > 0
}

// mapTable is the first table of m, a map with a directory (nil
// otherwise).
func mapTable(m unsafe.Pointer) unsafe.Pointer {
	d, dir := mapDir(m)
	if d == nil || !dir {
		return nil
	}
	return *(*unsafe.Pointer)(d)
}

// mapSlots is where the slots of m's first table are and their size in
// bytes (nil, 0 for a map without a directory).
func mapSlots(m unsafe.Pointer) (unsafe.Pointer, uintptr) {
	if !mapsKnown {
		return nil, 0
	}
	return mapSlotsOf(m)
}

func mapSlotsOf(m unsafe.Pointer) (unsafe.Pointer, uintptr) {
	if m == nil || *(*int)(unsafe.Add(m, mapDirLen)) <= 0 {
		return nil, 0
	}
	d := *(*unsafe.Pointer)(unsafe.Add(m, mapDirPtr))
	if d == nil {
		return nil, 0
	}
	t := *(*unsafe.Pointer)(d)
	if t == nil {
		return nil, 0
	}
	g := *(*unsafe.Pointer)(unsafe.Add(t, tableGroups))
	n := *(*uint64)(unsafe.Add(t, tableMask)) + 1
	return g, uintptr(n) * groupSize
}
