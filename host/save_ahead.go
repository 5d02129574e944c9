package host

import (
	"unsafe"

	"github.com/luaai/luaai/host/internal/prefetch"
	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// saveAhead asks the CPU for what the next agents' records will need
// while a blocking binary save writes one (see package prefetch and the
// tick's lookahead): the save reads each agent's records once, in the
// order of the agents, and without the hints nearly every one is a wait
// on memory. Each agent ahead gets one step of its chain of pointers, so
// that every pointer is read from the cache once its target is on the way
// there: five agents ahead the agent's lines the save reads, four ahead
// its context table and its state and machine records, three ahead the
// context's key list and string map and its first four machines' stacks,
// two ahead the string map's slots (a map of up to eight keys) or its
// directory.
type saveAhead []*Agent

// How many agents ahead of the one written each step is.
const (
	saveAheadDepth = 5 // the agent's lines
	aheadRecords   = 4 // its context table, state and machine records
	aheadLists     = 3 // the key list, string map and stacks
	aheadSlots     = 2 // the map's slots
)

// start asks for the first agents' steps, the save being about to write
// the first.
func (s saveAhead) start() {
	for i := -saveAheadDepth; i < 0; i++ {
		s.warm(i)
	}
}

// warm is called as agent i is written.
func (s saveAhead) warm(i int) {
	n := len(s)
	if j := i + saveAheadDepth; j < n && j >= 0 {
		p := uintptr(unsafe.Pointer(s[j]))
		// The lines of an Agent the save reads: the hot ones, then the
		// behaviour, kind and random state, then the overruns (its tree
		// records' line is read only for a behaviour with trees).
		o := unsafe.Offsetof(s[j].overruns)
		prefetch.Lines4(p, p+64, p+128, p+192)
		prefetch.Lines4(p+320, p+384, p+o, p+o)
	}
	if j := i + aheadRecords; j < n && j >= 0 {
		a := s[j]
		nodes, ms := records(a)
		p := uintptr(unsafe.Pointer(a))
		c := or(uintptr(unsafe.Pointer(a.ctx)), p)
		prefetch.Lines4(c, c+64, or(nodes, p), or(ms, p))
		saveLines(nodes, len(a.nodes)*int(unsafe.Sizeof(placeRT{})))
		if len(a.ms) > 0 {
			// Of the last machine, only its first fields are read.
			saveLines(ms, (len(a.ms)-1)*int(unsafe.Sizeof(machineRT{}))+int(unsafe.Offsetof(machineRT{}.req)))
		}
	}
	if j := i + aheadLists; j < n && j >= 0 {
		a := s[j]
		// Absent ones are asked for as the agent's first line (a hint
		// for address 0 would cost a page walk).
		p := uintptr(unsafe.Pointer(a))
		st := [4]uintptr{p, p, p, p}
		for i := range min(len(a.ms), len(st)) {
			if cap(a.ms[i].stack) > 0 {
				st[i] = uintptr(unsafe.Pointer(unsafe.SliceData(a.ms[i].stack)))
			}
		}
		prefetch.Lines4(st[0], st[1], st[2], st[3])
		if a.ctx != nil {
			k := keyList(a.ctx)
			m := or(uintptr(stringMap(a.ctx)), k)
			prefetch.Lines4(k, m, k, m)
		}
	}
	if j := i + aheadSlots; j < n && j >= 0 {
		if sd := stringMap(s[j].ctx); sd != nil {
			// The map's third word is where its slots are, or its
			// directory (Go's maps, as the tick's lookahead reads them; a
			// hint only: a prefetch of any address is harmless). A small
			// map fills its slots from the first: its control word, then
			// 32 bytes a key.
			g := *(*uintptr)(unsafe.Add(sd, 16))
			if g == 0 {
				// no slots yet
			} else if used := 8 + 32*len(luaval.StringMap(s[j].ctx)); used <= 128 {
				prefetch.Lines4(g, g+uintptr(min(64, used-1)), g+uintptr(used)-1, g)
			} else {
				prefetch.Lines4(g, g+64, g+128, g+192)
			}
		}
	}
}

// saveLines asks for the lines of size bytes at base past base's line,
// up to maxRecordLines lines of them.
func saveLines(base uintptr, size int) {
	end := base + uintptr(min(size, maxRecordLines*64))
	p := base&^63 + 64
	for ; p+192 < end; p += 256 {
		prefetch.Lines4(p, p+64, p+128, p+192)
	}
	for ; p < end; p += 64 {
		prefetch.Line(p)
	}
}

// keyList is where t's key list is (t itself for none).
func keyList(t *lua.LTable) uintptr {
	if k, ok := luaval.HashKeys(t); ok && len(k) > 0 {
		return uintptr(unsafe.Pointer(unsafe.SliceData(k)))
	}
	return uintptr(unsafe.Pointer(t))
}

// or is p, or else (p is 0) q: a hint for address 0 would cost a page
// walk.
func or(p, q uintptr) uintptr {
	if p == 0 {
		return q
	}
	return p
}
