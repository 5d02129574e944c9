package host

import (
	"unsafe"

	"github.com/luaai/luaai/host/internal/prefetch"
	"github.com/luaai/luaai/internal/strmap"
	"github.com/luaai/luaai/luabind/defs"
)

// lookahead asks the CPU for what the next agents' ticks will read while
// one agent ticks (see package prefetch): a tick sweeps thousands of
// agents and reads each one's records once, so without it nearly every
// record an agent's tick reads is a wait on memory.
//
// It predicts which agents a host tick will tick (not suspended, due at
// their interval), scanning ahead of the tick: the first line of each
// agent it will look at, eight agents ahead of the scan; then, for the
// next aheadDepth agents it predicts, one step of a chain each, so that
// every pointer is read from the cache once its target is on the way
// there: six ahead the agent's other hot lines, five ahead what those
// point to (state and machine records' first lines, the context table),
// four ahead the context's string map and the rest of the records, three
// ahead the map's directory (or, for a map of up to eight keys, its
// slots) and the root machine's remembered reads (defs.Reads), two ahead the map's table, one ahead the table's slots and the
// root machine's stack. A prediction is never a decision: Host.Tick
// decides as it comes to each agent (an agent's own tick may suspend
// another's through agent:tick), and a wrong one costs a wasted hint.
type lookahead struct {
	ags  []*Agent
	tn   int
	scan int             // the next agent the scan looks at
	due  [aheadDepth]int // the agents predicted next, ahead of the one ticking
	n    int             // how many of due are set, from 0
}

// aheadDepth is how many predicted agents the lookahead works on.
const aheadDepth = 6

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
	switch l.n {
	case 6:
		p := uintptr(unsafe.Pointer(l.ags[l.due[5]]))
		prefetch.Lines4(p+64, p+128, p+192, p+192)
		fallthrough
	case 5:
		stage5(l.ags[l.due[4]])
		fallthrough
	case 4:
		stage4(l.ags[l.due[3]])
		fallthrough
	case 3:
		stage3(l.ags[l.due[2]])
		fallthrough
	case 2:
		stage2(l.ags[l.due[1]])
		fallthrough
	case 1:
		stage1(l.ags[l.due[0]])
	}
}

// stage5 asks for the first lines of a's state and machine records, and
// its context table.
func stage5(a *Agent) {
	n, m := records(a)
	prefetch.Lines4(n, m, uintptr(unsafe.Pointer(a.ctx)), n+64)
}

// stage4 asks for a's context's string map and the rest of its records
// (up to maxRecordLines lines of each).
func stage4(a *Agent) {
	n, m := records(a)
	prefetch.Lines4(uintptr(strmap.Of(a.ctx)), m+64, n+128, m+128)
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

// stage3 asks for the directory of a's context's string map, or the
// slots of a map without one, and where its root machine's score plan
// last found its fields.
func stage3(a *Agent) {
	if len(a.ms) > 0 && a.ms[0].reads != nil {
		p := uintptr(unsafe.Pointer(a.ms[0].reads))
		prefetch.Lines4(p, p+unsafe.Sizeof(defs.Reads{})-1, p, p)
	}
	d, dir := strmap.Dir(strmap.Of(a.ctx))
	if d == nil {
		return
	}
	p := uintptr(d)
	if dir {
		prefetch.Line(p)
		return
	}
	lines(p, strmap.GroupSize)
}

// stage2 asks for the first table of a's context's string map.
func stage2(a *Agent) {
	if t := strmap.Table(strmap.Of(a.ctx)); t != nil {
		prefetch.Line(uintptr(t))
	}
}

// stage1 asks for the slots of a's context's string map's table and its
// root machine's stack.
func stage1(a *Agent) {
	if len(a.ms) > 0 && cap(a.ms[0].stack) > 0 {
		prefetch.Line(uintptr(unsafe.Pointer(unsafe.SliceData(a.ms[0].stack))))
	}
	if g, size := strmap.TableSlots(strmap.Of(a.ctx)); g != nil {
		lines(uintptr(g), size)
	}
}

// maxSlotBytes bounds the bytes of a map's slots asked for.
const maxSlotBytes = 12 * 64

// lines asks for the lines of size bytes at p, up to maxSlotBytes.
func lines(p, size uintptr) {
	size = min(size, maxSlotBytes)
	for off := uintptr(0); off < size; off += 256 {
		q := p + off
		prefetch.Lines4(q, q+min(64, size-off-1), q+min(128, size-off-1), q+min(192, size-off-1))
	}
}

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
