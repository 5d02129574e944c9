package host

import (
	"unsafe"

	"github.com/luaai/luaai/host/internal/prefetch"
	"github.com/luaai/luaai/internal/luaval"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// lookahead asks the CPU for what the next agents' ticks will read while
// one agent ticks (see package prefetch): a tick sweeps thousands of
// agents and reads each one's records once, so without it nearly every
// record an agent's tick reads is a wait on memory.
//
// It predicts which agents a host tick will tick (not suspended, due at
// their interval), scanning ahead of the tick: the first line of each
// agent it will look at, eight agents ahead of the scan; then, for the
// next four agents it predicts, one step of a chain each, so that every
// pointer is read from the cache once its target is on the way there:
// four ahead the agent's other hot lines, three ahead what those point to
// (state and machine records' first lines, the context table), two ahead
// the context's string map, the rest of the records and the root utility
// machine's remembered reads (defs.Reads), one ahead the map's slots (or
// its directory), the root machine's stack and, where the reads remember
// fields, the map's table and the slots they were found in. A prediction is never a decision: Host.Tick
// decides as it comes to each agent (an agent's own tick may suspend
// another's through agent:tick), and a wrong one costs a wasted hint.
type lookahead struct {
	ags  []*Agent
	tn   int
	scan int    // the next agent the scan looks at
	due  [4]int // the agents predicted next, ahead of the one ticking
	n    int    // how many of due are set, from 0
}

// lineAhead is how far ahead of the scan an agent's first line is asked for.
const lineAhead = 8

// start begins host tick tn over ags.
func (l *lookahead) start(ags []*Agent, tn int) {
	*l = lookahead{ags: ags, tn: tn}
	for i := 0; i < lineAhead && i < len(ags); i++ {
		prefetch.Line(uintptr(unsafe.Pointer(ags[i])))
	}
}

// warm is called as agent k ticks.
func (l *lookahead) warm(k int) {
	// Drop the predictions the tick has reached.
	drop := 0
	for drop < l.n && l.due[drop] <= k {
		drop++
	}
	if drop > 0 {
		copy(l.due[:], l.due[drop:l.n])
		l.n -= drop
	}
	if l.scan <= k {
		l.scan = k + 1
	}
	for l.n < len(l.due) && l.scan < len(l.ags) {
		i := l.scan
		l.scan++
		if j := i + lineAhead; j < len(l.ags) {
			prefetch.Line(uintptr(unsafe.Pointer(l.ags[j])))
		}
		if a := l.ags[i]; a.suspension == NotSuspended && a.due(l.tn) {
			l.due[l.n] = i
			l.n++
		}
	}
	if l.n == 0 {
		return
	}
	stage1(l.ags[l.due[0]])
	if l.n > 1 {
		stage2(l.ags[l.due[1]])
	}
	if l.n > 2 {
		stage3(l.ags[l.due[2]])
	}
	if l.n > 3 {
		p := uintptr(unsafe.Pointer(l.ags[l.due[3]]))
		prefetch.Lines4(p+64, p+128, p+192, p+256)
	}
}

// stage3 asks for the first lines of a's state and machine records, and
// its context table.
func stage3(a *Agent) {
	n, m := records(a)
	prefetch.Lines4(n, m, uintptr(unsafe.Pointer(a.ctx)), n+64)
}

// stage2 asks for a's context's string map, the rest of its records (up
// to maxRecordLines lines of each) and its root utility machine's reads.
func stage2(a *Agent) {
	n, m := records(a)
	prefetch.Lines4(uintptr(stringMap(a.ctx)), m+64, n+128, m+128)
	if len(a.ms) > 0 && a.ms[0].reads != nil {
		r := uintptr(unsafe.Pointer(a.ms[0].reads))
		prefetch.Lines4(r, r+64, r+unsafe.Sizeof(defs.Reads{})-1, r)
	}
	rest(n, len(a.nodes)*int(unsafe.Sizeof(placeRT{})))
	rest(m, len(a.ms)*int(unsafe.Sizeof(machineRT{})))
}

// maxRecordLines bounds the lines of an agent's records asked for ahead.
const maxRecordLines = 8

// rest asks for the lines of size bytes at base past its first three.
func rest(base uintptr, size int) {
	for off := 192; off < size && off < maxRecordLines*64; off += 256 {
		p := base + uintptr(off)
		prefetch.Lines4(p, p+64, p+128, p+192)
	}
}

// stage1 asks for the slots of a's context's string map and its root
// machine's stack, and where the root's reads remember fields, the map's
// table and the slots they hold (up to maxSlotLines lines).
func stage1(a *Agent) {
	var st uintptr
	if len(a.ms) > 0 && cap(a.ms[0].stack) > 0 {
		st = uintptr(unsafe.Pointer(unsafe.SliceData(a.ms[0].stack)))
	}
	if sd := stringMap(a.ctx); sd != nil {
		g := mapSlots(sd)
		prefetch.Lines4(st, g, g+64, g+128)
	}
	if len(a.ms) == 0 || a.ms[0].reads == nil {
		return
	}
	if tab, g, size := a.ms[0].reads.Hint(); g != nil {
		p := uintptr(g)
		t := p // no table (a map of one group): a hint for address 0 costs a page walk
		if tab != nil {
			t = uintptr(tab) + 16
		}
		prefetch.Lines4(t, p, p+64, p+128)
		for off := 192; off < size && off < maxSlotLines*64; off += 256 {
			prefetch.Lines4(p+uintptr(off), p+uintptr(off)+64, p+uintptr(off)+128, p+uintptr(off)+192)
		}
	}
}

// maxSlotLines bounds the lines of a context map's slots asked for ahead.
const maxSlotLines = 16

// mapSlots is where the Go map whose header is at m keeps its slots, for
// hints (0 for none): a Go map (Go 1.24 on) starts with its count, its
// seed, where its slots are and the length of its directory, and a map of
// one group (up to 8 entries) has its slots there, a control word then 8
// slots of a key and a value, filled from the first; a larger one has its
// directory there. Only a hint may use it: with another layout, a
// prefetch of whatever address it gives is harmless.
func mapSlots(m unsafe.Pointer) uintptr { return *(*uintptr)(unsafe.Add(m, 16)) }

// mapSmall reports whether the Go map whose header is at m keeps its
// slots in one group (see mapSlots).
func mapSmall(m unsafe.Pointer) bool { return *(*int)(unsafe.Add(m, 24)) == 0 }

// records is where a's state and machine records start (0 for none).
func records(a *Agent) (nodes, ms uintptr) {
	if len(a.nodes) > 0 {
		nodes = uintptr(unsafe.Pointer(&a.nodes[0]))
	}
	if len(a.ms) > 0 {
		ms = uintptr(unsafe.Pointer(&a.ms[0]))
	}
	return nodes, ms
}

// stringMap is where t's string map is, or nil.
func stringMap(t *lua.LTable) unsafe.Pointer {
	if t == nil {
		return nil
	}
	m := luaval.StringMap(t)
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}
