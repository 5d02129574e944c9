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
// and not, deleted keys, long keys and values, every scalar, and the
// tables flatBin leaves to the walk.
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
	if !fast.plan.ok || len(fast.plan.keys) != 2 {
		t.Fatalf("the last plan is %+v, want the defaults' two keys", fast.plan)
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
