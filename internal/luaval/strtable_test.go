package luaval

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestSetStringLikeRawSet: SetString leaves a table exactly as
// RawSetString does (values and next's order), through new keys, present
// keys, keys set to nil and set again.
func TestSetStringLikeRawSet(t *testing.T) {
	if !StringsLayout() {
		t.Skip("this gopher-lua keeps string keys elsewhere: SetString is RawSetString")
	}
	ops := []struct {
		key string
		v   lua.LValue
	}{
		{"x", lua.LNumber(1)}, {"y", lua.LString("a")}, {"x", lua.LNumber(2)},
		{"z", lua.LTrue}, {"y", lua.LNil}, {"w", lua.LNumber(3)}, {"y", lua.LString("b")},
		{"x", lua.LNil}, {"x", lua.LNil}, {"v", lua.LNumber(4)}, {"z", lua.LFalse},
	}
	L := lua.NewState()
	defer L.Close()
	for _, presized := range []bool{false, true} {
		want, got := L.NewTable(), L.NewTable()
		if presized {
			want, got = L.CreateTable(0, 4), L.CreateTable(0, 4)
		}
		for i, op := range ops {
			want.RawSetString(op.key, op.v)
			SetString(got, op.key, op.v)
			if w, g := walk(L, want), walk(L, got); w != g {
				t.Fatalf("presized %v, after op %d (%s = %v): RawSetString walks %s, SetString %s", presized, i, op.key, op.v, w, g)
			}
		}
	}
}

// walk is t's pairs order and values, as text.
func walk(L *lua.LState, t *lua.LTable) string {
	s := ""
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		s += k.String() + "=" + v.String() + " "
	}
	return s
}
