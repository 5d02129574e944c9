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
