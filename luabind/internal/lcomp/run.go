package lcomp

import (
	"github.com/luaai/luaai/internal/luaval"
	"math"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Result is what a run returned: its first value (nil when it returned
// none) and the instructions it executed, as the VM's instruction budget
// counts them.
type Result struct {
	ret   val
	Steps int
}

// Value is the first returned value (a computed number is boxed here).
func (r Result) Value() lua.LValue { return r.ret.box() }

// Truthy is the first returned value as Lua tests it.
func (r Result) Truthy() bool { return r.ret.truthy() }

// Number is the first returned value when it is a number.
func (r Result) Number() (float64, bool) { return r.ret.n, r.ret.num }

type undo struct {
	t   *lua.LTable
	key string
	old lua.LValue
}

// Machine is what runs programs for one VM: its math functions, its
// registers and the numbers it boxes. Not safe for concurrent use: one
// goroutine owns it, as it owns the VM.
type Machine struct {
	Math *Math
	regs [MaxRegs]val
	log  [MaxWrites]undo
	nlog int
	nums []float64  // numbers boxed into table fields, a block at a time
	br   branchArgs // a branch tree's run (branch.go)
}

// box gives a number stored into a table its interface without an
// allocation of its own: small whole numbers are shared, the others are
// placed in a block of floats, as gopher-lua's own allocator does (-0
// keeps its sign).
func (m *Machine) box(x val) lua.LValue {
	if x.v != nil || !x.num {
		return x.box()
	}
	f := x.n
	if f >= 0 && f < smallNums && f == math.Trunc(f) && !math.Signbit(f) {
		return small[int(f)]
	}
	if len(m.nums) == cap(m.nums) {
		m.nums = make([]float64, 0, numBlock)
	}
	m.nums = append(m.nums, f)
	v := lua.LValue(lua.LNumber(0))
	(*eface)(unsafe.Pointer(&v)).data = unsafe.Pointer(&m.nums[len(m.nums)-1])
	return v
}

const (
	smallNums = 128
	numBlock  = 256
)

// eface is the layout of an interface value: its type and a pointer to
// the value.
type eface struct {
	typ, data unsafe.Pointer
}

var small = func() (s [smallNums]lua.LValue) {
	for i := range s {
		s[i] = lua.LNumber(i)
	}
	return s
}()

// Run runs the program as fn(a0, a1) (nargs of them given) on m: fn
// supplies the upvalues and the globals (fn.Env). ok is false when the VM
// must run the call instead (see the package comment): the field writes
// made are undone then, and nothing else was changed.
//
// It is long because it is the interpreter loop, one switch over the
// instructions Compile accepts.
func (p *Program) Run(m *Machine, fn *lua.LFunction, nargs int, a0, a1 lua.LValue) (res Result, ok bool) {
	if p.branch != nil {
		if res, ok := p.branch.run(m, fn, nargs, a0, a1); ok {
			return res, true
		}
	} else if p.fast != nil {
		if res, ok := p.fast.run(m, nargs, a0, a1); ok {
			return res, true
		}
	}
	regs := &m.regs
	m.nlog = 0
	for i := 0; i < p.nregs; i++ {
		regs[i] = val{v: lua.LNil}
	}
	if p.nparams > 0 && nargs > 0 {
		regs[0] = mk(a0)
	}
	if p.nparams > 1 && nargs > 1 {
		regs[1] = mk(a1)
	}
	top := -1 // the register after the last result of a CALL with C = 0
	steps := 0
	code := p.code
	for pc := 0; pc < len(code); pc++ {
		in := &code[pc]
		steps++
		switch in.op {
		case lua.OP_MOVE:
			regs[in.a] = regs[in.b]
		case lua.OP_MOVEN:
			regs[in.a] = regs[in.b]
			for i := 0; i < in.c; i++ {
				pc++
				regs[code[pc].a] = regs[code[pc].b]
			}
		case lua.OP_LOADK:
			regs[in.a] = in.kb
		case lua.OP_LOADBOOL:
			regs[in.a] = val{v: lua.LBool(in.b != 0)}
			if in.c != 0 {
				pc++
			}
		case lua.OP_LOADNIL:
			for i := in.a; i <= in.b; i++ {
				regs[i] = val{v: lua.LNil}
			}
		case lua.OP_GETUPVAL:
			if in.b >= len(fn.Upvalues) || fn.Upvalues[in.b] == nil {
				return m.bail(p)
			}
			regs[in.a] = mk(fn.Upvalues[in.b].Value())
		case lua.OP_GETGLOBAL:
			if fn.Env == nil {
				return m.bail(p)
			}
			v, good := getField(fn.Env, in.key)
			if !good {
				return m.bail(p)
			}
			regs[in.a] = mk(v)
		case lua.OP_GETTABLEKS:
			key := in.key
			if !in.ck {
				s, isStr := regs[in.c].v.(lua.LString)
				if !isStr {
					return m.bail(p)
				}
				key = string(s)
			}
			// A plain table (the usual context) inline, the rest in getField.
			if t, isTable := regs[in.b].v.(*lua.LTable); isTable {
				if v := t.RawGetString(key); v != lua.LNil || t.Metatable == lua.LNil {
					regs[in.a] = mk(v)
					break
				}
			}
			v, good := getField(regs[in.b].v, key)
			if !good {
				return m.bail(p)
			}
			regs[in.a] = mk(v)
		case lua.OP_SETTABLEKS:
			t, isTable := regs[in.a].v.(*lua.LTable)
			key := in.key
			if !in.bk {
				s, isStr := regs[in.b].v.(lua.LString)
				if !isStr {
					return m.bail(p)
				}
				key = string(s)
			}
			if !isTable {
				return m.bail(p)
			}
			v := in.kc
			if !in.ck {
				v = regs[in.c]
			}
			sd := strdict(t)
			if in.last && t.Metatable == lua.LNil {
				luaval.SetString(t, key, m.box(v)) // nothing left to undo it
				break
			}
			old, present := sd[key]
			if !present {
				old = t.RawGetString(key) // lua.LNil, unless strdict is unknown
				present = false
			}
			if old == lua.LNil && t.Metatable != lua.LNil {
				return m.bail(p) // __newindex could answer
			}
			m.log[m.nlog] = undo{t: t, key: key, old: old}
			m.nlog++
			setField(t, sd, present, key, m.box(v))
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			x, y := in.kb, in.kc
			if !in.bk {
				x = regs[in.b]
			}
			if !in.ck {
				y = regs[in.c]
			}
			if !x.num || !y.num {
				return m.bail(p) // coercion, metamethod or error: the VM's
			}
			r := arith(in.op, x.n, y.n)
			if r == 0 {
				// gopher-lua boxes an arithmetic result through its
				// allocator, which hands out a shared +0 for -0.
				r = 0
			}
			regs[in.a] = val{n: r, num: true}
		case lua.OP_UNM:
			x := regs[in.b]
			if !x.num {
				return m.bail(p)
			}
			regs[in.a] = val{n: -x.n, num: true}
		case lua.OP_NOT:
			regs[in.a] = val{v: lua.LBool(!regs[in.b].truthy())}
		case lua.OP_LEN:
			x := in.kb
			if !in.bk {
				x = regs[in.b]
			}
			switch v := x.v.(type) {
			case lua.LString:
				regs[in.a] = val{n: float64(len(v)), num: true}
			case *lua.LTable:
				if v.Metatable != lua.LNil {
					return m.bail(p) // __len
				}
				regs[in.a] = val{n: float64(v.Len()), num: true}
			default:
				return m.bail(p)
			}
		case lua.OP_JMP:
			pc += in.b
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			x, y := in.kb, in.kc
			if !in.bk {
				x = regs[in.b]
			}
			if !in.ck {
				y = regs[in.c]
			}
			var r, good bool
			switch in.op {
			case lua.OP_EQ:
				r, good = equals(x, y)
			case lua.OP_LT:
				r, good = x.n < y.n, x.num && y.num
			default:
				r, good = x.n <= y.n, x.num && y.num
			}
			if !good {
				return m.bail(p)
			}
			if r != (in.a != 0) {
				pc++
			}
		case lua.OP_TEST:
			if regs[in.a].truthy() == (in.c == 0) {
				pc++
			}
		case lua.OP_TESTSET:
			if x := regs[in.b]; x.truthy() != (in.c == 0) {
				regs[in.a] = x
			} else {
				pc++
			}
		case lua.OP_CALL, lua.OP_TAILCALL:
			n := in.b - 1
			if in.b == 0 {
				if top < 0 {
					return m.bail(p)
				}
				n = top - (in.a + 1)
			}
			if n < 0 || in.a+1+n > p.nregs {
				return m.bail(p)
			}
			r, good := callMath(m.Math, regs[in.a].v, regs[in.a+1:in.a+1+n])
			if !good {
				return m.bail(p)
			}
			if in.op == lua.OP_TAILCALL {
				// A Go function's tail call returns from the callback at
				// once: the RETURN after it is not executed.
				m.done(p)
				return Result{ret: val{n: r, num: true}, Steps: steps}, true
			}
			top = -1
			switch {
			case in.c == 0:
				regs[in.a] = val{n: r, num: true}
				top = in.a + 1
			case in.c >= 2:
				regs[in.a] = val{n: r, num: true}
				for i := in.a + 1; i <= in.a+in.c-2; i++ {
					regs[i] = val{v: lua.LNil}
				}
			}
		case lua.OP_RETURN:
			ret := val{v: lua.LNil}
			switch {
			case in.b >= 2:
				ret = regs[in.a]
			case in.b == 0:
				if top < 0 {
					return m.bail(p)
				}
				if in.a < top {
					ret = regs[in.a]
				}
			}
			m.done(p)
			return Result{ret: ret, Steps: steps}, true
		case lua.OP_NOP:
		default:
			return m.bail(p)
		}
	}
	return m.bail(p)
}

// bail undoes the writes, newest first, and hands the call to the VM.
func (m *Machine) bail(p *Program) (Result, bool) {
	for i := m.nlog - 1; i >= 0; i-- {
		m.log[i].t.RawSetString(m.log[i].key, m.log[i].old)
	}
	m.done(p)
	return Result{}, false
}

// done lets go of the tables the undo log holds (the registers keep
// their values until the next run overwrites them: a few values at most).
func (m *Machine) done(*Program) {
	if m.nlog > 0 {
		clear(m.log[:m.nlog])
		m.nlog = 0
	}
}

// getField is gopher-lua's field read with a string key, where it involves
// no function: a raw hit, or a miss on a table without a metatable (nil),
// following __index tables. ok is false where the VM would call __index,
// index a non-table (an error, or a string's method) or loop too long.
func getField(obj lua.LValue, key string) (lua.LValue, bool) {
	for i := 0; i < lua.MaxTableGetLoop; i++ {
		t, ok := obj.(*lua.LTable)
		if !ok {
			return nil, false
		}
		if v := t.RawGetString(key); v != lua.LNil {
			return v, true
		}
		if t.Metatable == lua.LNil {
			return lua.LNil, true
		}
		mt, ok := t.Metatable.(*lua.LTable)
		if !ok {
			return nil, false
		}
		idx := mt.RawGetString("__index")
		if idx == lua.LNil {
			return lua.LNil, true
		}
		obj = idx
	}
	return nil, false
}

// equals is Lua's == where no metamethod can take part; ok is false for
// two distinct tables or userdata that both have metatables (__eq).
func equals(x, y val) (r, ok bool) {
	if x.num || y.num {
		return x.num && y.num && x.n == y.n, true
	}
	a, b := x.v, y.v
	if a.Type() != b.Type() {
		return false, true
	}
	switch a := a.(type) {
	case *lua.LTable:
		if a == b {
			return true, true
		}
		return false, a.Metatable == lua.LNil || b.(*lua.LTable).Metatable == lua.LNil
	case *lua.LUserData:
		if a == b {
			return true, true
		}
		return false, a.Metatable == lua.LNil || b.(*lua.LUserData).Metatable == lua.LNil
	}
	return a == b, true
}

func arith(op int, x, y float64) float64 {
	switch op {
	case lua.OP_ADD:
		return x + y
	case lua.OP_SUB:
		return x - y
	case lua.OP_MUL:
		return x * y
	case lua.OP_DIV:
		return x / y
	case lua.OP_MOD:
		// Lua 5.1's a % b: the remainder takes the sign of the divisor.
		r := math.Mod(x, y)
		if y > 0 && r < 0 || y < 0 && r > 0 {
			r += y
		}
		return r
	default:
		return math.Pow(x, y)
	}
}

// callMath runs a call of one of m's functions on numbers; ok is false for
// any other callee, or an argument the function would coerce or refuse.
func callMath(m *Math, callee lua.LValue, args []val) (float64, bool) {
	f, isFn := callee.(*lua.LFunction)
	if !isFn || f == nil || m == nil || len(args) == 0 || !args[0].num {
		return 0, false
	}
	x := args[0].n
	switch f {
	case m.Min, m.Max:
		for _, a := range args[1:] {
			if !a.num {
				return 0, false
			}
			if f == m.Min && a.n < x || f == m.Max && a.n > x {
				x = a.n
			}
		}
		return x, true
	case m.Abs:
		return math.Abs(x), true
	case m.Floor:
		return math.Floor(x), true
	case m.Sqrt:
		return math.Sqrt(x), true
	}
	return 0, false
}

// mathNames are the math functions a compiled function may call.
