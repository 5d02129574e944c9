package lcomp

import (
	lua "github.com/yuin/gopher-lua"
)

// walk follows the path from st.pc to its end (a return), building its
// stretches; ok is false for an instruction the tree does not run.
//
// It is long because it is one switch over the instructions a tree holds,
// each as the interpreter (run.go) runs it.
func (b *bbuild) walk(st *bstate) (*bpath, bool) {
	code := b.p.code
	for {
		if st.pc < 0 || st.pc >= len(code) {
			return nil, false
		}
		if b.visits++; b.visits > maxVisits {
			return nil, false
		}
		in := &code[st.pc]
		st.steps++
		next := st.pc + 1
		switch in.op {
		case lua.OP_MOVE:
			st.regs[in.a] = st.regs[in.b]
		case lua.OP_MOVEN:
			st.regs[in.a] = st.regs[in.b]
			for i := 1; i <= in.c; i++ {
				mv := &code[st.pc+i]
				st.regs[mv.a] = st.regs[mv.b]
			}
			next += in.c
		case lua.OP_LOADK:
			st.regs[in.a] = constSym(in.kb)
		case lua.OP_LOADBOOL:
			st.regs[in.a] = constSym(val{v: lua.LBool(in.b != 0)})
			if in.c != 0 {
				next++
			}
		case lua.OP_LOADNIL:
			for i := in.a; i <= in.b; i++ {
				st.regs[i] = constSym(val{v: lua.LNil})
			}
		case lua.OP_GETUPVAL:
			st.add(in.a, upvalSym(in.b))
		case lua.OP_GETGLOBAL:
			st.add(in.a, globalSym(in.key))
		case lua.OP_GETTABLEKS:
			key, ok := st.key(in.ck, in.key, in.c)
			if !ok || st.regs[in.b] == nil {
				return nil, false
			}
			if v, ok := st.known[fieldRef{st.regs[in.b], key}]; ok {
				st.regs[in.a] = v
				break
			}
			st.add(in.a, fieldSym(st.regs[in.b], key))
		case lua.OP_SETTABLEKS:
			key, ok := st.key(in.bk, in.key, in.b)
			if !ok {
				return nil, false
			}
			t, v := st.regs[in.a], st.operand(in.ck, in.kc, in.c)
			if t == nil || v == nil {
				return nil, false
			}
			st.cover(t)
			st.cover(v)
			if !b.flush(st, st.pc) {
				return nil, false
			}
			// The flush may have kept them: their registers say.
			t, v = st.regs[in.a], st.operand(in.ck, in.kc, in.c)
			slot, kept := -1, v
			switch {
			case v.kind == sNum && st.slots < MaxRegs:
				slot = st.slots
				st.slots++
				kept = &bsym{kind: sSlot, idx: slot}
			case v.kind != sConst:
				kept = nil // not known to be a value other than nil
			}
			st.stmts = append(st.stmts, writeStmt(t, key, v, in.last, slot))
			st.wrote(t, key, kept)
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			x, y := st.operand(in.bk, in.kb, in.b), st.operand(in.ck, in.kc, in.c)
			if x == nil || y == nil {
				return nil, false
			}
			st.add(in.a, arithSym(in.op, x, y))
		case lua.OP_UNM:
			x := st.regs[in.b]
			if x == nil {
				return nil, false
			}
			f := x.numOf()
			st.add(in.a, numSym(func(m *Machine) (float64, bool) {
				v, ok := f(m)
				return -v, ok
			}, x))
		case lua.OP_NOT:
			x := st.regs[in.b]
			if x == nil {
				return nil, false
			}
			st.add(in.a, notSym(x))
		case lua.OP_LEN:
			x := st.operand(in.bk, in.kb, in.b)
			if x == nil {
				return nil, false
			}
			st.add(in.a, lenSym(x))
		case lua.OP_JMP:
			next += in.b
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			x, y := st.operand(in.bk, in.kb, in.b), st.operand(in.ck, in.kc, in.c)
			if x == nil || y == nil {
				return nil, false
			}
			st.cover(x)
			st.cover(y)
			// The next instruction runs when the comparison is a.
			return b.branch(st, compareCond(in.op, x, y, in.a != 0), st.pc+1, st.pc+2)
		case lua.OP_TEST:
			x := st.regs[in.a]
			if x == nil {
				return nil, false
			}
			st.cover(x)
			// Truthy as C says: the next instruction runs.
			return b.branch(st, truthCond(x, in.c != 0), st.pc+1, st.pc+2)
		case lua.OP_TESTSET:
			x := st.regs[in.b]
			if x == nil {
				return nil, false
			}
			st.cover(x)
			path := &bpath{stmts: st.stmts, cond: truthCond(x, in.c != 0)}
			yes := st.fork(st.pc + 1)
			yes.regs[in.a] = x
			var ok bool
			if path.yes, ok = b.walk(yes); !ok {
				return nil, false
			}
			if path.no, ok = b.walk(st.fork(st.pc + 2)); !ok {
				return nil, false
			}
			return path, true
		case lua.OP_CALL, lua.OP_TAILCALL:
			if in.b < 1 || in.a+in.b > MaxRegs || in.op == lua.OP_CALL && (in.c < 1 || in.a+in.c-1 > MaxRegs) {
				return nil, false // a varying number of arguments or results
			}
			s := callSym(st.regs[in.a], st.regs[in.a+1:in.a+in.b])
			if s == nil {
				return nil, false
			}
			if in.op == lua.OP_TAILCALL {
				// A Go function's tail call returns at once: the RETURN
				// after it is not executed.
				return st.leaf(s), true
			}
			if in.c == 1 {
				st.add(-1, s) // no result, but it runs
				break
			}
			st.add(in.a, s)
			for i := in.a + 1; i <= in.a+in.c-2; i++ {
				st.regs[i] = constSym(val{v: lua.LNil})
			}
		case lua.OP_RETURN:
			switch {
			case in.b == 1:
				return st.leaf(nil), true
			case in.b >= 2 && st.regs[in.a] != nil:
				return st.leaf(st.regs[in.a]), true
			}
			return nil, false
		case lua.OP_NOP:
		default:
			return nil, false
		}
		st.pc = next
	}
}

// liveness finds, for each instruction, the registers that some path
// after it reads before writing them. Code only jumps forward, so one
// pass from the end finds them.
//
// It is long because it is one switch over the registers each
// instruction reads and writes.
func liveness(p *Program) ([]uint32, bool) {
	code := p.code
	in := make([]uint32, len(code)+1) // live before each instruction
	out := make([]uint32, len(code))
	bits := func(from, to int) uint32 { // registers from..to
		var m uint32
		for r := from; r <= to && r < MaxRegs; r++ {
			if r >= 0 {
				m |= 1 << r
			}
		}
		return m
	}
	rk := func(isK bool, r int) uint32 {
		if isK {
			return 0
		}
		return bits(r, r)
	}
	at := func(pc int) uint32 {
		if pc < 0 || pc >= len(code) {
			return 0
		}
		return in[pc]
	}
	for pc := len(code) - 1; pc >= 0; pc-- {
		c := &code[pc]
		var use, def uint32
		var succ uint32
		switch c.op {
		case lua.OP_MOVE, lua.OP_UNM, lua.OP_NOT:
			use, def, succ = bits(c.b, c.b), bits(c.a, c.a), at(pc+1)
		case lua.OP_MOVEN:
			// Followed by C moves run as part of it: all are read first
			// (a conservative use), written, and the code goes on after.
			use, def = bits(c.b, c.b), bits(c.a, c.a)
			for i := 1; i <= c.c && pc+i < len(code); i++ {
				use |= bits(code[pc+i].b, code[pc+i].b)
			}
			succ = at(pc + 1 + c.c)
		case lua.OP_LOADK, lua.OP_GETUPVAL, lua.OP_GETGLOBAL:
			def, succ = bits(c.a, c.a), at(pc+1)
		case lua.OP_LOADBOOL:
			def, succ = bits(c.a, c.a), at(pc+1)
			if c.c != 0 {
				succ = at(pc + 2)
			}
		case lua.OP_LOADNIL:
			def, succ = bits(c.a, c.b), at(pc+1)
		case lua.OP_GETTABLEKS:
			use, def, succ = bits(c.b, c.b)|rk(c.ck, c.c), bits(c.a, c.a), at(pc+1)
		case lua.OP_SETTABLEKS:
			use, succ = bits(c.a, c.a)|rk(c.bk, c.b)|rk(c.ck, c.c), at(pc+1)
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
			use, def, succ = rk(c.bk, c.b)|rk(c.ck, c.c), bits(c.a, c.a), at(pc+1)
		case lua.OP_LEN:
			use, def, succ = rk(c.bk, c.b), bits(c.a, c.a), at(pc+1)
		case lua.OP_JMP:
			succ = at(pc + 1 + c.b)
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE:
			use, succ = rk(c.bk, c.b)|rk(c.ck, c.c), at(pc+1)|at(pc+2)
		case lua.OP_TEST:
			use, succ = bits(c.a, c.a), at(pc+1)|at(pc+2)
		case lua.OP_TESTSET:
			// R(A) is written on one way only: not a write that ends it.
			use, succ = bits(c.b, c.b), at(pc+1)|at(pc+2)
		case lua.OP_CALL:
			use, succ = bits(c.a, c.a+c.b-1), at(pc+1)
			if c.c >= 2 {
				def = bits(c.a, c.a+c.c-2)
			}
		case lua.OP_TAILCALL:
			use = bits(c.a, c.a+c.b-1)
		case lua.OP_RETURN:
			use = bits(c.a, c.a+c.b-2)
		case lua.OP_NOP:
			succ = at(pc + 1)
		default:
			return nil, false
		}
		out[pc] = succ
		in[pc] = use | succ&^def
	}
	return out, true
}
