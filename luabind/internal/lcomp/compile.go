package lcomp

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

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
	prog.fast = buildStraight(prog)
	if prog.fast == nil {
		prog.branch = buildBranch(prog)
	}
	return prog, nil
}

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
