package host

// Matching pending events to transitions in the decide phase. A transition
// waiting on an event is offered the unconsumed events of that name, in
// the order they were sent; the first its when accepts (and the stack
// rules allow) fires it and is consumed. The decide phase finds those
// events through an index by name, so it costs in proportion to the events
// plus the transitions it tries, not their product: a state with tens of
// thousands of transitions and an agent sent tens of thousands of events a
// tick cost milliseconds, not seconds (BenchmarkEventFlood). Regions undo
// only the consumptions they made. What it cannot bound that way (when
// callbacks, each tried against every event of its name) is charged to
// the agent's tick budget: its loops stop when the tick is over, and a
// stop between callbacks is reported once, at the state whose transitions
// were being tried (Options.AgentTickBudget).

import "github.com/luaai/luaai/luabind/defs"

// The decide phase scans the pending events for each transition's name
// until it has looked at indexAfter events per pending event (plus
// indexSlack); then it indexes them by name. An ordinary agent (a few
// transitions, a few dozen events) never builds the index; a flood builds
// it after a few transitions, so the scans cost at most a few times the
// events. (Variables for the tests, which try every way.)
var (
	indexAfter = 8
	indexSlack = 256
)

// pollEvery is how many events a loop skips between looks at the tick
// budget.
const pollEvery = 256

// pending is one decide phase's view of the agent's visible events: which
// are left, what the phase consumed, and the index by name.
type pending struct {
	ev   []event
	left int // events not consumed
	// taken lists the consumptions made in regions, in order: a region's
	// are undone before the next region decides (regions.go); regions is
	// how many regions the phase is in.
	taken   []int32
	regions int
	scanned int // events the scans looked at
	// The index by name, built when a transition first needs it: first is
	// the position of the first event of each name, next that of the
	// following event of the same name (-1: none).
	first map[string]int32
	next  []int32
	// cut is set when the agent's tick budget stopped the phase: the state
	// whose transitions it was trying.
	cut *place
}

func newPending(ev []event) pending {
	return pending{ev: ev, left: len(ev)}
}

// consume marks event j consumed.
func (p *pending) consume(j int) {
	p.ev[j].consumed = true
	p.left--
	if p.regions > 0 {
		p.taken = append(p.taken, int32(j))
	}
}

// index builds first and next.
func (p *pending) index() {
	p.first = make(map[string]int32)
	p.next = make([]int32, len(p.ev))
	for j := len(p.ev) - 1; j >= 0; j-- {
		name := p.ev[j].name
		if k, ok := p.first[name]; ok {
			p.next[j] = k
		} else {
			p.next[j] = -1
		}
		p.first[name] = int32(j)
	}
}

// named returns the position of the first event named name after
// position from (from < 0: from the start), or -1.
func (p *pending) named(name string, from int) int {
	if p.first == nil && p.scanned > indexAfter*len(p.ev)+indexSlack {
		p.index()
	}
	if p.first == nil {
		for j := from + 1; j < len(p.ev); j++ {
			if p.ev[j].name == name {
				p.scanned += j - from
				return j
			}
		}
		p.scanned += len(p.ev) - from
		return -1
	}
	if from < 0 {
		if j, ok := p.first[name]; ok {
			return int(j)
		}
		return -1
	}
	return int(p.next[from])
}

// tickOver reports whether the agent's tick budget has run out, noting in
// p where the phase stopped.
func (p *pending) tickOver(vm *defs.VM, s *place) bool {
	if p.cut != nil {
		return true
	}
	if vm.TickOver() {
		p.cut = s
		return true
	}
	return false
}
