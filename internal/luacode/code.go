// Package luacode reads gopher-lua's compiled code: its instructions and
// constants, and what a function's code does with its parameters and
// tables (the keys it reads and writes, the constants it compares with).
// luabind/defs, luaai explore and luaai check take their hints from it;
// they are read from the compiled code, so they are hints, never a promise.
package luacode

import lua "github.com/yuin/gopher-lua"

// OpCode is an instruction's opcode.
func OpCode(i uint32) int { return int(i >> 26) }

// OpA is an instruction's A operand.
func OpA(i uint32) int { return int(i>>18) & 0xff }

// OpB is an instruction's B operand.
func OpB(i uint32) int { return int(i & 0x1ff) }

// OpC is an instruction's C operand.
func OpC(i uint32) int { return int(i>>9) & 0x1ff }

// RKBit marks an RK operand that names a constant.
const RKBit = 1 << 8 // an RK operand that names a constant

// Constant is the constant an RK operand names; false when it names a
// register.
func Constant(p *lua.FunctionProto, rk int) (lua.LValue, bool) {
	i := rk &^ RKBit
	if rk&RKBit == 0 || i >= len(p.Constants) {
		return nil, false
	}
	return p.Constants[i], true
}

// LineOf is the source line of instruction pc of p.
func LineOf(p *lua.FunctionProto, pc int) int {
	if pc < len(p.DbgSourcePositions) {
		return p.DbgSourcePositions[pc]
	}
	return p.LineDefined
}
