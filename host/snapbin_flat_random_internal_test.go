package host

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// flatGen makes contexts of the shapes flatBin takes and of those next to
// them that it must leave to the walk: keys in and out of order (boxed
// once per key set, as a behaviour's are, or fresh), deleted keys, keys
// that read as numbers, long keys and values, more than maxFlatKeys keys,
// tables inside (flat, lists, lists with a hole or another key, empty,
// deleted keys, shared with the context or with each other, the context
// itself) and strings met first in an attempt flatBin takes back.
type flatGen struct {
	L    *lua.LState
	rng  *rand.Rand
	sets [][]lua.LValue // boxed key sets, shared across contexts
	last *lua.LTable    // a table of an earlier context, reached again
}

var flatGenWords = []string{
	"x", "y", "hp", "a", "b", "z", "1", "10", "2", "-0", "1e3", "", " ",
	"body", "player", "target", strings.Repeat("L", binInternMax), strings.Repeat("M", binInternMax+1),
}

func (g *flatGen) word() string {
	if g.rng.IntN(20) == 0 {
		return fmt.Sprintf("w%d", g.rng.IntN(1000)) // a string met the first time
	}
	return flatGenWords[g.rng.IntN(len(flatGenWords))]
}

func (g *flatGen) scalar() lua.LValue {
	switch g.rng.IntN(6) {
	case 0:
		return lua.LNumber(g.rng.IntN(100))
	case 1:
		return lua.LNumber(g.rng.Float64() * 1e6)
	case 2:
		return lua.LBool(g.rng.IntN(2) == 0)
	case 3:
		return lua.LString(strings.Repeat("v", g.rng.IntN(60)))
	default:
		return lua.LString(g.word())
	}
}

// inner is a table inside a context (root is the context).
func (g *flatGen) inner(root *lua.LTable) lua.LValue {
	switch g.rng.IntN(10) {
	case 0:
		return root
	case 1:
		if g.last != nil {
			return g.last
		}
		return g.L.NewTable()
	case 2: // a list, maybe with a hole, a trailing nil or another key
		t := g.L.NewTable()
		for range 1 + g.rng.IntN(5) {
			t.Append(g.scalar())
		}
		switch g.rng.IntN(4) {
		case 0:
			t.RawSetInt(1, lua.LNil)
		case 1:
			t.RawSetString("k", lua.LNumber(1))
			if g.rng.IntN(2) == 0 {
				t.RawSetString("k", lua.LNil)
			}
		case 2:
			t.RawSetInt(t.Len(), lua.LNil)
		}
		return t
	case 3:
		return g.L.NewTable()
	case 4, 5: // a body of one shape (keys in one of two orders), as Sync makes
		t := g.L.NewTable()
		keys := []string{"x", "y", "hp", "enemy"}
		if g.rng.IntN(3) == 0 {
			keys = []string{"enemy", "hp", "x", "y"}
		}
		for _, k := range keys {
			t.RawSetString(k, g.scalar())
		}
		return t
	default: // a table of string keys, maybe with one deleted or a table in it
		t := g.L.NewTable()
		for range 1 + g.rng.IntN(6) {
			t.RawSetString(g.word(), g.scalar())
		}
		switch g.rng.IntN(6) {
		case 0:
			t.RawSetString(g.word(), lua.LNil)
		case 1:
			t.RawSetString("deep", g.L.NewTable())
		}
		g.last = t
		return t
	}
}

// context is one context.
func (g *flatGen) context() *lua.LTable {
	var keys []lua.LValue
	if len(g.sets) > 0 && g.rng.IntN(3) > 0 {
		keys = g.sets[g.rng.IntN(len(g.sets))]
	} else {
		n := 1 + g.rng.IntN(8)
		if g.rng.IntN(10) == 0 {
			n = maxFlatKeys - 1 + g.rng.IntN(3)
		}
		seen := map[string]bool{}
		for i := 0; len(keys) < n && i < 4*n; i++ {
			w := g.word()
			if i > len(flatGenWords) {
				w = fmt.Sprintf("k%02d", i)
			}
			if !seen[w] {
				seen[w] = true
				keys = append(keys, lua.LString(w))
			}
		}
		if g.rng.IntN(2) == 0 {
			g.sets = append(g.sets, keys)
		}
	}
	vals := make([]lua.LValue, len(keys))
	for i := range vals {
		vals[i] = g.scalar()
	}
	t := fillStrings(nil, keys, vals)
	for range g.rng.IntN(3) {
		if g.rng.IntN(2) == 0 {
			t.RawSetString(string(keys[g.rng.IntN(len(keys))].(lua.LString)), g.inner(t))
		} else {
			t.RawSetString(g.word(), g.inner(t))
		}
	}
	switch g.rng.IntN(8) {
	case 0:
		t.RawSetString(string(keys[g.rng.IntN(len(keys))].(lua.LString)), lua.LNil)
	case 1:
		t.RawSetInt(1, lua.LNumber(1))
	case 2:
		t.RawSetString(g.word(), g.scalar()) // a key out of the set's order
	}
	return t
}

// TestFlatBinRandomContexts: over thousands of generated contexts written
// in turn through one encoder (plans and string numbers carried from one
// to the next, as across a save's agents), flatBin's bytes are the walk's.
func TestFlatBinRandomContexts(t *testing.T) {
	if !tableMirrored {
		t.Skip("no flat path on this gopher-lua")
	}
	L := lua.NewState()
	defer L.Close()
	for seed := range uint64(20) {
		g := &flatGen{L: L, rng: rand.New(rand.NewPCG(seed, 7))}
		fast, slow := &encoder{}, &encoder{noFlat: true}
		flat := 0
		for i := range 300 {
			tb := g.context()
			var got, want []byte
			var gerr, werr error
			if i%2 == 0 {
				got, gerr = fast.encodeCtx(tb)
			} else {
				fast.reset()
				got, gerr = fast.encodeBinOnce(tb, "ctx")
			}
			slow.reset()
			want, werr = slow.encodeBinOnce(tb, "ctx")
			if (gerr == nil) != (werr == nil) {
				t.Fatalf("seed %d context %d: errors %v and %v", seed, i, gerr, werr)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d context %d: flatBin wrote\n% x\nthe walk\n% x", seed, i, got, want)
			}
			if probe := (&encoder{once: true, seen: []*lua.LTable{tb}}); probe.flatBin(tb) {
				flat++
			}
		}
		if flat < 30 {
			t.Fatalf("seed %d: %d contexts of 300 took the flat path", seed, flat)
		}
	}
}

// TestFlatBinManyInnerTables: a context of up to maxFlatKeys tables inside
// (past the 32 tables the one-walk path tracks), each flat or a list, is
// written as the walk writes it.
func TestFlatBinManyInnerTables(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	fast, slow := &encoder{}, &encoder{noFlat: true}
	for _, n := range []int{1, 30, 31, 32, 33} {
		for _, list := range []bool{false, true} {
			tb := L.NewTable()
			for i := range n {
				in := L.NewTable()
				if list {
					in.Append(lua.LNumber(i))
				} else {
					in.RawSetString("x", lua.LNumber(i))
				}
				tb.RawSetString(fmt.Sprintf("k%02d", n-i), in)
			}
			got, err := fast.encodeCtx(tb)
			if err != nil {
				t.Fatal(err)
			}
			slow.reset()
			want, err := slow.encodeBinOnce(tb, "ctx")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%d tables inside (lists %v): flatBin wrote\n% x\nthe walk\n% x", n, list, got, want)
			}
		}
	}
}
