package lcomp

import (
	lua "github.com/yuin/gopher-lua"
)

// Shared reads: a utility decision runs every candidate's scorer on the
// same context, and nothing between two pure scorers can change it, so
// the decision reads each distinct field once, into an array of numbers,
// and runs each scorer over that array (the caller, luaai's score plan,
// keeps the array). A scorer compiled this way is the straight tree of
// expr.go over the array instead of the table: the same float operations,
// in the same order, on the same numbers, given that every field it reads
// holds a number (and every table on the way is a table), which the caller
// checks before it runs; otherwise the call runs as before.

// MaxFields is the most distinct fields one decision's shared reads hold.
const MaxFields = 64

// Fields is a decision's field values, by the index its paths were given.
type Fields = [MaxFields]float64

// FieldFn is a number computed from a decision's field values.
type FieldFn func(v *Fields) float64

// Operand is a number a FieldFn combines: a slot of the values (Fn nil),
// which holds a field's value or a constant, or a computed number. Built
// over operands, a closure reads a field or a constant without a call.
type Operand struct {
	Fn   FieldFn
	Slot int
	// sub: Fn is op of slots a and b, which an operation over it may
	// compute itself, saving a call.
	sub  bool
	op   Op
	a, b int
	// form: Fn's computation, where it is one of Form's (Kind FormFunc
	// otherwise).
	form Form
}

// Form is how an operand computes, for a caller that runs it in a loop of
// its own, without a call; the same operations as its Func, in the same
// order.
type Form struct {
	Kind    FormKind
	Op, Op2 Op
	A, B, C int
}

// FormKind is a Form's shape.
type FormKind uint8

// The shapes: FormFunc has none (run Func), FormSlot is v[A], FormBinary
// Op of v[A] and v[B], FormLeft Op of v[A] and (Op2 of v[B] and v[C]),
// FormRight Op of (Op2 of v[A] and v[B]) and v[C].
const (
	FormFunc FormKind = iota
	FormSlot
	FormBinary
	FormLeft
	FormRight
)

// Form is how o computes.
func (o Operand) Form() Form {
	if o.Fn == nil {
		return Form{Kind: FormSlot, A: o.Slot}
	}
	return o.form
}

// Eval is f's value over v: the same as the Func of the operand it is the
// form of (FormFunc: 0, which has none).
func (f *Form) Eval(v *Fields) float64 {
	switch f.Kind {
	case FormSlot:
		return v[f.A]
	case FormBinary:
		return f.Op.Apply(v[f.A], v[f.B])
	case FormLeft:
		return f.Op.Apply(v[f.A], f.Op2.Apply(v[f.B], v[f.C]))
	case FormRight:
		return f.Op.Apply(f.Op2.Apply(v[f.A], v[f.B]), v[f.C])
	}
	return 0
}

// Func is the operand as a FieldFn.
func (o Operand) Func() FieldFn {
	if o.Fn != nil {
		return o.Fn
	}
	i := o.Slot
	return func(v *Fields) float64 { return v[i] }
}

// Slots gives the values' slots: a field's (by its path from the first
// parameter) and a constant's; ok is false when there is no room.
type Slots interface {
	Field(path []string) (int, bool)
	Const(k float64) (int, bool)
}

// Op is an operation Binary combines with.
type Op uint8

// The operations: Lua's arithmetic, whose zero result is +0 (as
// gopher-lua boxes it), and the plain float operations natives use.
const (
	OpAdd Op = iota
	OpSub
	OpMul
	OpDiv
	OpTimes // a * b
	OpMinus // a - b
)

// Apply is a op b.
func (op Op) Apply(a, b float64) float64 {
	var r float64
	switch op {
	case OpTimes:
		return a * b
	case OpMinus:
		return a - b
	case OpAdd:
		r = a + b
	case OpSub:
		r = a - b
	case OpMul:
		r = a * b
	default:
		r = a / b
	}
	if r == 0 {
		r = 0
	}
	return r
}

// Binary is x op y, x computed first.
func Binary(op Op, x, y Operand) Operand {
	var f FieldFn
	switch {
	case x.Fn == nil && y.Fn == nil:
		i, j := x.Slot, y.Slot
		f = func(v *Fields) float64 { return op.Apply(v[i], v[j]) }
		return Operand{Fn: f, sub: true, op: op, a: i, b: j, form: Form{Kind: FormBinary, Op: op, A: i, B: j}}
	case x.Fn == nil && y.sub:
		i, yop, ya, yb := x.Slot, y.op, y.a, y.b
		f = func(v *Fields) float64 { return op.Apply(v[i], yop.Apply(v[ya], v[yb])) }
		return Operand{Fn: f, form: Form{Kind: FormLeft, Op: op, Op2: yop, A: i, B: ya, C: yb}}
	case x.sub && y.Fn == nil:
		xop, xa, xb, j := x.op, x.a, x.b, y.Slot
		f = func(v *Fields) float64 { return op.Apply(xop.Apply(v[xa], v[xb]), v[j]) }
		return Operand{Fn: f, form: Form{Kind: FormRight, Op: op, Op2: xop, A: xa, B: xb, C: j}}
	case x.Fn == nil:
		i, g := x.Slot, y.Fn
		f = func(v *Fields) float64 { return op.Apply(v[i], g(v)) }
	case y.Fn == nil:
		g, j := x.Fn, y.Slot
		f = func(v *Fields) float64 { a := g(v); return op.Apply(a, v[j]) }
	default:
		g, h := x.Fn, y.Fn
		f = func(v *Fields) float64 { a := g(v); return op.Apply(a, h(v)) }
	}
	return Operand{Fn: f}
}

// Unary is f of x.
func Unary(x Operand, f func(float64) float64) Operand {
	if x.Fn == nil {
		i := x.Slot
		return Operand{Fn: func(v *Fields) float64 { return f(v[i]) }}
	}
	g := x.Fn
	return Operand{Fn: func(v *Fields) float64 { return f(g(v)) }}
}

// FieldNumber is a scorer compiled over shared reads: Eval is its result
// when every field in Reads (a mask of indexes) holds a number, Form how
// Eval computes it; Steps and MaxSteps are what RunNumber would charge and
// may need of the budget.
type FieldNumber struct {
	Eval     FieldFn
	Form     Form
	Reads    uint64
	Steps    int
	MaxSteps int
}

// fnode is what a register holds while OverFields builds: the first
// parameter (path empty, tab), a field read (path), a number, or a string
// constant (a field's name).
type fnode struct {
	tab  bool
	path []string
	num  *Operand
	str  *string
}

// OverFields compiles p for shared reads when it is a scorer RunNumber
// runs as a tree (one expression over numbers read from fields of its
// first parameter, writing nothing), its fields and constants in slots;
// ok is false when p is not such a scorer, or slots has no room.
//
// It is long because it is one switch over the instructions a tree holds.
func (p *Program) OverFields(slots Slots) (*FieldNumber, bool) {
	s := p.fast
	if s == nil || s.ret == nil || s.wtab != nil || len(s.checks) > 0 || p.nparams < 1 {
		return nil, false
	}
	var regs [MaxRegs]*fnode
	regs[0] = &fnode{tab: true}
	var reads uint64
	konst := func(k float64) (Operand, bool) {
		i, ok := slots.Const(k)
		return Operand{Slot: i}, ok && i >= 0 && i < MaxFields
	}
	operand := func(isK bool, k val, r int) (Operand, bool) {
		if isK {
			if !k.num {
				return Operand{}, false
			}
			return konst(k.n)
		}
		n := regs[r]
		switch {
		case n == nil:
			return Operand{}, false
		case n.num != nil:
			return *n.num, true
		case n.path != nil:
			i, ok := slots.Field(n.path)
			if !ok || i < 0 || i >= MaxFields {
				return Operand{}, false
			}
			reads |= 1 << i
			return Operand{Slot: i}, true
		}
		return Operand{}, false
	}
	for _, in := range p.code {
		switch in.op {
		case lua.OP_MOVE:
			regs[in.a] = regs[in.b]
		case lua.OP_LOADK:
			n := &fnode{}
			if in.kb.num {
				k, ok := konst(in.kb.n)
				if !ok {
					return nil, false
				}
				n.num = &k
			} else if str, ok := in.kb.v.(lua.LString); ok {
				k := string(str)
				n.str = &k
			}
			regs[in.a] = n
		case lua.OP_GETTABLEKS:
			var key string
			if in.ck {
				key = in.key
			} else if r := regs[in.c]; r != nil && r.str != nil {
				key = *r.str
			} else {
				return nil, false
			}
			src := regs[in.b]
			if src == nil || !src.tab && src.path == nil {
				return nil, false
			}
			regs[in.a] = &fnode{path: append(append([]string{}, src.path...), key)}
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			x, okx := operand(in.bk, in.kb, in.b)
			y, oky := operand(in.ck, in.kc, in.c)
			if !okx || !oky {
				return nil, false
			}
			f := fieldArith(in.op, x, y)
			regs[in.a] = &fnode{num: &f}
		case lua.OP_UNM:
			x, ok := operand(false, val{}, in.b)
			if !ok {
				return nil, false
			}
			f := Unary(x, func(a float64) float64 { return -a })
			regs[in.a] = &fnode{num: &f}
		case lua.OP_RETURN:
			if in.b != 2 {
				return nil, false
			}
			x, ok := operand(false, val{}, in.a)
			if !ok {
				return nil, false
			}
			return &FieldNumber{Eval: x.Func(), Form: x.Form(), Reads: reads, Steps: s.steps, MaxSteps: p.Steps()}, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// fieldArith is op on two operands as arithFn and arithConst compute it
// (a zero result is +0, as gopher-lua boxes it).
func fieldArith(op int, x, y Operand) Operand {
	switch op {
	case lua.OP_ADD:
		return Binary(OpAdd, x, y)
	case lua.OP_SUB:
		return Binary(OpSub, x, y)
	case lua.OP_MUL:
		return Binary(OpMul, x, y)
	case lua.OP_DIV:
		return Binary(OpDiv, x, y)
	}
	f, g := x.Func(), y.Func()
	return Operand{Fn: func(v *Fields) float64 {
		a := f(v)
		r := arith(op, a, g(v))
		if r == 0 {
			r = 0
		}
		return r
	}}
}
