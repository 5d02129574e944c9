package host_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/luaval"
)

// snapNumbers are the integer keys and counts a crafted snapshot tries:
// the edges of the array part and of the sequence limit, gopher-lua's own
// array limit, the largest exact integers, and numbers that are not whole.
var snapNumbers = []string{
	"0", "1", "2", "3", "-1", "7", "64", "1000", "4095", "4096", "65535", "65536",
	fmt.Sprint(luaval.MaxSequence - 1), fmt.Sprint(luaval.MaxSequence), fmt.Sprint(luaval.MaxSequence + 1), fmt.Sprint(luaval.MaxSequence + 2),
	"8388608", "67108863", "67108864", "67108865", "2147483648", "4294967296",
	"9007199254740991", "9007199254740992", "9007199254740993", "1e300", "-1e300", "0.5", "1.5", "-0", "1e-300",
}

// snapGen writes a snapshot value as the bytes say: lists (with runs of
// nulls of any count), objects, $pairs with integer keys near every edge,
// $array with $pairs, shared tables and references, tagged values.
type snapGen struct {
	data []byte
	ids  int
	b    strings.Builder
}

func (g *snapGen) next() int {
	if len(g.data) == 0 {
		return 0
	}
	c := g.data[0]
	g.data = g.data[1:]
	return int(c)
}

func (g *snapGen) number() string { return snapNumbers[g.next()%len(snapNumbers)] }

// It is long because it is one switch over the shapes a snapshot value
// takes, each case a few lines.
func (g *snapGen) value(depth int) {
	if depth > 6 || len(g.data) == 0 || g.b.Len() > 1<<18 {
		g.b.WriteString(g.number())
		return
	}
	switch g.next() % 11 {
	case 0:
		g.b.WriteString(g.number())
	case 1:
		fmt.Fprintf(&g.b, `"s%d"`, g.next())
	case 2:
		g.b.WriteString([]string{"null", "true", "false"}[g.next()%3])
	case 3, 4:
		g.b.WriteByte('[')
		for i, n := 0, g.next()%6; i < n; i++ {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.value(depth + 1)
		}
		g.b.WriteByte(']')
	case 5: // a run of nulls, then a value: a count the bytes choose
		g.b.WriteByte('[')
		for i, n := 0, g.next()*g.next(); i < n; i++ {
			g.b.WriteString("null,")
		}
		g.value(depth + 1)
		g.b.WriteByte(']')
	case 6, 7:
		g.b.WriteString(`{"$pairs":`)
		g.pairs(depth)
		g.b.WriteByte('}')
	case 8:
		g.b.WriteString(`{"$array":[`)
		for i, n := 0, g.next()%5; i < n; i++ {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.value(depth + 1)
		}
		g.b.WriteString(`]`)
		if g.next()%2 == 0 {
			g.b.WriteString(`,"$pairs":`)
			g.pairs(depth)
		}
		g.b.WriteByte('}')
	case 9:
		if g.ids > 0 && g.next()%2 == 0 {
			fmt.Fprintf(&g.b, `{"$ref":%d}`, 1+g.next()%g.ids)
			return
		}
		g.ids++
		fmt.Fprintf(&g.b, `{"$id":%d,"$t":`, g.ids)
		g.value(depth + 1)
		g.b.WriteByte('}')
	default:
		fmt.Fprintf(&g.b, `{"k%d":`, g.next()%4)
		g.value(depth + 1)
		g.b.WriteString(`,"$pairs":1}`)
	}
}

func (g *snapGen) pairs(depth int) {
	g.b.WriteByte('[')
	for i, n := 0, g.next()%6; i < n; i++ {
		if i > 0 {
			g.b.WriteByte(',')
		}
		g.b.WriteByte('[')
		if g.next()%5 == 0 {
			fmt.Fprintf(&g.b, `"k%d"`, g.next()%4)
		} else {
			g.b.WriteString(g.number())
		}
		g.b.WriteByte(',')
		g.value(depth + 1)
		g.b.WriteByte(']')
	}
	g.b.WriteByte(']')
}

// FuzzSnapshotKeys restores generated snapshots of integer keys and
// counts: each is refused as a bad snapshot or read, the reader allocating
// at most 256 times the snapshot's size plus 1 MiB (encoding/json's token
// garbage included); what is read saves, and that save reads back to the
// same save.
func FuzzSnapshotKeys(f *testing.F) {
	f.Add([]byte{6, 1, 13, 0})
	f.Add([]byte{6, 2, 14, 0, 15, 3, 1})
	f.Add([]byte{5, 200, 200, 0, 3})
	f.Add([]byte{8, 3, 0, 1, 0, 2, 0, 3, 0, 2, 1, 14, 0})
	f.Add([]byte{9, 6, 1, 12, 0, 9, 0, 9, 0})
	f.Add([]byte{3, 4, 5, 255, 1, 0, 5, 3, 3, 0, 6, 5, 16, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			return
		}
		g := &snapGen{data: data}
		g.b.WriteString(`{"agents":[{"behaviour":"plain.lua","clock":0,"ctx":{"v":`)
		g.value(0)
		fmt.Fprintf(&g.b, `},"id":%s,"machines":{"":{"stack":["s"]}},"rng":"cGNnOgAAAAAAAAAAAAAAAAAAAAE=","states":{},"ticks":%s,"overruns":%s}],"version":1}`,
			g.number(), g.number(), g.number())
		snap := []byte(g.b.String())

		h, err := host.New(host.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		b, err := h.LoadString("plain.lua", plainBehaviour)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		agents, err := h.Restore(snap, b)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(256*len(snap)+1<<20) {
			t.Fatalf("a %d-byte snapshot made its reader allocate %d bytes\n%s", len(snap), alloc, snap)
		}
		if err != nil {
			if !errors.Is(err, host.ErrBadSnapshot) && !errors.Is(err, host.ErrIDInUse) { // id 0 is never an agent's
				t.Fatalf("refused, but not as a bad snapshot: %v\n%s", err, snap)
			}
			return
		}
		saved, err := h.Snapshot()
		if err != nil {
			t.Fatalf("read but cannot save: %v\n%s", err, snap)
		}
		h2, err := host.New(host.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer h2.Close()
		b2, err := h2.LoadString("plain.lua", plainBehaviour)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h2.Restore(saved, b2); err != nil {
			t.Fatalf("a save does not read back: %v\n%.2000s", err, saved)
		}
		again, err := h2.Snapshot()
		if err != nil || string(again) != string(saved) {
			t.Fatalf("a save does not read back the same: %v\n%.2000s\n%.2000s", err, saved, again)
		}
		for _, a := range agents {
			_ = a.Tick(0.1)
		}
	})
}
