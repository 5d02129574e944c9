package host

import (
	"reflect"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestFillStringsLikeRawSet: a table filled by fillStrings walks (next), reads
// and grows as one filled by RawSetString in the same order does.
func TestFillStringsLikeRawSet(t *testing.T) {
	if !tableMirrored {
		t.Fatal("gopher-lua's LTable does not keep its string keys where luaval looks: contexts are filled the slow way")
	}
	L := lua.NewState()
	defer L.Close()
	inner := L.NewTable()
	for _, keys := range [][]string{{}, {"x"}, {"player", "x"}, {"b", "a", "c", "hp", "name", "pos", "z1", "z2", "z3"}} {
		vals := make([]lua.LValue, len(keys))
		boxed := make([]lua.LValue, len(keys))
		want := L.CreateTable(0, len(keys))
		for i, k := range keys {
			boxed[i] = lua.LString(k)
			vals[i] = []lua.LValue{lua.LNumber(i), lua.LString("v"), lua.LTrue, inner}[i%4]
			want.RawSetString(k, vals[i])
		}
		got := fillStrings(nil, boxed, vals)
		walk := func(tb *lua.LTable) (out []lua.LValue) {
			for k, v := tb.Next(lua.LNil); k != lua.LNil; k, v = tb.Next(k) {
				out = append(out, k, v)
			}
			return out
		}
		if w, g := walk(want), walk(got); !reflect.DeepEqual(w, g) {
			t.Fatalf("keys %v: next() walks %v, want %v", keys, g, w)
		}
		for _, tb := range []*lua.LTable{want, got} {
			tb.RawSetString("added", lua.LNumber(7))
			tb.RawSetInt(1, lua.LString("one"))
			if len(keys) > 0 {
				tb.RawSetString(keys[0], lua.LString("changed"))
			}
		}
		if w, g := walk(want), walk(got); !reflect.DeepEqual(w, g) {
			t.Fatalf("keys %v, after sets: next() walks %v, want %v", keys, g, w)
		}
		if got.Metatable != lua.LNil || got.Len() != want.Len() {
			t.Fatalf("keys %v: metatable %v, len %d (want %d)", keys, got.Metatable, got.Len(), want.Len())
		}
	}
}
