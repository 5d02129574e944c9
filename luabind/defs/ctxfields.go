package defs

import lua "github.com/yuin/gopher-lua"

// FieldUse is a constant key a function reads from, or writes into, a
// table: the key and the source line.
type FieldUse struct {
	Key  string
	Line int
}

// CtxReads lists the ctx.X reads of fn, a callback whose first parameter is
// the context: the constant keys read from that parameter in fn's own code
// (not in closures inside it), in code order. It reads the compiled code,
// so a context reached another way (local c = ctx) is not seen.
func CtxReads(fn *lua.LFunction) []FieldUse {
	if fn == nil || fn.Proto == nil || fn.Proto.NumParameters < 1 {
		return nil
	}
	p := fn.Proto
	var out []FieldUse
	for pc, i := range p.Code {
		if opCode(i) != lua.OP_GETTABLEKS || opB(i) != 0 {
			continue
		}
		if k, ok := constant(p, opC(i)); ok {
			if ks, ok := k.(lua.LString); ok {
				out = append(out, FieldUse{Key: string(ks), Line: lineOf(p, pc)})
			}
		}
	}
	return out
}

// WrittenKeys adds to keys every constant key fn's code, and the code of
// the closures inside it, writes into any table (t.X = v): a generous
// answer to "does the script set X somewhere".
func WrittenKeys(fn *lua.LFunction, keys map[string]bool) {
	if fn != nil && fn.Proto != nil {
		writtenKeys(fn.Proto, keys)
	}
}

func writtenKeys(p *lua.FunctionProto, keys map[string]bool) {
	// The compiler often loads the key into a register first (LOADK):
	// the last string loaded into each register stands for it.
	loaded := map[int]string{}
	for _, i := range p.Code {
		switch opCode(i) {
		case lua.OP_LOADK:
			if bx := int(i & 0x3ffff); bx < len(p.Constants) {
				if ks, ok := p.Constants[bx].(lua.LString); ok {
					loaded[opA(i)] = string(ks)
				}
			}
		case lua.OP_SETTABLEKS, lua.OP_SETTABLE:
			b := opB(i)
			if k, ok := constant(p, b); ok {
				if ks, ok := k.(lua.LString); ok {
					keys[string(ks)] = true
				}
			} else if k, ok := loaded[b]; ok {
				keys[k] = true
			}
		}
	}
	for _, c := range p.FunctionPrototypes {
		writtenKeys(c, keys)
	}
}

func lineOf(p *lua.FunctionProto, pc int) int {
	if pc < len(p.DbgSourcePositions) {
		return p.DbgSourcePositions[pc]
	}
	return p.LineDefined
}
