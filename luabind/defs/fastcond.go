package defs

import (
	"github.com/luaai/luaai/internal/luacode"
	lua "github.com/yuin/gopher-lua"
)

// Lua conditions that only compare one context field with a constant —
// `function(ctx) return ctx.player == "found" end`, `return ctx.hp < 10`,
// `return ctx.alert`, `return not ctx.busy` — are the commonest a modder
// writes. Their bytecode is recognised when the definition is built and
// evaluated in Go, as ai.eq and friends are: the same result as calling the
// function, without the call. Whenever the Go evaluation could differ — the
// context has a metatable (a __index could answer), or an ordering meets
// anything but two numbers (Lua would compare strings by locale, or raise
// an error) — the function is called as usual. TestFastCondMatchesLua
// checks the two against each other.

// fastCond is a recognised condition.
type fastCond struct {
	field string
	op    fastOp
	k     lua.LValue // the constant compared with (not for truthy)
	kLeft bool       // the constant is the left operand of < or <=
	neg   bool       // the result is negated (~=, not, and the EQ/LT/LE A flag)
}

type fastOp uint8

const (
	fastTruthy fastOp = iota // return ctx.f  /  return not ctx.f
	fastEq                   // ==, ~=
	fastLt                   // <, > (operands swapped)
	fastLe                   // <=, >=
)

// test evaluates the condition on ctx; ok is false when the function must
// be called instead.
func (f *fastCond) test(ctx *lua.LTable) (result, ok bool) {
	if ctx.Metatable != lua.LNil {
		return false, false
	}
	v := ctx.RawGetString(f.field)
	switch f.op {
	case fastTruthy:
		return lua.LVAsBool(v) != f.neg, true
	case fastEq:
		return rawEquals(v, f.k) != f.neg, true
	}
	a, isNum := v.(lua.LNumber)
	if !isNum {
		return false, false
	}
	x, y := float64(a), float64(f.k.(lua.LNumber))
	if f.kLeft {
		x, y = y, x
	}
	var r bool
	if f.op == fastLt {
		r = x < y
	} else {
		r = x <= y
	}
	return r != f.neg, true
}

// rawEquals is Lua's == between a value and a constant (a number, string
// or boolean): no metamethod can take part, as the types differ or are
// not tables or userdata.
func rawEquals(v, k lua.LValue) bool {
	switch k := k.(type) {
	case lua.LNumber:
		n, ok := v.(lua.LNumber)
		return ok && float64(n) == float64(k)
	case lua.LString:
		s, ok := v.(lua.LString)
		return ok && s == k
	case lua.LBool:
		b, ok := v.(lua.LBool)
		return ok && b == k
	}
	return false
}

// Instruction fields, as gopher-lua encodes them.
func opSbx(i uint32) int { return int(i&0x3ffff) - (0x3ffff >> 1) }

// compileFastCond recognises a condition's bytecode, or returns nil.
//
// It is long because it is one recogniser of the condition shapes that run
// in Go, a switch over their bytecode patterns.
func compileFastCond(p *lua.FunctionProto) *fastCond {
	if p == nil || p.IsVarArg != 0 || p.NumParameters < 1 || p.NumParameters > 2 {
		return nil
	}
	code := p.Code
	if len(code) < 3 || luacode.OpCode(code[0]) != lua.OP_GETTABLEKS || luacode.OpB(code[0]) != 0 || luacode.OpC(code[0])&luacode.RKBit == 0 {
		return nil
	}
	r := luacode.OpA(code[0]) // the register holding ctx.field
	if r < int(p.NumParameters) {
		return nil // it would overwrite a parameter
	}
	field, ok := luacode.Constant(p, luacode.OpC(code[0]))
	if !ok {
		return nil
	}
	name, ok := field.(lua.LString)
	if !ok {
		return nil
	}
	f := &fastCond{field: string(name)}
	rest := code[1:]
	// return ctx.f / return not ctx.f
	if len(rest) >= 2 && luacode.OpCode(rest[0]) == lua.OP_NOT && luacode.OpA(rest[0]) == r && luacode.OpB(rest[0]) == r {
		f.neg = true
		rest = rest[1:]
	}
	if len(rest) == 2 && isReturn(rest[0], r) && isFinalReturn(rest[1]) {
		f.op = fastTruthy
		return f
	}
	if f.neg {
		return nil
	}
	// return ctx.f <op> K: a comparison, JMP +1, LOADBOOL r 0 1,
	// LOADBOOL r 1 0, RETURN r 2, RETURN 0 1.
	if len(rest) != 6 || luacode.OpCode(rest[1]) != lua.OP_JMP || opSbx(rest[1]) != 1 ||
		!isLoadBool(rest[2], r, 0, 1) || !isLoadBool(rest[3], r, 1, 0) ||
		!isReturn(rest[4], r) || !isFinalReturn(rest[5]) {
		return nil
	}
	cmp := rest[0]
	switch luacode.OpCode(cmp) {
	case lua.OP_EQ:
		f.op = fastEq
	case lua.OP_LT:
		f.op = fastLt
	case lua.OP_LE:
		f.op = fastLe
	default:
		return nil
	}
	b, c := luacode.OpB(cmp), luacode.OpC(cmp)
	var kIdx int
	switch {
	case b == r && c&luacode.RKBit != 0:
		kIdx = c
	case c == r && b&luacode.RKBit != 0:
		kIdx, f.kLeft = b, true
	default:
		return nil
	}
	k, ok := luacode.Constant(p, kIdx)
	if !ok {
		return nil
	}
	switch k.(type) {
	case lua.LNumber:
	case lua.LString, lua.LBool:
		if f.op != fastEq {
			return nil // ordering strings depends on the locale in Lua
		}
	default:
		return nil
	}
	f.k = k
	// "if ((B op C) ~= A) then skip the JMP": with A = 1 the JMP runs when
	// the comparison holds, and lands on LOADBOOL true.
	f.neg = luacode.OpA(cmp) == 0
	return f
}

func isLoadBool(i uint32, r, b, c int) bool {
	return luacode.OpCode(i) == lua.OP_LOADBOOL && luacode.OpA(i) == r && luacode.OpB(i) == b && luacode.OpC(i) == c
}

func isReturn(i uint32, r int) bool {
	return luacode.OpCode(i) == lua.OP_RETURN && luacode.OpA(i) == r && luacode.OpB(i) == 2
}

func isFinalReturn(i uint32) bool {
	return luacode.OpCode(i) == lua.OP_RETURN && luacode.OpA(i) == 0 && luacode.OpB(i) == 1
}
