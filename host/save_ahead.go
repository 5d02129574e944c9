package host

import (
	"unsafe"

	"github.com/luaai/luaai/host/internal/prefetch"
	"github.com/luaai/luaai/internal/luaval"
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

// warm is called as agent i is written. It gathers the addresses of
// every step and asks for them in one call.
func (s saveAhead) warm(i int) {
	var l hints
	n := len(s)
	if j := i + saveAheadDepth; j < n && j >= 0 {
		p := uintptr(unsafe.Pointer(s[j]))
		// The lines of an Agent the save reads: the first four hot ones,
		// then those of its tree records, kind, behaviour, random state
		// and overruns (some share a line).
		a := s[j]
		l.add(p, p+64, p+128, p+192, p+unsafe.Offsetof(a.bt), p+unsafe.Offsetof(a.kind),
			p+unsafe.Offsetof(a.b), p+unsafe.Offsetof(a.pcg), p+unsafe.Offsetof(a.overruns))
	}
	if j := i + aheadRecords; j < n && j >= 0 {
		a := s[j]
		if a.ctx != nil {
			c := uintptr(unsafe.Pointer(a.ctx))
			l.add(c, c+64)
		}
		nodes, ms := records(a)
		l.span(nodes, len(a.nodes)*int(unsafe.Sizeof(placeRT{})))
		if len(a.ms) > 0 {
			// Of the last machine, only its first fields are read.
			l.span(ms, (len(a.ms)-1)*int(unsafe.Sizeof(machineRT{}))+int(unsafe.Offsetof(machineRT{}.req)))
		}
	}
	if j := i + aheadLists; j < n && j >= 0 {
		a := s[j]
		for i := range min(len(a.ms), 4) {
			if cap(a.ms[i].stack) > 0 {
				l.add(uintptr(unsafe.Pointer(unsafe.SliceData(a.ms[i].stack))))
			}
		}
		if a.ctx != nil {
			if k, ok := luaval.HashKeys(a.ctx); ok && len(k) > 0 {
				l.add(uintptr(unsafe.Pointer(unsafe.SliceData(k))))
			}
			if m := stringMap(a.ctx); m != nil {
				l.add(uintptr(m))
			}
		}
	}
	if j := i + aheadSlots; j < n && j >= 0 {
		if sd := stringMap(s[j].ctx); sd != nil {
			// Its slots, or its directory (mapSlots): a small map fills
			// its slots from the first, its control word, then 32 bytes
			// a key.
			if g := mapSlots(sd); g != 0 {
				l.span(g, min(8+32*len(luaval.StringMap(s[j].ctx)), 256))
			}
		}
	}
	prefetch.List(l.addrs[:l.n])
}

// hints gathers the addresses warm asks for (never 0: a hint for address
// 0 would cost a page walk).
type hints struct {
	addrs [32]uintptr
	n     int
}

// add adds addresses.
func (l *hints) add(ps ...uintptr) {
	for _, p := range ps {
		if l.n < len(l.addrs) {
			l.addrs[l.n] = p
			l.n++
		}
	}
}

// span adds the lines of size bytes at base (0: none), up to
// maxRecordLines lines.
func (l *hints) span(base uintptr, size int) {
	if base == 0 {
		return
	}
	end := base + uintptr(min(size, maxRecordLines*64))
	for p := base; p < end && l.n < len(l.addrs); p = p&^63 + 64 {
		l.addrs[l.n] = p
		l.n++
	}
}
