package lcomp

import (
	lua "github.com/yuin/gopher-lua"
)

// The straight path: a function that is one expression over numbers — a
// scorer (return ctx.hunger * (1 - ctx.d0)), an update with one write at
// its end (ctx.x = ctx.x + dt) — runs as a tree of Go closures built once
// from its bytecode, without the interpreter's dispatch and registers.
//
// The tree does what the interpreter does on the values the VM would see,
// in the same order (each instruction's operation on the same floats), and
// only where every value is what it expects: a number read from a field a
// table holds, a table read from a field or given as a parameter. Anything
// else (a missing field, a string, a table where a number is wanted) makes
// it give up before its one write, having changed nothing, and the
// interpreter runs the call from the start, with its own checks and, past
// them, the VM. So a run of the tree is always one the interpreter would
// have made with the same result.

// numFn evaluates a number; ok is false to give up.
type numFn func(a0, a1 lua.LValue) (float64, bool)

// tabFn evaluates a table; ok is false to give up.
type tabFn func(a0, a1 lua.LValue) (*lua.LTable, bool)

// straight is a function as a tree: it checks checks, returns ret (nil:
// nothing), after writing wval into wtab's field wkey when wtab is not nil.
type straight struct {
	checks []func(a0, a1 lua.LValue) bool
	ret    numFn
	wtab   tabFn
	wkey   string
	wval   numFn
	steps  int // the instructions up to the first return, each run once
}

// node is what a register holds while the tree is built: a number, a
// table, or a field read (src.key) that becomes either where it is used.
// A node nothing uses is still checked (its instruction runs in the VM,
// and could raise there): check is what the interpreter would need of it.
type node struct {
	num   numFn
	tab   tabFn
	src   tabFn
	key   string
	str   *string // a string constant (LOADK): a field's name
	param int     // src is parameter 1 or 2 itself (0: src is another node)
	used  bool
	check func(a0, a1 lua.LValue) bool
}

// keyOf is the field name an instruction uses: its constant, or the
// string constant loaded into its register.
func keyOf(isK bool, key string, regs *[MaxRegs]*node, r int) (string, bool) {
	if isK {
		return key, true
	}
	if r < 0 || r >= MaxRegs || regs[r] == nil || regs[r].str == nil {
		return "", false
	}
	return *regs[r].str, true
}

func (d *node) asNum() numFn {
	if d == nil {
		return nil
	}
	d.used = true
	if d.num != nil || d.src == nil {
		return d.num
	}
	src, key := d.src, d.key
	switch d.param {
	case 1: // ctx.field: the table read here, without src's call
		return func(a0, _ lua.LValue) (float64, bool) {
			t, ok := a0.(*lua.LTable)
			if !ok {
				return 0, false
			}
			n, ok := t.RawGetString(key).(lua.LNumber)
			return float64(n), ok
		}
	case 2:
		return func(_, a1 lua.LValue) (float64, bool) {
			t, ok := a1.(*lua.LTable)
			if !ok {
				return 0, false
			}
			n, ok := t.RawGetString(key).(lua.LNumber)
			return float64(n), ok
		}
	}
	return func(a0, a1 lua.LValue) (float64, bool) {
		t, ok := src(a0, a1)
		if !ok {
			return 0, false
		}
		n, ok := t.RawGetString(key).(lua.LNumber)
		return float64(n), ok
	}
}

func (d *node) asTab() tabFn {
	if d == nil {
		return nil
	}
	d.used = true
	if d.tab != nil || d.src == nil {
		return d.tab
	}
	src, key := d.src, d.key
	return func(a0, a1 lua.LValue) (*lua.LTable, bool) {
		t, ok := src(a0, a1)
		if !ok {
			return nil, false
		}
		v, ok := t.RawGetString(key).(*lua.LTable)
		return v, ok
	}
}

// fieldCheck is what the interpreter needs of a field read whose value
// nothing uses: a table that holds the field or has no metatable.
func fieldCheck(src tabFn, key string) func(a0, a1 lua.LValue) bool {
	return func(a0, a1 lua.LValue) bool {
		t, ok := src(a0, a1)
		return ok && (t.RawGetString(key) != lua.LNil || t.Metatable == lua.LNil)
	}
}

func numCheck(f numFn) func(a0, a1 lua.LValue) bool {
	return func(a0, a1 lua.LValue) bool { _, ok := f(a0, a1); return ok }
}

// buildStraight makes p's tree, or nil when p is not one expression over
// numbers with at most one write, at its end.
//
// It is long because it is one switch over the instructions a tree holds.
func buildStraight(p *Program) *straight {
	var regs [MaxRegs]*node
	var nodes []*node
	add := func(n *node) *node { nodes = append(nodes, n); return n }
	params := []*node{
		{tab: func(a0, _ lua.LValue) (*lua.LTable, bool) { t, ok := a0.(*lua.LTable); return t, ok },
			num: func(a0, _ lua.LValue) (float64, bool) { n, ok := a0.(lua.LNumber); return float64(n), ok }},
		{tab: func(_, a1 lua.LValue) (*lua.LTable, bool) { t, ok := a1.(*lua.LTable); return t, ok },
			num: func(_, a1 lua.LValue) (float64, bool) { n, ok := a1.(lua.LNumber); return float64(n), ok }},
	}
	for i := 0; i < p.nparams && i < len(params); i++ {
		regs[i] = params[i]
	}
	operand := func(isK bool, k val, r int) numFn {
		if !isK {
			return regs[r].asNum()
		}
		if !k.num {
			return nil
		}
		n := k.n
		return func(lua.LValue, lua.LValue) (float64, bool) { return n, true }
	}
	s := &straight{}
	for pc, in := range p.code {
		if s.wtab != nil && in.op != lua.OP_RETURN {
			return nil // the write comes last
		}
		switch in.op {
		case lua.OP_MOVE:
			regs[in.a] = regs[in.b]
		case lua.OP_LOADK:
			n := &node{num: operand(true, in.kb, 0)}
			if str, ok := in.kb.v.(lua.LString); ok {
				k := string(str)
				n.str = &k
			}
			regs[in.a] = n
		case lua.OP_GETTABLEKS:
			key, ok := keyOf(in.ck, in.key, &regs, in.c)
			src := regs[in.b].asTab()
			if !ok || src == nil {
				return nil
			}
			n := add(&node{src: src, key: key, check: fieldCheck(src, key)})
			for i, pn := range params {
				if regs[in.b] == pn {
					n.param = i + 1
				}
			}
			regs[in.a] = n
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			x, y := operand(in.bk, in.kb, in.b), operand(in.ck, in.kc, in.c)
			if x == nil || y == nil {
				return nil
			}
			f := arithFn(in.op, x, y)
			if k, ok := constOf(in.ck, in.kc); ok {
				f = arithConst(in.op, x, k, false, f)
			} else if k, ok := constOf(in.bk, in.kb); ok {
				f = arithConst(in.op, y, k, true, f)
			}
			regs[in.a] = add(&node{num: f, check: numCheck(f)})
		case lua.OP_UNM:
			x := regs[in.b].asNum()
			if x == nil {
				return nil
			}
			f := func(a0, a1 lua.LValue) (float64, bool) {
				v, ok := x(a0, a1)
				return -v, ok
			}
			regs[in.a] = add(&node{num: f, check: numCheck(f)})
		case lua.OP_SETTABLEKS:
			key, ok := keyOf(in.bk, in.key, &regs, in.b)
			t, v := regs[in.a].asTab(), operand(in.ck, in.kc, in.c)
			if !ok || t == nil || v == nil {
				return nil
			}
			s.wtab, s.wkey, s.wval = t, key, v
		case lua.OP_RETURN:
			switch {
			case in.b == 1:
			case in.b == 2 && regs[in.a] != nil && regs[in.a].asNum() != nil:
				s.ret = regs[in.a].asNum()
			default:
				return nil
			}
			// Code only runs forward, and nothing jumps: what follows
			// the first return never runs.
			s.steps = pc + 1
			for _, n := range nodes {
				if !n.used {
					s.checks = append(s.checks, n.check)
				}
			}
			return s
		default:
			return nil
		}
	}
	return nil
}

// constOf is an RK operand's number when it is a numeric constant.
func constOf(isK bool, k val) (float64, bool) {
	return k.n, isK && k.num
}

// arithConst is arithFn for +, -, * and / with one constant operand k
// (the left one when kLeft), without the constant's call; other ops keep
// f. Each computes the same float operation as arithFn.
func arithConst(op int, x numFn, k float64, kLeft bool, f numFn) numFn {
	switch op {
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV:
	default:
		return f
	}
	return func(a0, a1 lua.LValue) (float64, bool) {
		v, ok := x(a0, a1)
		if !ok {
			return 0, false
		}
		a, b := v, k
		if kLeft {
			a, b = k, v
		}
		var r float64
		switch op {
		case lua.OP_ADD:
			r = a + b
		case lua.OP_SUB:
			r = a - b
		case lua.OP_MUL:
			r = a * b
		default:
			r = a / b
		}
		if r == 0 {
			r = 0
		}
		return r, true
	}
}

// arithFn is op on two numbers as the interpreter computes it (a zero
// result is +0, as gopher-lua boxes it).
func arithFn(op int, x, y numFn) numFn {
	var f func(a, b float64) float64
	switch op {
	case lua.OP_ADD:
		f = func(a, b float64) float64 { return a + b }
	case lua.OP_SUB:
		f = func(a, b float64) float64 { return a - b }
	case lua.OP_MUL:
		f = func(a, b float64) float64 { return a * b }
	case lua.OP_DIV:
		f = func(a, b float64) float64 { return a / b }
	default:
		return func(a0, a1 lua.LValue) (float64, bool) {
			a, ok := x(a0, a1)
			if !ok {
				return 0, false
			}
			b, ok := y(a0, a1)
			r := arith(op, a, b)
			if r == 0 {
				r = 0
			}
			return r, ok
		}
	}
	return func(a0, a1 lua.LValue) (float64, bool) {
		a, ok := x(a0, a1)
		if !ok {
			return 0, false
		}
		b, ok := y(a0, a1)
		r := f(a, b)
		if r == 0 {
			r = 0
		}
		return r, ok
	}
}

// RunNumber runs the program as fn(a0) when it is one expression over
// numbers that writes no field (a scorer such as return ctx.hunger * (1 -
// ctx.d0)): n is what it returns, steps the instructions it executed. ok
// is false when the caller must use Run instead (nothing was changed):
// the same tree Run tries first, without its result's boxing.
func (p *Program) RunNumber(a0 lua.LValue) (n float64, steps int, ok bool) {
	s := p.fast
	if s == nil || s.ret == nil || s.wtab != nil {
		return 0, 0, false
	}
	for _, c := range s.checks {
		if !c(a0, lua.LNil) {
			return 0, 0, false
		}
	}
	if n, ok = s.ret(a0, lua.LNil); !ok {
		return 0, 0, false
	}
	return n, s.steps, true
}

// run runs the tree; ok is false when it gave up (nothing was changed).
func (s *straight) run(m *Machine, nargs int, a0, a1 lua.LValue) (Result, bool) {
	r, ok := s.eval(m, nargs, a0, a1)
	if !ok {
		return Result{}, false
	}
	ret := val{v: lua.LNil}
	if s.ret != nil {
		ret = val{n: r, num: true}
	}
	return Result{ret: ret, Steps: s.steps}, true
}
