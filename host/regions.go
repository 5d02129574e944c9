package host

// Parallel regions (README: Parallel regions): an ai.regions state's
// children are all active, decide and update in name order; a pending event
// is offered to each. Entering and leaving them is enter/exit's (tick.go),
// their configuration in Agent.State writeConfig's (agent.go), requests
// across them stack.go's.

// decideRegions lets every region of n decide, in name order. Each is
// offered every pending event: one consumed in a region stays visible to
// the others, and is consumed for the tick if any region consumed it.
func (a *Agent) decideRegions(n *node) {
	st := a.ms[n.mid].stack
	if len(a.visible) == 0 {
		for _, i := range st {
			a.decide(n.children[i])
		}
		return
	}
	var buf [32]bool
	before, used := buf[:0:16], buf[16:16]
	if len(a.visible) > 16 {
		before, used = make([]bool, 0, len(a.visible)), make([]bool, 0, len(a.visible))
	}
	for i := range a.visible {
		before = append(before, a.visible[i].consumed)
		used = append(used, a.visible[i].consumed)
	}
	for _, i := range st {
		for j := range a.visible {
			a.visible[j].consumed = before[j]
		}
		a.decide(n.children[i])
		for j := range a.visible {
			used[j] = used[j] || a.visible[j].consumed
		}
	}
	for j := range a.visible {
		a.visible[j].consumed = used[j]
	}
}
