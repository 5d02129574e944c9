package luabind

// table.insert within the sequence limit (luaval.MaxSequence): importing
// luabind imports luaval, which lowers gopher-lua's lua.MaxArrayIndex.

import (
	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// tableInsert is table.insert as gopher-lua has it, refusing to grow a
// table's array part past the sequence limit (gopher-lua would append past
// it, where t[k] no longer finds the element).
func (vm *VM) tableInsert(L *lua.LState) int {
	t := L.CheckTable(1)
	switch L.GetTop() {
	case 1:
		L.RaiseError("wrong number of arguments")
	case 2:
		v := L.Get(2)
		if v == lua.LNil {
			return 0
		}
		if n := t.Len(); n >= luaval.MaxLen() {
			sequenceFull(L, n)
		}
		t.Append(v)
		return 0
	}
	pos := L.CheckInt(2)
	v := L.CheckAny(3)
	// gopher-lua shifts the array part up by one when pos falls inside it
	// (past it, t[pos] = v is set as any key is).
	n, ok := luaval.ArrayLen(t)
	if !ok {
		n = t.Len()
	}
	if pos >= 1 && pos <= n && n >= luaval.MaxLen() {
		sequenceFull(L, n)
	}
	t.Insert(pos, v)
	return 0
}

func sequenceFull(L *lua.LState, n int) {
	L.RaiseError("table.insert: the table already holds %d elements in sequence, the most a luaai table's sequence holds (keys past it are ordinary keys, not seen by # or ipairs)", n)
}
