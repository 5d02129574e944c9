package lcomp

import (
	lua "github.com/yuin/gopher-lua"
)

// The branch path: a function with forward jumps (if/elseif/else, and, or,
// not, comparisons) and several field writes — a tree action such as
//
//	ctx.x = ctx.x + 3 * dt
//	if ctx.x >= ctx.goal then ctx.x, ctx.tired = 0, true end
//	return "running"
//
// — runs as a tree of Go closures built once from its bytecode, without
// the interpreter's per-instruction dispatch and registers.
//
// The builder follows every path through the code (code only jumps
// forward, so the paths form a tree once the code after a join is copied
// into each branch; a function with too many paths gets no tree). Along
// a path a register holds what computes its value (a field read, an
// arithmetic over other registers, a constant, a parameter), evaluated
// where it is used, as in the straight path (expr.go). A field write
// changes what a later read could see, so before each write every value
// still held in a live register is computed and kept (in the machine's
// registers), and every value computed since the last write and not yet
// used is checked (what the interpreter needs of it: the VM executed its
// instruction, and could have raised there). So all the work the
// interpreter does before a write is done before it, on the same values,
// and after it only what the interpreter does after it.
//
// Each closure does the interpreter's operation on the values at hand, and
// gives up where the interpreter would hand the call to the VM (or where
// the tree is more careful than the interpreter): the run then undoes its
// writes, newest first (the same undo log as the interpreter's, or none
// for a write that nothing after it can undo, marked by Compile), and the
// interpreter runs the call from the start. Each end of the tree knows
// its step count: the instructions executed along its path, as the VM
// counts them.

// Closures of the tree, over the machine (its registers, its undo log, the
// run's arguments).
type (
	bNum  func(m *Machine) (float64, bool)
	bVal  func(m *Machine) (val, bool)
	bTab  func(m *Machine) (*lua.LTable, bool)
	bCond func(m *Machine) (bool, bool)
	bStmt func(m *Machine) bool
)

// branchArgs are one run's arguments, where the tree's closures read them.
type branchArgs struct {
	a0, a1 lua.LValue
	fn     *lua.LFunction
}

// bpath is a stretch of one path: statements (writes, checks, values
// kept), then a condition choosing the next stretch, or the end: the
// returned value (nil: none) and the path's step count.
type bpath struct {
	stmts   []bStmt
	cond    bCond
	yes, no *bpath
	ret     bVal
	retK    val // the returned constant, where ret is nil and hasK
	hasK    bool
	steps   int
}

// branchTree is a function as a tree of paths.
type branchTree struct {
	root *bpath
}

// run runs the tree; ok is false when it gave up (its writes undone).
func (t *branchTree) run(m *Machine, fn *lua.LFunction, nargs int, a0, a1 lua.LValue) (Result, bool) {
	if nargs < 2 {
		a1 = lua.LNil
	}
	if nargs < 1 {
		a0 = lua.LNil
	}
	m.br = branchArgs{a0: a0, a1: a1, fn: fn}
	m.nlog = 0
	p := t.root
	for {
		for _, s := range p.stmts {
			if !s(m) {
				return m.bail(nil)
			}
		}
		if p.cond == nil {
			break
		}
		c, ok := p.cond(m)
		if !ok {
			return m.bail(nil)
		}
		if c {
			p = p.yes
		} else {
			p = p.no
		}
	}
	ret := val{v: lua.LNil}
	if p.hasK {
		ret = p.retK
	} else if p.ret != nil {
		r, ok := p.ret(m)
		if !ok {
			return m.bail(nil)
		}
		ret = r
	}
	m.done(nil)
	return Result{ret: ret, Steps: p.steps}, true
}

// maxVisits bounds the instructions the builder follows over all paths
// (each if doubles the code after it).
const maxVisits = 1024

// bstate is the builder on one path.
type bstate struct {
	pc      int
	regs    [MaxRegs]*bsym
	pending []*bsym // values computed since the last write, not yet used
	stmts   []bStmt
	steps   int
	slots   int // machine registers holding kept values
	// known are fields this path wrote with a number or a constant that
	// is not nil: a later read of one is that value (a raw hit), without
	// reading it again.
	known map[fieldRef]*bsym
}

// fieldRef is a field of the table a register value stands for.
type fieldRef struct {
	t   *bsym
	key string
}

func (st *bstate) fork(pc int) *bstate {
	n := *st
	n.pc = pc
	n.pending = append([]*bsym(nil), st.pending...)
	n.stmts = nil
	n.known = make(map[fieldRef]*bsym, len(st.known))
	for k, v := range st.known {
		n.known[k] = v
	}
	return &n
}

// wrote records t.key = v: a write of key into any table may change
// what a read of key from this one finds, unless it is this very table.
func (st *bstate) wrote(t *bsym, key string, v *bsym) {
	for k := range st.known {
		if k.key == key {
			delete(st.known, k)
		}
	}
	if v == nil || v.kind == sConst && v.k.v == lua.LNil || t.lazy() {
		return // a lazy table is read again where used: it may be another
	}
	if st.known == nil {
		st.known = map[fieldRef]*bsym{}
	}
	st.known[fieldRef{t, key}] = v
}

type bbuild struct {
	p      *Program
	live   []uint32 // the registers live after each instruction
	visits int
}

// buildBranch makes p's tree, or nil when some path holds what the tree
// does not run (the interpreter runs those functions).
func buildBranch(p *Program) *branchTree {
	if p.nregs > MaxRegs {
		return nil
	}
	live, ok := liveness(p)
	if !ok {
		return nil
	}
	b := &bbuild{p: p, live: live}
	st := &bstate{}
	for r := 0; r < p.nregs; r++ {
		st.regs[r] = constSym(val{v: lua.LNil})
	}
	for i := 0; i < p.nparams && i < 2; i++ {
		st.regs[i] = &bsym{kind: sParam, idx: i}
	}
	root, ok := b.walk(st)
	if !ok {
		return nil
	}
	return &branchTree{root: root}
}

// cover marks s and what it is computed from as used.
func (st *bstate) cover(s *bsym) {
	if s == nil || len(st.pending) == 0 {
		return
	}
	var mark func(s *bsym)
	seen := map[*bsym]bool{}
	mark = func(s *bsym) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for _, d := range s.deps {
			mark(d)
		}
	}
	mark(s)
	kept := st.pending[:0]
	for _, q := range st.pending {
		if !seen[q] {
			kept = append(kept, q)
		}
	}
	st.pending = kept
}

// checkPending appends a check of every value not yet used.
func (st *bstate) checkPending() {
	for _, s := range st.pending {
		f := s.valOf()
		st.stmts = append(st.stmts, func(m *Machine) bool { _, ok := f(m); return ok })
	}
	st.pending = nil
}

// flush comes before a write at pc: every value still held in a register
// live after it is computed and kept, every other value not yet used is
// checked, so nothing computed before the write is computed after it.
func (b *bbuild) flush(st *bstate, pc int) bool {
	live := b.live[pc]
	for r := 0; r < b.p.nregs; r++ {
		s := st.regs[r]
		if s == nil || !s.lazy() || live&(1<<r) == 0 {
			continue
		}
		if st.slots >= MaxRegs {
			return false
		}
		slot := st.slots
		st.slots++
		f := s.valOf()
		st.stmts = append(st.stmts, func(m *Machine) bool {
			v, ok := f(m)
			m.regs[slot] = v
			return ok
		})
		st.cover(s)
		kept := &bsym{kind: sSlot, idx: slot}
		for q := range st.regs {
			if st.regs[q] == s {
				st.regs[q] = kept
			}
		}
	}
	st.checkPending()
	return true
}

// leaf ends a path with its return value (nil: none).
func (st *bstate) leaf(ret *bsym) *bpath {
	path := &bpath{steps: st.steps}
	switch {
	case ret == nil:
	case ret.kind == sConst:
		path.retK, path.hasK = ret.k, true
	default:
		st.cover(ret)
		path.ret = ret.valOf()
	}
	st.checkPending()
	path.stmts = st.stmts
	return path
}

// branch ends a stretch with c, and follows both ways.
func (b *bbuild) branch(st *bstate, c bCond, yes, no int) (*bpath, bool) {
	path := &bpath{stmts: st.stmts, cond: c}
	var ok bool
	if path.yes, ok = b.walk(st.fork(yes)); !ok {
		return nil, false
	}
	if path.no, ok = b.walk(st.fork(no)); !ok {
		return nil, false
	}
	return path, true
}

// add makes s a register's new value, to be used or checked.
func (st *bstate) add(r int, s *bsym) {
	st.pending = append(st.pending, s)
	if r >= 0 {
		st.regs[r] = s
	}
}

// key is the field name of a GETTABLEKS or SETTABLEKS: its constant, or
// the string constant its register holds.
func (st *bstate) key(isK bool, key string, r int) (string, bool) {
	if isK {
		return key, true
	}
	if s := st.regs[r]; s != nil && s.kind == sConst {
		if k, ok := s.k.v.(lua.LString); ok {
			return string(k), true
		}
	}
	return "", false
}

// operand is an RK operand: a constant, or a register's value.
func (st *bstate) operand(isK bool, k val, r int) *bsym {
	if isK {
		return constSym(k)
	}
	return st.regs[r]
}
