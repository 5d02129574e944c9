package lcomp

import (
	lua "github.com/yuin/gopher-lua"
)

// What a register holds while a tree is built (branch.go).
const (
	sConst = iota // a constant k
	sParam        // parameter idx (0 or 1) as the run got it
	sSlot         // a value kept in the machine's register idx
	sField        // src.key, read where it is used
	sNum          // a number computed where it is used (num)
	sVal          // any value computed where it is used (get)
)

// bsym is a register's value: where it comes from, and the closures that
// compute it. A lazy one (a field read, a computed value) is computed
// where it is used; deps are what it is computed from.
type bsym struct {
	kind int
	k    val
	idx  int
	src  *bsym
	key  string
	num  bNum
	get  bVal
	deps []*bsym
	op   int   // sNum from arithmetic: x op y (0: other)
	x, y *bsym // its operands
}

func (s *bsym) lazy() bool { return s.kind >= sField }

func constSym(k val) *bsym { return &bsym{kind: sConst, k: k} }

func numSym(f bNum, deps ...*bsym) *bsym { return &bsym{kind: sNum, num: f, deps: deps} }

func valSym(f bVal, deps ...*bsym) *bsym { return &bsym{kind: sVal, get: f, deps: deps} }

func fieldSym(src *bsym, key string) *bsym {
	return &bsym{kind: sField, src: src, key: key, deps: []*bsym{src}}
}

func fail[T any](*Machine) (T, bool) {
	var zero T
	return zero, false
}

// tabOf computes s as a table; ok is false for anything else (the
// interpreter hands indexing a non-table to the VM).
func (s *bsym) tabOf() bTab {
	switch s.kind {
	case sParam:
		if s.idx == 0 {
			return func(m *Machine) (*lua.LTable, bool) { t, ok := m.br.a0.(*lua.LTable); return t, ok }
		}
		return func(m *Machine) (*lua.LTable, bool) { t, ok := m.br.a1.(*lua.LTable); return t, ok }
	case sSlot:
		i := s.idx
		return func(m *Machine) (*lua.LTable, bool) { t, ok := m.regs[i].v.(*lua.LTable); return t, ok }
	case sField:
		// A raw hit only: a miss, with or without a metatable, is for the
		// interpreter (nil would raise, __index could answer).
		src, key := s.src.tabOf(), s.key
		return func(m *Machine) (*lua.LTable, bool) {
			t, ok := src(m)
			if !ok {
				return nil, false
			}
			v, ok := t.RawGetString(key).(*lua.LTable)
			return v, ok
		}
	case sVal:
		get := s.get
		return func(m *Machine) (*lua.LTable, bool) {
			v, ok := get(m)
			t, isTable := v.v.(*lua.LTable)
			return t, ok && isTable
		}
	}
	return fail[*lua.LTable]
}

// numOf computes s as a number; ok is false for anything else (Lua would
// convert a string, call a metamethod, or raise).
func (s *bsym) numOf() bNum {
	switch s.kind {
	case sConst:
		if !s.k.num {
			return fail[float64]
		}
		n := s.k.n
		return func(*Machine) (float64, bool) { return n, true }
	case sParam:
		if s.idx == 0 {
			return func(m *Machine) (float64, bool) { n, ok := m.br.a0.(lua.LNumber); return float64(n), ok }
		}
		return func(m *Machine) (float64, bool) { n, ok := m.br.a1.(lua.LNumber); return float64(n), ok }
	case sSlot:
		i := s.idx
		return func(m *Machine) (float64, bool) { return m.regs[i].n, m.regs[i].num }
	case sField:
		key := s.key
		if s.src.kind == sParam && s.src.idx == 0 {
			// ctx.field: the table read here, without the parameter's call.
			return func(m *Machine) (float64, bool) {
				t, ok := m.br.a0.(*lua.LTable)
				if !ok {
					return 0, false
				}
				n, ok := t.RawGetString(key).(lua.LNumber)
				return float64(n), ok
			}
		}
		src := s.src.tabOf()
		return func(m *Machine) (float64, bool) {
			t, ok := src(m)
			if !ok {
				return 0, false
			}
			n, ok := t.RawGetString(key).(lua.LNumber)
			return float64(n), ok
		}
	case sNum:
		return s.num
	default:
		get := s.get
		return func(m *Machine) (float64, bool) {
			v, ok := get(m)
			return v.n, ok && v.num
		}
	}
}

// valOf computes s as any value, as the interpreter's register holds it.
func (s *bsym) valOf() bVal {
	switch s.kind {
	case sConst:
		k := s.k
		return func(*Machine) (val, bool) { return k, true }
	case sParam:
		if s.idx == 0 {
			return func(m *Machine) (val, bool) { return mk(m.br.a0), true }
		}
		return func(m *Machine) (val, bool) { return mk(m.br.a1), true }
	case sSlot:
		i := s.idx
		return func(m *Machine) (val, bool) { return m.regs[i], true }
	case sField:
		src, key := s.src.tabOf(), s.key
		return func(m *Machine) (val, bool) {
			t, ok := src(m)
			if !ok {
				return val{}, false
			}
			if v := t.RawGetString(key); v != lua.LNil || t.Metatable == lua.LNil {
				return mk(v), true
			}
			v, ok := getField(t, key) // __index tables, as the interpreter follows them
			return mk(v), ok
		}
	case sNum:
		num := s.num
		return func(m *Machine) (val, bool) {
			n, ok := num(m)
			return val{n: n, num: true}, ok
		}
	default:
		return s.get
	}
}

// truthOf computes s as Lua tests it.
func (s *bsym) truthOf() bCond {
	switch s.kind {
	case sConst:
		t := s.k.truthy()
		return func(*Machine) (bool, bool) { return t, true }
	case sNum:
		num := s.num
		return func(m *Machine) (bool, bool) { _, ok := num(m); return true, ok }
	}
	get := s.valOf()
	return func(m *Machine) (bool, bool) {
		v, ok := get(m)
		return v.truthy(), ok
	}
}

func upvalSym(i int) *bsym {
	return valSym(func(m *Machine) (val, bool) {
		fn := m.br.fn
		if i >= len(fn.Upvalues) || fn.Upvalues[i] == nil {
			return val{}, false
		}
		return mk(fn.Upvalues[i].Value()), true
	})
}

func globalSym(key string) *bsym {
	return valSym(func(m *Machine) (val, bool) {
		if m.br.fn.Env == nil {
			return val{}, false
		}
		v, ok := getField(m.br.fn.Env, key)
		return mk(v), ok
	})
}

// arithSym is x op y on numbers as the interpreter computes it (a zero
// result is +0, as gopher-lua boxes it).
func arithSym(op int, x, y *bsym) *bsym {
	s := arithFnSym(op, x, y)
	s.op, s.x, s.y = op, x, y
	return s
}

func arithFnSym(op int, x, y *bsym) *bsym {
	fx, fy := x.numOf(), y.numOf()
	if y.kind == sConst && y.k.num {
		k := y.k.n
		return numSym(func(m *Machine) (float64, bool) {
			a, ok := fx(m)
			return arithZero(op, a, k), ok
		}, x)
	}
	if x.kind == sConst && x.k.num {
		k := x.k.n
		return numSym(func(m *Machine) (float64, bool) {
			b, ok := fy(m)
			return arithZero(op, k, b), ok
		}, y)
	}
	return numSym(func(m *Machine) (float64, bool) {
		a, ok := fx(m)
		if !ok {
			return 0, false
		}
		b, ok := fy(m)
		return arithZero(op, a, b), ok
	}, x, y)
}

func arithZero(op int, a, b float64) float64 {
	var r float64
	switch op {
	case lua.OP_ADD:
		r = a + b
	case lua.OP_SUB:
		r = a - b
	case lua.OP_MUL:
		r = a * b
	case lua.OP_DIV:
		r = a / b
	default:
		r = arith(op, a, b)
	}
	if r == 0 {
		r = 0
	}
	return r
}

func notSym(x *bsym) *bsym {
	t := x.truthOf()
	return valSym(func(m *Machine) (val, bool) {
		b, ok := t(m)
		return val{v: lua.LBool(!b)}, ok
	}, x)
}

// lenSym is #x for a string or a table without a metatable (__len).
func lenSym(x *bsym) *bsym {
	get := x.valOf()
	return numSym(func(m *Machine) (float64, bool) {
		v, ok := get(m)
		if !ok {
			return 0, false
		}
		switch v := v.v.(type) {
		case lua.LString:
			return float64(len(v)), true
		case *lua.LTable:
			if v.Metatable != lua.LNil {
				return 0, false
			}
			return float64(v.Len()), true
		}
		return 0, false
	}, x)
}

// maxArgs bounds the arguments of a math call in a tree.
const maxArgs = 8

// callSym is a call of fn with args, run in Go when fn is one of the
// machine's math functions (checked when it runs); nil when it has too
// many arguments.
func callSym(fn *bsym, args []*bsym) *bsym {
	if fn == nil || len(args) > maxArgs {
		return nil
	}
	callee := fn.valOf()
	gets := make([]bVal, len(args))
	for i, a := range args {
		if a == nil {
			return nil
		}
		gets[i] = a.valOf()
	}
	return numSym(func(m *Machine) (float64, bool) {
		f, ok := callee(m)
		if !ok {
			return 0, false
		}
		var buf [maxArgs]val
		for i, g := range gets {
			if buf[i], ok = g(m); !ok {
				return 0, false
			}
		}
		return callMath(m.Math, f.v, buf[:len(gets)])
	}, append([]*bsym{fn}, args...)...)
}

// compareCond is x == y, x < y or x <= y, tested against want.
func compareCond(op int, x, y *bsym, want bool) bCond {
	if op != lua.OP_EQ || x.isNum() && y.isNum() {
		fx, fy := x.numOf(), y.numOf()
		switch op {
		case lua.OP_EQ:
			return func(m *Machine) (bool, bool) {
				a, ok1 := fx(m)
				b, ok2 := fy(m)
				return (a == b) == want, ok1 && ok2
			}
		case lua.OP_LT:
			return func(m *Machine) (bool, bool) {
				a, ok1 := fx(m)
				b, ok2 := fy(m)
				return (a < b) == want, ok1 && ok2
			}
		default:
			return func(m *Machine) (bool, bool) {
				a, ok1 := fx(m)
				b, ok2 := fy(m)
				return (a <= b) == want, ok1 && ok2
			}
		}
	}
	fx, fy := x.valOf(), y.valOf()
	return func(m *Machine) (bool, bool) {
		a, ok1 := fx(m)
		b, ok2 := fy(m)
		if !ok1 || !ok2 {
			return false, false
		}
		r, ok := equals(a, b)
		return r == want, ok
	}
}

// isNum says s is always a number (when computed at all).
func (s *bsym) isNum() bool {
	return s.kind == sNum || s.kind == sConst && s.k.num
}

// truthCond is s's truth tested against want.
func truthCond(s *bsym, want bool) bCond {
	t := s.truthOf()
	return func(m *Machine) (bool, bool) {
		b, ok := t(m)
		return b == want, ok
	}
}
