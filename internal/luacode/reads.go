package luacode

import (
	"math"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

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
		if OpCode(i) != lua.OP_GETTABLEKS || OpB(i) != 0 {
			continue
		}
		if k, ok := Constant(p, OpC(i)); ok {
			if ks, ok := k.(lua.LString); ok {
				out = append(out, FieldUse{Key: string(ks), Line: LineOf(p, pc)})
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
		switch OpCode(i) {
		case lua.OP_LOADK:
			if bx := int(i & 0x3ffff); bx < len(p.Constants) {
				if ks, ok := p.Constants[bx].(lua.LString); ok {
					loaded[OpA(i)] = string(ks)
				}
			}
		case lua.OP_SETTABLEKS, lua.OP_SETTABLE:
			b := OpB(i)
			if k, ok := Constant(p, b); ok {
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

// ParamReads lists the constant keys fn's own code reads from its
// parameter number param (0 for the first): ParamReads(fn, 1) of a
// when(ctx, payload) is what it reads from the payload.
func ParamReads(fn *lua.LFunction, param int) []FieldUse {
	if fn == nil || fn.Proto == nil || int(fn.Proto.NumParameters) <= param {
		return nil
	}
	p := fn.Proto
	var out []FieldUse
	for pc, i := range p.Code {
		if OpCode(i) != lua.OP_GETTABLEKS || OpB(i) != param {
			continue
		}
		if k, ok := Constant(p, OpC(i)); ok {
			if ks, ok := k.(lua.LString); ok {
				out = append(out, FieldUse{Key: string(ks), Line: LineOf(p, pc)})
			}
		}
	}
	return out
}

// Constants adds the number and string constants of fn's code, and of the
// closures inside it, to nums and strs (NaN and infinities left out).
func Constants(fn *lua.LFunction, nums map[float64]bool, strs map[string]bool) {
	if fn != nil && fn.Proto != nil {
		constants(fn.Proto, nums, strs, 0)
	}
}

func constants(p *lua.FunctionProto, nums map[float64]bool, strs map[string]bool, depth int) {
	if depth > 64 {
		return
	}
	for _, k := range p.Constants {
		switch k := k.(type) {
		case lua.LNumber:
			if f := float64(k); !math.IsNaN(f) && !math.IsInf(f, 0) {
				nums[f] = true
			}
		case lua.LString:
			strs[string(k)] = true
		}
	}
	for _, c := range p.FunctionPrototypes {
		constants(c, nums, strs, depth+1)
	}
}

// Use is how code uses a table's field (a context field, a payload
// field): what it does with the value it reads, and what it writes in.
type Use struct {
	Number bool // in arithmetic or an ordered comparison
	Table  bool // indexed, or its length taken
	Truthy bool // tested for truth (if ctx.x then)
	ID     bool // given to ai.send_to as the agent id
	// Written is true when the code writes the field itself (t.x = …):
	// it is the script's own state more than an input.
	Written bool
	// Values are the constants it is compared with (==, ~=) or that are
	// written into it; Keys the constant keys read from it as a table.
	Values []lua.LValue
	Keys   []string
}

// FieldUses adds to uses how fn's own code uses the fields of its
// parameter number param (0 for the first): for each field read, what the
// value read is then used for within the next few instructions, and the
// constants written into fields. It reads compiled code, so it is a hint:
// a value kept in a local and used much later is not followed.
func FieldUses(fn *lua.LFunction, param int, uses map[string]*Use) {
	if fn == nil || fn.Proto == nil || int(fn.Proto.NumParameters) <= param {
		return
	}
	p := fn.Proto
	use := func(key string) *Use {
		u := uses[key]
		if u == nil {
			u = &Use{}
			uses[key] = u
		}
		return u
	}
	// keyIn is the constant key last read into each register (any
	// table), to know which function a CALL calls.
	keyIn := map[int]string{}
	loaded := map[int]string{} // the string constant LOADK put in each register
	for pc, i := range p.Code {
		op, a := OpCode(i), OpA(i)
		switch op {
		case lua.OP_LOADK:
			if bx := int(i & 0x3ffff); bx < len(p.Constants) {
				if ks, ok := p.Constants[bx].(lua.LString); ok {
					delete(keyIn, a)
					loaded[a] = string(ks)
					continue
				}
			}
		case lua.OP_GETTABLEKS:
			k, _ := Constant(p, OpC(i))
			ks, _ := k.(lua.LString)
			keyIn[a] = string(ks)
			if OpB(i) == param && ks != "" {
				followUse(p, pc, a, use(string(ks)), keyIn)
			}
			continue
		case lua.OP_SETTABLEKS:
			if a == param {
				k, _ := Constant(p, OpB(i))
				ks, ok := k.(lua.LString)
				if !ok {
					// The compiler often loads the key into a register first.
					s, loadedKey := loaded[OpB(i)]
					ks, ok = lua.LString(s), loadedKey
				}
				if ok {
					u := use(string(ks))
					u.Written = true
					if v, ok := Constant(p, OpC(i)); ok {
						u.Values = AppendValue(u.Values, v)
					}
				}
			}
		}
		delete(keyIn, a)
		if writes(op) {
			delete(loaded, a)
		}
	}
}

// followUse looks at what the instructions after pc do with register r,
// until r is written again.
func followUse(p *lua.FunctionProto, pc, r int, u *Use, keyIn map[int]string) {
	other := func(b, c int) (lua.LValue, bool) {
		if b == r {
			return Constant(p, c)
		}
		return Constant(p, b)
	}
	for n, i := range p.Code[pc+1:] {
		if n >= 12 {
			return
		}
		op, a, b, c := OpCode(i), OpA(i), OpB(i), OpC(i)
		switch op {
		case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW, lua.OP_LT, lua.OP_LE:
			if b == r || c == r {
				u.Number = true
			}
		case lua.OP_UNM:
			if b == r {
				u.Number = true
			}
		case lua.OP_EQ:
			if b == r || c == r {
				if v, ok := other(b, c); ok {
					u.Values = AppendValue(u.Values, v)
				}
			}
		case lua.OP_GETTABLEKS, lua.OP_GETTABLE, lua.OP_SELF:
			if b == r {
				u.Table = true
				if op == lua.OP_GETTABLEKS {
					if k, ok := Constant(p, c); ok {
						if ks, ok := k.(lua.LString); ok && !slices.Contains(u.Keys, string(ks)) {
							u.Keys = append(u.Keys, string(ks))
						}
					}
				}
			}
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			if a == r {
				u.Table = true
			}
		case lua.OP_LEN:
			if b == r {
				u.Table = true
			}
		case lua.OP_TEST, lua.OP_TESTSET, lua.OP_NOT:
			if (op == lua.OP_TEST && a == r) || (op != lua.OP_TEST && b == r) {
				u.Truthy = true
			}
		case lua.OP_CALL:
			if r == a+1 && keyIn[a] == "send_to" {
				u.ID = true
			}
		}
		if writes(op) && a == r || op == lua.OP_CALL && a <= r {
			return
		}
	}
}

// writes tells whether an instruction writes its register A.
func writes(op int) bool {
	switch op {
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL, lua.OP_SETTABLE, lua.OP_SETTABLEKS, lua.OP_JMP,
		lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_RETURN, lua.OP_SETLIST, lua.OP_CLOSE, lua.OP_NOP:
		return false
	}
	return true
}

// AppendValue adds v to vs unless it is there already or vs holds 64.
func AppendValue(vs []lua.LValue, v lua.LValue) []lua.LValue {
	if len(vs) >= 64 || slices.Contains(vs, v) {
		return vs
	}
	return append(vs, v)
}

// Helpers lists the Lua functions fn can call through its upvalues (the
// script's local helper functions, and theirs), each once, at most 256.
func Helpers(fn *lua.LFunction) []*lua.LFunction {
	var out []*lua.LFunction
	seen := map[*lua.LFunction]bool{fn: true}
	var walk func(f *lua.LFunction)
	walk = func(f *lua.LFunction) {
		for _, uv := range f.Upvalues {
			if uv == nil || len(out) >= 256 {
				continue
			}
			h, ok := uv.Value().(*lua.LFunction)
			if !ok || h.IsG || seen[h] {
				continue
			}
			seen[h] = true
			out = append(out, h)
			walk(h)
		}
	}
	walk(fn)
	return out
}

// ParamName is the name of fn's parameter number param, "" when unknown.
func ParamName(fn *lua.LFunction, param int) string {
	if fn == nil || fn.Proto == nil || int(fn.Proto.NumParameters) <= param || len(fn.Proto.DbgLocals) <= param {
		return ""
	}
	return fn.Proto.DbgLocals[param].Name
}
