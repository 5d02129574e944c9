package host

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// TestFlatBinLikeTableBin: a context written by flatBin is the bytes the
// general walk writes, for contexts in turn through one encoder (the plan
// of one reused by the next, strings numbered across them): keys in order
// and not, deleted keys, long keys and values, every scalar, flat tables
// and lists inside, and the tables flatBin leaves to the walk.
func TestFlatBinLikeTableBin(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	long := strings.Repeat("k", binInternMax+1)
	boxed := []lua.LValue{lua.LString("player"), lua.LString("x")}
	defaults := func(player string, x float64) *lua.LTable {
		return fillStrings(nil, boxed, []lua.LValue{lua.LString(player), lua.LNumber(x)})
	}
	set := func(kv ...any) *lua.LTable {
		tb := L.NewTable()
		for i := 0; i < len(kv); i += 2 {
			var v lua.LValue = lua.LNil
			switch x := kv[i+1].(type) {
			case float64:
				v = lua.LNumber(x)
			case string:
				v = lua.LString(x)
			case bool:
				v = lua.LBool(x)
			case lua.LValue:
				v = x
			}
			tb.RawSetString(kv[i].(string), v)
		}
		return tb
	}
	list := L.NewTable()
	list.Append(lua.LNumber(1))
	listOf := func(vs ...lua.LValue) *lua.LTable {
		tb := L.NewTable()
		for _, v := range vs {
			tb.Append(v)
		}
		return tb
	}
	body := func() *lua.LTable { return set("x", 1.5, "y", 2.0, "hp", 100.0, "enemy", 6.0) } // Sync's order
	shared := body()
	holed := listOf(lua.LNumber(1), lua.LNumber(2), lua.LNumber(3))
	holed.RawSetInt(2, lua.LNil)
	mixed := listOf(lua.LNumber(1))
	mixed.RawSetString("n", lua.LNumber(1))
	cyclic := set("a", 1.0)
	cyclic.RawSetString("self", cyclic)
	deep := set("inner", set("deeper", set("x", 1.0)))
	rts := func() *lua.LTable {
		return set("body", body(), "commander", 1.0, "dist", 100.0, "orders", 3.0, "range", 10.0, "target", 0.0)
	}
	tables := []*lua.LTable{
		defaults("none", 0), defaults("found", 1.5), defaults("none", -0.0),
		set("x", 3.0, "player", "none"), // out of order: sorted by the walk
		defaults("found", math.Inf(1)),
		set("a", true, "b", false, "c", math.NaN()),
		set("a", 1.0, "gone", 2.0, "gone", nil), // a deleted key stays listed
		set(long, "v", "short", strings.Repeat("long value ", 5)),
		set("t", list),               // a table inside
		set("p", "fresh", "q", list), // strings numbered, then taken back
		set("p", "fresh", "q", 1.0),
		list,         // a list
		L.NewTable(), // empty
		defaults("none", 1e300), defaults("none", 2),
		fillStrings(nil, append(boxed[:2:2], lua.LString("z")), []lua.LValue{lua.LString("a"), lua.LNumber(1), lua.LTrue}),
		fillStrings(nil, boxed[:1], []lua.LValue{lua.LString("a")}),
		defaults("none", 7),
		// Tables inside: flat ones (keys in any order), lists of scalars,
		// and those left to the walk (a hole, other keys, shared, a cycle,
		// deeper, empty).
		rts(), rts(), set("body", body(), "squad", listOf(lua.LNumber(2), lua.LNumber(3), lua.LString("s"), lua.LTrue), "t", 0.5),
		set("z", 1.0, "body", body(), "a", "first"),
		set("tags", listOf(lua.LString("fresh"), lua.LString("fresh2")), "n", 1.0),
		set("l", holed), set("l", mixed), set("a", shared, "b", shared), cyclic, deep,
		set("e", L.NewTable()), set("in", set("t", list)),
		// A table inside numbers new strings, then its context is left to
		// the walk: the next one's must not name those numbers.
		set("fresh", set("k1", 1.0, "k2", 2.0), "zz", holed), set("fresh", set("k1", 3.0, "k2", 4.0)),
		rts(),
	}
	fast, slow := &encoder{}, &encoder{noFlat: true}
	for i, tb := range tables {
		fast.reset()
		slow.reset()
		got, err := fast.encodeBinOnce(tb, "ctx")
		if err != nil {
			t.Fatalf("table %d: %v", i, err)
		}
		want, err := slow.encodeBinOnce(tb, "ctx")
		if err != nil {
			t.Fatalf("table %d: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("table %d: flatBin wrote % x, the walk % x", i, got, want)
		}
	}
	// flatBin itself writes those it should, and leaves the others.
	for i, c := range []struct {
		tb   *lua.LTable
		flat bool
	}{
		{rts(), true}, {set("z", 1.0, "body", body(), "a", "first"), true},
		{set("tags", listOf(lua.LString("x"), lua.LNumber(1)), "n", 1.0), true},
		{set("l", holed), false}, {set("l", mixed), false}, {set("a", shared, "b", shared), false},
		{cyclic, false}, {deep, false}, {set("e", L.NewTable()), false}, {list, false},
	} {
		e := &encoder{once: true, seen: []*lua.LTable{c.tb}}
		if got := e.flatBin(c.tb); got != c.flat {
			t.Errorf("case %d: flatBin took it: %v, want %v", i, got, c.flat)
		}
		if !c.flat && (len(e.buf) > 0 || len(e.seen) != 1 || e.strs.len() != 0) {
			t.Errorf("case %d: flatBin left %d bytes, %d tables seen, %d strings", i, len(e.buf), len(e.seen), e.strs.len())
		}
	}
	if !fast.plan.ok || len(fast.plan.keys) != 6 {
		t.Fatalf("the last plan is %+v, want the six keys of the last context", fast.plan)
	}
}

// TestBinNumberTags: a whole number below 2^53 (not -0) is a varint, any
// other number its 8 bytes; either reads back as the same number.
func TestBinNumberTags(t *testing.T) {
	whole := func(f float64) bool {
		return f == math.Trunc(f) && math.Abs(f) < 1<<53 && !(f == 0 && math.Signbit(f))
	}
	for _, f := range []float64{
		0, math.Copysign(0, -1), 1, -1, 1.5, -2.5, 1<<53 - 1, -(1<<53 - 1), 1 << 53, -(1 << 53),
		1 << 62, 1 << 63, -(1 << 63), 1 << 64, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, math.MaxFloat64, 4503599627370495.5,
	} {
		e := &encoder{}
		e.binNumber(f)
		want := byte(binFloat)
		if whole(f) {
			want = binInt
		}
		if e.buf[0] != want {
			t.Errorf("%v: tag %d, want %d", f, e.buf[0], want)
		}
		d := &decoder{}
		r := &binReader{b: e.buf}
		v, err := d.binValue(r, 0)
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		got := float64(v.(lua.LNumber))
		if math.Float64bits(got) != math.Float64bits(f) && !(math.IsNaN(f) && math.IsNaN(got)) {
			t.Errorf("%v: read back as %v", f, got)
		}
	}
}

// TestIDPlacerOrder: ids in increasing order are placed without the maps;
// one out of order moves to them with every id placed before, so that a
// later repeat of any is still found.
func TestIDPlacerOrder(t *testing.T) {
	h, err := New(Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	cases := []struct {
		ids   []int
		twice int // the id refused as twice in the document, 0 for none
	}{
		{ids: []int{1, 2, 5, 9}},
		{ids: []int{5, 2, 9, 1}},
		{ids: []int{1, 5, 2, 5}, twice: 5},
		{ids: []int{1, 2, 3, 1}, twice: 1},
		{ids: []int{4, 4}, twice: 4},
	}
	for _, tc := range cases {
		p := h.newIDPlacer(nil)
		p.reserve(len(tc.ids))
		var refused int
		for _, id := range tc.ids {
			got, err := p.place(id)
			if err != nil {
				if !errors.Is(err, ErrIDInUse) || !strings.Contains(err.Error(), "twice") {
					t.Fatalf("%v: id %d: %v", tc.ids, id, err)
				}
				refused = id
				break
			}
			if got != id {
				t.Fatalf("%v: id %d placed as %d", tc.ids, id, got)
			}
		}
		if refused != tc.twice {
			t.Fatalf("%v: refused %d as twice, want %d", tc.ids, refused, tc.twice)
		}
	}
}
