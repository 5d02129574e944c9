package luabind

// table.concat under the string cap and the budget.

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// tableConcat is table.concat with gopher-lua's argument handling, built
// in one buffer that stops at the cap (gopher-lua pushes every element and
// separator on the value stack first, so 600,000 elements overflow it).
func (vm *VM) tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := t.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(lua.LString(""))
		return 1
	}
	if i > n {
		i = n
	}
	if i < 1 {
		i = 1
	}
	if j > n {
		j = n
	}
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	max := vm.guard.maxString
	var b strings.Builder
	for k := i; k <= j; k++ {
		var s string
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = v.String()
		default:
			L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		add := len(s)
		if k != j {
			add += len(sep)
		}
		if b.Len()+add > max {
			vm.tooLong(L, "table.concat", float64(b.Len()+add))
		}
		b.WriteString(s)
		if k != j {
			b.WriteString(sep)
		}
		if k&4095 == 0 {
			vm.checkBudget(L)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// maxResults is how many values unpack and string.byte may return at once:
// Lua 5.1's LUAI_MAXCSTACK. Beyond it PUC Lua refuses ("too many results to
// unpack", "string slice too long"); gopher-lua would push millions of
// values in one instruction that no budget can interrupt.
const maxResults = 8000

// unpack is Lua 5.1's unpack(t [, i [, j]]), refusing more than maxResults
// values as PUC Lua does.
func (vm *VM) unpack(L *lua.LState) int {
	t := L.CheckTable(1)
	i := L.OptInt(2, 1)
	j := L.OptInt(3, t.Len())
	if i > j {
		return 0
	}
	if n := int64(j) - int64(i) + 1; n >= maxResults {
		L.RaiseError("too many results to unpack")
	}
	for k := i; k <= j; k++ {
		L.Push(t.RawGetInt(k))
	}
	return j - i + 1
}
