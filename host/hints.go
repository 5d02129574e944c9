package host

import (
	"reflect"
	"unsafe"

	"github.com/luaai/luaai/host/internal/prefetch"
	lua "github.com/yuin/gopher-lua"
)

// Hints for the CPU's caches (package prefetch) about the Go maps behind
// a Lua table that a tick is about to read: at 50,000 units a unit's
// tables are not in the caches when its tick comes, and each map lookup
// would wait on memory for the map's header, then for its slots.
//
// A hint holds addresses found while the map was live (at the end of the
// unit's last tick), and asks for them later without reading through
// them: an address the table no longer uses (its map grew, or was
// replaced) costs a wasted prefetch, never a read.
//
// A Go map (Go 1.24 on) starts with its count, its seed, where its slots
// are and the length of its directory: 0 for a map of up to eight entries,
// whose slots are one group (a control word, then eight slots of a key and
// a value, filled from the first); a larger map's slots are a directory
// and a table away, and its hint names the header only.

// fieldAt is the offset of the LTable field name of type typ, or false.
func fieldAt(name string, typ reflect.Type) (uintptr, bool) {
	f, ok := reflect.TypeOf(lua.LTable{}).FieldByName(name)
	if !ok || f.Type != typ {
		return 0, false
	}
	return f.Offset, true
}

var (
	// strdictAt is where an LTable keeps its string map, and k2iAt its
	// key index (the map RawSetString looks every key up in, boxed).
	strdictAt, strdictOK = fieldAt("strdict", reflect.TypeOf(map[string]lua.LValue(nil)))
	k2iAt, k2iOK         = fieldAt("k2i", reflect.TypeOf(map[lua.LValue]int(nil)))
)

// Slot sizes of the two maps: a key and a value.
const (
	strdictSlot = unsafe.Sizeof("") + unsafe.Sizeof(lua.LValue(nil))
	k2iSlot     = unsafe.Sizeof(lua.LValue(nil)) + unsafe.Sizeof(0)
)

// mapAt is the map header held in the LTable field at off of t (nil for
// none), and how many entries the map holds.
func mapAt(t *lua.LTable, off uintptr) (unsafe.Pointer, int) {
	m := *(*map[int]int)(unsafe.Add(unsafe.Pointer(t), off)) // any map: only its header and len are read
	return *(*unsafe.Pointer)(unsafe.Pointer(&m)), len(m)
}

// groupOf is where the slots of the live map at hdr with n entries of
// slot bytes each are and where the last one ends (0, 0 for a map whose
// slots are past a directory).
func groupOf(hdr unsafe.Pointer, n int, slot uintptr) (grp, end uintptr) {
	if hdr == nil || n > 8 || *(*int)(unsafe.Add(hdr, 24)) != 0 {
		return 0, 0
	}
	grp = *(*uintptr)(unsafe.Add(hdr, 16))
	return grp, grp + 8 + uintptr(n)*slot
}

// askMap asks for a map's header (the words a lookup reads) and its
// slots from grp to end (none for grp 0).
func askMap(hdr, grp, end uintptr) {
	prefetch.Lines4(hdr, hdr+31, grp, grp+64)
	for p := grp&^63 + 128; p < end; p += 64 {
		prefetch.Line(p)
	}
}

// keysHint is where the key index of an agent's context is: every store
// of a script into the context (ctx.x = ...) looks its key up there. Two
// words, to fit the agent's hot lines: the slots are asked for up to the
// size of a full group.
type keysHint struct {
	hdr, grp uintptr
}

// find sets h from the context t's key index (t must be live).
func (h *keysHint) find(t *lua.LTable) {
	*h = keysHint{}
	if !k2iOK {
		return
	}
	hdr, n := mapAt(t, k2iAt)
	h.hdr = uintptr(hdr)
	h.grp, _ = groupOf(hdr, n, k2iSlot)
}

// ask asks for what h names.
func (h *keysHint) ask() {
	if h.hdr == 0 {
		return
	}
	end := uintptr(0)
	if h.grp != 0 {
		end = h.grp + 8 + 8*k2iSlot
	}
	askMap(h.hdr, h.grp, end)
}
