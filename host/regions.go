package host

import (
	"errors"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Parallel regions (docs/lua-reference.md: Parallel regions): an ai.regions state's
// children are all active, decide and update in name order; a pending event
// is offered to each. Entering and leaving them is enter/exit's (tick.go),
// their configuration in Agent.State writeConfig's (agent.go), requests
// across them stack.go's. Here: their tick, the check of a saved stack,
// and how a reload carries them over (remapRegions, settleRegions).

// decideRegions lets every region of n decide, in name order. Each is
// offered every pending event: one consumed in a region stays visible to
// the others, and is consumed for the tick if any region consumed it. The
// cost is in the events consumed, not the events pending.
func (a *Agent) decideRegions(n *place, p *pending) {
	start := len(p.taken)
	p.regions++
	for _, i := range a.ms[n.mid].stack {
		if p.tickOver(a.w.vm, n) {
			break
		}
		from := len(p.taken)
		a.decide(n.children[i], p)
		// Every event this region consumed was pending when it began.
		for _, j := range p.taken[from:] {
			if p.ev[j].consumed {
				p.ev[j].consumed = false
				p.left++
			}
		}
	}
	p.regions--
	for _, j := range p.taken[start:] {
		if !p.ev[j].consumed {
			p.ev[j].consumed = true
			p.left--
		}
	}
}

// checkRegions checks the stack a snapshot gives machine n: for an
// ai.regions state, every region or none, in name order.
func checkRegions(n *place, stack []int) error {
	if !n.isRegions() || len(stack) == 0 {
		return nil
	}
	for k, i := range stack {
		if i != k || len(stack) != len(n.children) {
			return errors.New("every region must be listed, in name order")
		}
	}
	return nil
}

// remapRegions finishes remapStack where o or n is an ai.regions state
// (nm.stack holds o's active children that n still has).
func remapRegions(o, n *place, om, nm *machineRT) (gone bool, left *leftStates) {
	switch {
	case n.isRegions():
		// Every region stays active; regions new here are entered after
		// the swap (settle).
		slices.Sort(nm.stack)
	case len(nm.stack) > 0:
		// Regions became one machine: one of them stays active (the
		// initial if it was one, else the first), the others are left.
		keep := nm.stack[0]
		if slices.Contains(nm.stack, n.initial) {
			keep = n.initial
		}
		var others []int
		for _, c := range nm.stack {
			if c != keep {
				others = append(others, c)
			}
		}
		left = &leftStates{n, others}
		nm.stack = append(nm.stack[:0], keep)
	default:
		gone = len(om.stack) > 0
	}
	return gone, left
}

// settleRegions is settle for an active ai.regions state: regions new in
// the reload are entered, then every region settles.
func (a *Agent) settleRegions(n *place, vanished []*place, oldPath string) {
	m := &a.ms[n.mid]
	had := slices.Clone(m.stack)
	if len(had) < len(n.children) {
		// Fresh regions: enter them, keeping the stack in name order.
		m.stack = m.stack[:0]
		for i := range n.children {
			m.stack = append(m.stack, i)
		}
		for i, c := range n.children {
			if !slices.Contains(had, i) {
				a.enter(c, lua.LNil)
			}
		}
		a.emitState(TransitionReload, oldPath)
	}
	for _, i := range had {
		a.settle(n.children[i], vanished, oldPath)
	}
}
