package lcomp

import (
	"testing"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// TestStrdictLayout: the direct store into a table's string map is known
// for the gopher-lua this module pins (a version that changes the layout
// turns it off: this test then says so), and leaves the table as
// RawSetString does, the order next() gives included.
func TestStrdictLayout(t *testing.T) {
	if !luaval.StringsLayout() {
		t.Fatal("gopher-lua's LTable has no strdict map[string]LValue beside k2i: every compiled write goes through RawSetString")
	}
	a, b := &lua.LTable{}, &lua.LTable{}
	for _, tb := range []*lua.LTable{a, b} {
		tb.RawSetString("x", lua.LNumber(1))
		tb.RawSetString("y", lua.LNumber(2))
		tb.RawSetString("x", lua.LNil)
	}
	a.RawSetString("y", lua.LString("s"))
	sd := strdict(b)
	_, present := sd["y"]
	setField(b, sd, present, "y", lua.LString("s"))
	a.RawSetString("x", lua.LNumber(3))
	_, present = sd["x"]
	setField(b, sd, present, "x", lua.LNumber(3))
	// luaval.SetString (the last write of a run): a present key, a new one, a nil.
	for _, kv := range []struct {
		k string
		v lua.LValue
	}{{"y", lua.LNumber(4)}, {"z", lua.LTrue}, {"y", lua.LNil}, {"y", lua.LNumber(5)}} {
		a.RawSetString(kv.k, kv.v)
		luaval.SetString(b, kv.k, kv.v)
	}
	order := func(tb *lua.LTable) (s string) {
		for k, v := tb.Next(lua.LNil); k != lua.LNil; k, v = tb.Next(k) {
			s += k.String() + "=" + v.String() + " "
		}
		return s
	}
	if order(a) != order(b) || order(a) != "x=3 y=5 z=true " {
		t.Fatalf("RawSetString gives %q, the direct store %q", order(a), order(b))
	}
}
