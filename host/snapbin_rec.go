package host

// The state and machine records of a binary snapshot's agent record,
// written from an agent's own records (a blocking save) or from a copy of
// them (an asynchronous save's): the same bytes either way.

import (
	"encoding/binary"
	"unsafe"
)

// placeWords is the size of a placeRT in words (it holds float64s, so its
// size is a multiple of 8).
const placeWords = unsafe.Sizeof(placeRT{}) / 8

// stateFlags reads a placeRT's six words one by one: these fail to
// compile when its size changes.
var (
	_ [placeWords - 6]struct{}
	_ [6 - placeWords]struct{}
)

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
func (rt *placeRT) held() bool { return stateFlags(rt) != 0 }

// stateFlags is the flags of a state's record but binHasTree: 0 for the
// zero record, told at once where all its bytes are 0 (most records: the
// states not active).
func stateFlags(rt *placeRT) byte {
	w := (*[placeWords]uint64)(unsafe.Pointer(rt))
	if w[0]|w[1]|w[2]|w[3]|w[4]|w[5] == 0 {
		return 0
	}
	return bit(rt.time != 0, binHasTime) | bit(rt.every != 0, binHasEvery) |
		bit(rt.step != 0, binHasStep) | bit(rt.stepTime != 0, binHasStepTime) |
		bit(rt.stepSeen, binStepSeen) | bit(rt.treeTime != 0, binHasTreeTime)
}

// bit is f if on, else 0.
func bit(on bool, f byte) byte {
	var b byte
	if on {
		b = 1
	}
	return b * f
}

// countFirst starts a list of the records of candidates things, those
// held says hold something: a count byte at the returned offset, to be
// patched once they are written (patchCount), where there are fewer than
// 128 candidates (most lists), else their count, varint, counted first.
func countFirst(b []byte, candidates int, held func(i int) bool) ([]byte, int) {
	at := len(b)
	if candidates < 128 {
		return append(b, 0), at
	}
	n := 0
	for i := range candidates {
		if held(i) {
			n++
		}
	}
	return binary.AppendUvarint(b, uint64(n)), at
}

// patchCount writes n, the records written, at the byte countFirst left at
// at for fewer than 128 candidates.
func patchCount(b []byte, at, candidates, n int) {
	if candidates < 128 {
		b[at] = byte(n)
	}
}

// statesOf writes the records of the states of t that hold something, in
// layout order, after how many there are: a byte patched afterwards where
// t has fewer than 128 states (most do), else counted first. bt is read
// only where t has tree states.
func (w *binWriter) statesOf(b []byte, t *layout, nodes []placeRT, bt []btRT) []byte {
	ln := w.namesOf(t)
	flagsOf := func(st *stateNames) byte {
		f := stateFlags(&nodes[st.id])
		if st.tree != nil && treeHeld(bt, st.tree) {
			f |= binHasTree
		}
		return f
	}
	b, at := countFirst(b, len(ln.states), func(i int) bool { return flagsOf(&ln.states[i]) != 0 })
	n := 0
	for i := range ln.states {
		st := &ln.states[i]
		flags := flagsOf(st)
		if flags == 0 {
			continue
		}
		n++
		rt := &nodes[st.id]
		b = w.known(b, st.pathNum, st.path)
		b = append(b, flags)
		if flags&binHasTime != 0 {
			b = appendFloat(b, rt.time)
		}
		if flags&binHasEvery != 0 {
			b = appendFloat(b, rt.every)
		}
		if flags&binHasStep != 0 {
			b = binary.AppendVarint(b, int64(rt.step))
		}
		if flags&binHasStepTime != 0 {
			b = appendFloat(b, rt.stepTime)
		}
		if flags&binHasTreeTime != 0 {
			b = appendFloat(b, rt.treeTime)
		}
		if flags&binHasTree != 0 {
			b = w.tree(b, bt, st.tree)
		}
	}
	patchCount(b, at, len(ln.states), n)
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
// layout order, after how many there are (as statesOf counts), from an
// agent's records (ms) or from their copies.
func (w *binWriter) machinesOf(b []byte, t *layout, ms []machineRT, copies []machineCopy) []byte {
	ln := w.namesOf(t)
	rec := func(mid int) ([]int, int, float64) {
		if ms != nil {
			m := &ms[mid]
			return m.stack, m.history, m.decideAcc
		}
		m := &copies[mid]
		return m.stack, m.history, m.decideAcc
	}
	b, at := countFirst(b, len(ln.machines), func(i int) bool {
		stack, history, acc := rec(ln.machines[i].mid)
		return len(stack) > 0 || history >= 0 || acc != 0
	})
	n := 0
	for i := range ln.machines {
		m := &ln.machines[i]
		stack, history, acc := rec(m.mid)
		if len(stack) == 0 && history < 0 && acc == 0 {
			continue
		}
		n++
		b = w.known(b, m.pathNum, m.path)
		b = binary.AppendUvarint(b, uint64(len(stack)))
		for _, c := range stack {
			b = w.known(b, &m.nums[c], m.kids[c])
		}
		if history >= 0 {
			b = w.known(b, &m.nums[history], m.kids[history])
		} else {
			b = w.known(b, &w.empty, "")
		}
		b = appendFloat(b, acc)
	}
	patchCount(b, at, len(ln.machines), n)
	return b
}
