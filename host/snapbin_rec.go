package host

// The state and machine records of a binary snapshot's agent record,
// written from an agent's own records (a blocking save) or from a copy of
// them (an asynchronous save's): the same bytes either way.

import "encoding/binary"

// treeHeld tells whether any of n's tree records in bt holds something.
func treeHeld(bt []btRT, n *place) bool {
	if n.bt == nil {
		return false
	}
	for i := range n.bt.Nodes {
		if bt[n.btBase+i] != (btRT{}) {
			return true
		}
	}
	return false
}

// held tells whether a state's record holds something (is not the zero
// record).
func (rt *placeRT) held() bool {
	return rt.time != 0 || rt.every != 0 || rt.stepTime != 0 || rt.step != 0 || rt.stepSeen || rt.treeTime != 0
}

// statesOf writes the records of the states of t that hold something, in
// layout order, after how many there are: a byte patched afterwards where
// t has fewer than 128 states (most do), else counted first.
func (w *binWriter) statesOf(b []byte, t *layout, nodes []placeRT, bt []btRT) []byte {
	ln := w.namesOf(t)
	at := len(b)
	if len(t.places) < 128 {
		b = append(b, 0)
	} else {
		n := 0
		for _, p := range t.places {
			if nodes[p.id].held() || treeHeld(bt, p) {
				n++
			}
		}
		b = binary.AppendUvarint(b, uint64(n))
	}
	n := 0
	for _, p := range t.places {
		rt := &nodes[p.id]
		tree := p.bt != nil && treeHeld(bt, p)
		if !tree && !rt.held() {
			continue
		}
		n++
		b = w.state(b, bt, ln, p, rt, tree)
	}
	if len(t.places) < 128 {
		b[at] = byte(n)
	}
	return b
}

// state writes the record of the state at n.
func (w *binWriter) state(b []byte, bt []btRT, ln *layoutNames, n *place, rt *placeRT, tree bool) []byte {
	b = w.known(b, &ln.path[n.id], n.path)
	var flags byte
	if rt.time != 0 {
		flags |= binHasTime
	}
	if rt.every != 0 {
		flags |= binHasEvery
	}
	if rt.step != 0 {
		flags |= binHasStep
	}
	if rt.stepTime != 0 {
		flags |= binHasStepTime
	}
	if rt.stepSeen {
		flags |= binStepSeen
	}
	if rt.treeTime != 0 {
		flags |= binHasTreeTime
	}
	if tree {
		flags |= binHasTree
	}
	b = append(b, flags)
	if rt.time != 0 {
		b = appendFloat(b, rt.time)
	}
	if rt.every != 0 {
		b = appendFloat(b, rt.every)
	}
	if rt.step != 0 {
		b = binary.AppendVarint(b, int64(rt.step))
	}
	if rt.stepTime != 0 {
		b = appendFloat(b, rt.stepTime)
	}
	if rt.treeTime != 0 {
		b = appendFloat(b, rt.treeTime)
	}
	if tree {
		b = w.tree(b, bt, n)
	}
	return b
}

// tree writes the records of n's tree nodes that hold something.
func (w *binWriter) tree(b []byte, bt []btRT, n *place) []byte {
	recs := treeRecords(bt, n)
	count := 0
	for _, tn := range n.bt.Nodes {
		if _, ok := recs[tn.Path]; ok {
			count++
		}
	}
	b = binary.AppendUvarint(b, uint64(count))
	for _, tn := range n.bt.Nodes {
		s, ok := recs[tn.Path]
		if !ok {
			continue
		}
		b = w.str(b, tn.Path)
		var flags byte
		for bit, on := range []bool{s.Running, s.Child != 0, s.Start != 0, s.Done != "", s.Cool != nil} {
			if on {
				flags |= 1 << bit
			}
		}
		b = append(b, flags)
		if s.Child != 0 {
			b = binary.AppendVarint(b, int64(s.Child))
		}
		if s.Start != 0 {
			b = appendFloat(b, s.Start)
		}
		if s.Done != "" {
			b = w.str(b, s.Done)
		}
		if s.Cool != nil {
			b = appendFloat(b, *s.Cool)
		}
	}
	return b
}

// machinesOf writes the records of t's machines that hold something, in
// layout order, after how many there are (as statesOf counts); rec is
// machine mid's stack, history and decision clock.
func (w *binWriter) machinesOf(b []byte, t *layout, rec func(mid int) ([]int, int, float64)) []byte {
	ln := w.namesOf(t)
	held := func(stack []int, history int, acc float64) bool {
		return len(stack) > 0 || history >= 0 || acc != 0
	}
	at := len(b)
	if len(ln.machines) < 128 {
		b = append(b, 0)
	} else {
		n := 0
		for _, p := range ln.machines {
			if held(rec(p.mid)) {
				n++
			}
		}
		b = binary.AppendUvarint(b, uint64(n))
	}
	n := 0
	for _, p := range ln.machines {
		stack, history, acc := rec(p.mid)
		if !held(stack, history, acc) {
			continue
		}
		n++
		b = w.known(b, &ln.path[p.id], p.path)
		b = binary.AppendUvarint(b, uint64(len(stack)))
		names := ln.child[p.id]
		for _, i := range stack {
			b = w.known(b, &names[i], p.children[i].name)
		}
		if history >= 0 {
			b = w.known(b, &names[history], p.children[history].name)
		} else {
			b = w.known(b, &w.empty, "")
		}
		b = appendFloat(b, acc)
	}
	if len(ln.machines) < 128 {
		b[at] = byte(n)
	}
	return b
}
