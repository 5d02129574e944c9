package lcomp

import (
	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// writeStmt is t.key = v as the interpreter writes it: into a table,
// where __newindex cannot answer; logged for undoing unless last (nothing
// after it can hand the call to the VM).
func writeStmt(t *bsym, key string, v *bsym, last bool, slot int) bStmt {
	if v.op != 0 && v.x.kind == sField && v.x.src == t && v.x.key == key {
		return updateStmt(t, key, v, last, slot)
	}
	tab := t.tabOf()
	value := v.valOf()
	if v.kind == sNum {
		num := v.num
		value = func(m *Machine) (val, bool) {
			n, ok := num(m)
			if slot >= 0 {
				m.regs[slot] = val{n: n, num: true}
			}
			return val{n: n, num: true}, ok
		}
	}
	return func(m *Machine) bool {
		t, ok := tab(m)
		if !ok {
			return false
		}
		x, ok := value(m)
		if !ok {
			return false
		}
		sd := strdict(t)
		if last && t.Metatable == lua.LNil {
			luaval.SetString(t, key, m.box(x))
			return true
		}
		old, present := sd[key]
		if !present {
			old = t.RawGetString(key) // lua.LNil, unless strdict is unknown
		}
		if old == lua.LNil && t.Metatable != lua.LNil {
			return false // __newindex could answer
		}
		m.log[m.nlog] = undo{t: t, key: key, old: old}
		m.nlog++
		setField(t, sd, present, key, m.box(x))
		return true
	}
}

// updateStmt is t.key = t.key op y, the usual update (ctx.x = ctx.x +
// ctx.vx * dt): the field's value is read once, as the number the
// arithmetic needs and as the old value the undo log keeps, and a field
// present in the table is written back with one store (a present key: no
// __newindex). slot >= 0 keeps the new number for later reads of the
// field (forwarded, see bstate.known).
func updateStmt(t *bsym, key string, v *bsym, last bool, slot int) bStmt {
	tab, fy, op := t.tabOf(), v.y.numOf(), v.op
	param := t.kind == sParam && t.idx == 0 // ctx itself: read here, without tab's call
	return func(m *Machine) bool {
		var t *lua.LTable
		var ok bool
		if param {
			t, ok = m.br.a0.(*lua.LTable)
		} else {
			t, ok = tab(m)
		}
		if !ok {
			return false
		}
		old := t.RawGetString(key)
		a, isNum := old.(lua.LNumber)
		if !isNum {
			return false // a miss, or what Lua would convert or refuse
		}
		b, ok := fy(m)
		if !ok {
			return false
		}
		r := arithZero(op, float64(a), b)
		if slot >= 0 {
			m.regs[slot] = val{n: r, num: true}
		}
		x := m.box(val{n: r, num: true})
		sd := strdict(t)
		if last {
			luaval.SetString(t, key, x)
			return true
		}
		m.log[m.nlog] = undo{t: t, key: key, old: old}
		m.nlog++
		setField(t, sd, sd != nil, key, x)
		return true
	}
}
