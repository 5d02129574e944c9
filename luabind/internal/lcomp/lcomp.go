package lcomp

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Limits of what Compile accepts: a function run from these fixed-size
// arrays allocates nothing of its own.
const (
	MaxCode   = 256 // instructions
	MaxRegs   = 32  // registers the function uses
	MaxWrites = 16  // field writes (each runs at most once)
)

// Math names the math functions a compiled function may call: a call is
// run in Go only when its callee is one of these very functions (compared
// by identity when it runs), so a script that replaced math.min gets its
// own. A nil field is never matched.
type Math struct {
	Min, Max, Abs, Floor, Sqrt *lua.LFunction
}

// MathOf reads the five functions from a math library table.
func MathOf(t *lua.LTable) *Math {
	fn := func(name string) *lua.LFunction {
		f, _ := t.RawGetString(name).(*lua.LFunction)
		return f
	}
	return &Math{Min: fn("min"), Max: fn("max"), Abs: fn("abs"), Floor: fn("floor"), Sqrt: fn("sqrt")}
}

// Unsupported is why Compile refused a function: the first construct it
// cannot run exactly, and its line (0 when the whole function is meant).
type Unsupported struct {
	Line   int
	Reason string
}

func (e *Unsupported) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	return e.Reason
}

// val is a register: a number kept unboxed (num, n; v is its boxed form
// when it came from a table or constant, else nil), or any other value v.
type val struct {
	v   lua.LValue
	n   float64
	num bool
}

func mk(v lua.LValue) val {
	if n, ok := v.(lua.LNumber); ok {
		return val{v: v, n: float64(n), num: true}
	}
	return val{v: v}
}

// box is the value as gopher-lua holds it (a computed number is boxed
// here, and only here).
func (x val) box() lua.LValue {
	if x.v != nil {
		return x.v
	}
	if x.num {
		return lua.LNumber(x.n)
	}
	return lua.LNil
}

func (x val) truthy() bool {
	if x.num {
		return true
	}
	return x.v != lua.LNil && x.v != lua.LFalse && x.v != nil
}

// ins is one decoded instruction.
type ins struct {
	op      int
	a, b, c int
	bk, ck  bool // RK(B), RK(C) name a constant
	kb, kc  val  // those constants
	key     string
	line    int
	last    bool // SETTABLEKS: nothing after it can hand the call to the VM
}

// Program is a compiled function.
type Program struct {
	code    []ins
	nparams int
	nregs   int
}

// Steps is the most instructions one run executes (each runs at most
// once): a run needs at most this much of an instruction budget.
func (p *Program) Steps() int { return len(p.code) }

func opCode(i uint32) int { return int(i >> 26) }
func opA(i uint32) int    { return int(i>>18) & 0xff }
func opB(i uint32) int    { return int(i & 0x1ff) }
func opC(i uint32) int    { return int(i>>9) & 0x1ff }
func opBx(i uint32) int   { return int(i & 0x3ffff) }
func opSbx(i uint32) int  { return int(i&0x3ffff) - (0x3ffff >> 1) }

const rkBit = 1 << 8

var opNames = map[int]string{
	lua.OP_GETTABLE: "a table index with a computed or non-string key", lua.OP_SETTABLE: "a table write with a computed or non-string key",
	lua.OP_SETGLOBAL: "a global assignment", lua.OP_SETUPVAL: "an assignment to an upvalue", lua.OP_NEWTABLE: "a table constructor",
	lua.OP_SELF: "a method call", lua.OP_CONCAT: "string concatenation (..)", lua.OP_FORLOOP: "a loop", lua.OP_FORPREP: "a loop",
	lua.OP_TFORLOOP: "a loop", lua.OP_SETLIST: "a table constructor", lua.OP_CLOSE: "a closure over a local", lua.OP_CLOSURE: "a nested function",
	lua.OP_VARARG: "varargs (...)",
}

// Compile decodes p, or says why it cannot be run exactly outside the VM.
//
// It is long because it is one check of every instruction the compiled
// form runs, a switch over their operands.
func Compile(p *lua.FunctionProto) (*Program, error) {
	if p == nil {
		return nil, &Unsupported{Reason: "no function"}
	}
	if p.IsVarArg != 0 {
		return nil, &Unsupported{Line: p.LineDefined, Reason: "a function with varargs (...)"}
	}
	if len(p.Code) > MaxCode {
		return nil, &Unsupported{Line: p.LineDefined, Reason: fmt.Sprintf("longer than %d instructions", MaxCode)}
	}
	if int(p.NumUsedRegisters) > MaxRegs {
		return nil, &Unsupported{Line: p.LineDefined, Reason: fmt.Sprintf("more than %d registers", MaxRegs)}
	}
	prog := &Program{code: make([]ins, len(p.Code)), nparams: int(p.NumParameters), nregs: int(p.NumUsedRegisters)}
	writes := 0
	for pc, code := range p.Code {
		line := 0
		if pc < len(p.DbgSourcePositions) {
			line = p.DbgSourcePositions[pc]
		}
		fail := func(reason string) error { return &Unsupported{Line: line, Reason: reason} }
		in := ins{op: opCode(code), a: opA(code), b: opB(code), c: opC(code), line: line}
		reg := func(r int) bool { return r >= 0 && r < prog.nregs }
		rk := func(r int) (bool, val, bool) {
			if r&rkBit == 0 {
				return false, val{}, reg(r)
			}
			i := r &^ rkBit
			if i >= len(p.Constants) {
				return false, val{}, false
			}
			return true, mk(p.Constants[i]), true
		}
		strK := func(r int) (string, bool) {
			if r&rkBit == 0 || r&^rkBit >= len(p.Constants) {
				return "", false
			}
			s, ok := p.Constants[r&^rkBit].(lua.LString)
			return string(s), ok
		}
		var okB, okC bool
		switch in.op {
		case lua.OP_MOVE, lua.OP_NOT, lua.OP_UNM:
			if !reg(in.a) || !reg(in.b) {
				return nil, fail("a register out of range")
			}
		case lua.OP_MOVEN:
			// R(A) := R(B), then C MOVEs run without a step of their own.
			if !reg(in.a) || !reg(in.b) || pc+in.c >= len(p.Code) {
				return nil, fail("a register out of range")
			}
			for i := 1; i <= in.c; i++ {
				m := p.Code[pc+i]
				if opCode(m) != lua.OP_MOVE || !reg(opA(m)) || !reg(opB(m)) {
					return nil, fail("an unexpected move sequence")
				}
			}
		case lua.OP_LOADK, lua.OP_GETGLOBAL:
			bx := opBx(code)
			if !reg(in.a) || bx >= len(p.Constants) {
				return nil, fail("a constant out of range")
			}
			in.kb = mk(p.Constants[bx])
			if in.op == lua.OP_GETGLOBAL {
				s, ok := p.Constants[bx].(lua.LString)
				if !ok {
					return nil, fail("a global with a non-string name")
				}
				in.key = string(s)
			}
		case lua.OP_LOADBOOL:
			if !reg(in.a) || (in.c != 0 && pc+2 > len(p.Code)) {
				return nil, fail("a register out of range")
			}
		case lua.OP_LOADNIL:
			if !reg(in.a) || !reg(in.b) {
				return nil, fail("a register out of range")
			}
		case lua.OP_GETUPVAL:
			if !reg(in.a) || in.b >= int(p.NumUpvalues) {
				return nil, fail("an upvalue out of range")
			}
		case lua.OP_GETTABLEKS:
			// The key is a string constant, or a register the compiler
			// loaded one into (checked when it runs).
			key, ok := strK(in.c)
			in.ck = ok
			if !ok && !reg(in.c) || !reg(in.a) || !reg(in.b) {
				return nil, fail("a table index with a computed or non-string key")
			}
			in.key = key
		case lua.OP_SETTABLEKS:
			key, ok := strK(in.b)
			in.bk = ok
			in.ck, in.kc, okC = rk(in.c)
			if !ok && !reg(in.b) || !okC || !reg(in.a) {
				return nil, fail("a table write with a computed or non-string key")
			}
			in.key = key
			if writes++; writes > MaxWrites {
				return nil, fail(fmt.Sprintf("more than %d field writes", MaxWrites))
			}
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW, lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			in.bk, in.kb, okB = rk(in.b)
			in.ck, in.kc, okC = rk(in.c)
			if !okB || !okC {
				return nil, fail("an operand out of range")
			}
			switch in.op {
			case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
				// The next instruction is skipped or not: it must exist.
				if pc+2 > len(p.Code) {
					return nil, fail("a comparison at the end")
				}
			default:
				if !reg(in.a) {
					return nil, fail("a register out of range")
				}
			}
		case lua.OP_LEN:
			in.bk, in.kb, okB = rk(in.b)
			if !okB || !reg(in.a) {
				return nil, fail("an operand out of range")
			}
		case lua.OP_JMP:
			in.b = opSbx(code)
			if in.b < 0 {
				return nil, fail("a loop (a backward jump)")
			}
			if pc+1+in.b >= len(p.Code) {
				return nil, fail("a jump out of range")
			}
		case lua.OP_TEST, lua.OP_TESTSET:
			if !reg(in.a) || !reg(in.b) && in.op == lua.OP_TESTSET || pc+2 > len(p.Code) {
				return nil, fail("a register out of range")
			}
		case lua.OP_CALL, lua.OP_TAILCALL:
			// Only calls of the math functions run compiled; which function
			// the register holds is checked again when it runs.
			if what, ok := callee(p, pc, in.a); !ok {
				return nil, fail(what)
			}
			if !reg(in.a) || (in.b > 0 && in.a+in.b-1 >= prog.nregs) || (in.op == lua.OP_CALL && in.c > 2 && in.a+in.c-2 >= prog.nregs) {
				return nil, fail("a call out of range")
			}
		case lua.OP_RETURN:
			if in.b != 1 && !reg(in.a) {
				return nil, fail("a register out of range")
			}
		case lua.OP_NOP:
		default:
			what, ok := opNames[in.op]
			if !ok {
				what = fmt.Sprintf("opcode %d", in.op)
			}
			return nil, fail(what)
		}
		prog.code[pc] = in
	}
	if len(prog.code) == 0 || prog.code[len(prog.code)-1].op != lua.OP_RETURN {
		return nil, &Unsupported{Line: p.LastLineDefined, Reason: "no final return"}
	}
	// A write that nothing after it can undo needs no undo entry (code
	// only jumps forward, so what runs after it comes after it).
	canBail := false
	for pc := len(prog.code) - 1; pc >= 0; pc-- {
		in := &prog.code[pc]
		if in.op == lua.OP_SETTABLEKS {
			in.last = !canBail
		}
		switch in.op {
		case lua.OP_MOVE, lua.OP_MOVEN, lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_LOADNIL, lua.OP_NOT, lua.OP_JMP,
			lua.OP_TEST, lua.OP_TESTSET, lua.OP_NOP:
		case lua.OP_RETURN:
			canBail = canBail || in.b == 0
		default:
			canBail = true
		}
	}
	return prog, nil
}

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
	nums []float64 // numbers boxed into table fields, a block at a time
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
			if in.last && t.Metatable == lua.LNil {
				t.RawSetString(key, m.box(v)) // nothing left to undo it
				break
			}
			old := t.RawGetString(key)
			if old == lua.LNil && t.Metatable != lua.LNil {
				return m.bail(p) // __newindex could answer
			}
			m.log[m.nlog] = undo{t: t, key: key, old: old}
			m.nlog++
			t.RawSetString(key, m.box(v))
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
var mathNames = map[string]bool{"min": true, "max": true, "abs": true, "floor": true, "sqrt": true}

// callee names what the call at pc calls, from the instruction that loaded
// register a before it: ok when it is math.min, max, abs, floor or sqrt
// read from the global math.
func callee(p *lua.FunctionProto, pc, a int) (what string, ok bool) {
	// load finds the instruction before pc that wrote register r.
	load := func(pc, r int) (int, bool) {
		for i := pc - 1; i >= 0; i-- {
			if opA(p.Code[i]) == r {
				return i, true
			}
		}
		return 0, false
	}
	name := func(code uint32) string {
		switch opCode(code) {
		case lua.OP_GETGLOBAL:
			if bx := opBx(code); bx < len(p.Constants) {
				return p.Constants[bx].String()
			}
		case lua.OP_GETUPVAL:
			if b := opB(code); b < len(p.DbgUpvalues) {
				return p.DbgUpvalues[b]
			}
		}
		return ""
	}
	at, found := load(pc, a)
	if !found {
		return "a call", false
	}
	fn := p.Code[at]
	if opCode(fn) == lua.OP_GETTABLEKS && opC(fn)&rkBit != 0 && opC(fn)&^rkBit < len(p.Constants) {
		key := p.Constants[opC(fn)&^rkBit].String()
		if lib, found := load(at, opB(fn)); found && name(p.Code[lib]) == "math" {
			if mathNames[key] {
				return "", true
			}
			return "a call of math." + key + " (only math.min, max, abs, floor and sqrt run compiled)", false
		}
		return "a call of a field " + key, false
	}
	switch n := name(fn); {
	case strings.Contains(n, "luaai concat"):
		return "string concatenation (..)", false
	case strings.Contains(n, "luaai absent"):
		return "a call of a missing function", false
	case n != "":
		return "a call of " + n, false
	}
	return "a call", false
}
