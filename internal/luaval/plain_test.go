package luaval

import (
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/plainjson"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

func TestCopyPlain(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	eval := func(src string) lua.LValue {
		require.NoError(t, L.DoString("v = "+src))
		return L.GetGlobal("v")
	}
	for _, tc := range []struct{ src, err string }{
		{`{ a = 1, [2] = "x", [true] = { false } }`, ""},
		{`{ [{}] = 1 }`, "the value has a table key"},
		{`{ a = { b = coroutine.create(function() end) } }`, "[a][b] is a thread"},
		{`(function() local t = {} for i = 1, 101 do t = { t } end return t end)()`, "nests more than 100 tables deep"},
		{`(function() local t = {} for i = 1, 70000 do t[i] = i end return t end)()`, "more than 65536 entries"},
		{`(function() local s = {} return { s, s } end)()`, ""}, // shared, not a cycle: copied twice
		{`(function() local t = { 1 } t[60000] = 2 return t end)()`, ""},
		{`(function() local t = { 1, nil, 3, a = 1 } t[131073] = 4 return t end)()`, ""},
		{`(function() local s = {} s[40000] = 1 return { s, s } end)()`, "more than 65536 entries (array slots that hold nil count)"},
	} {
		v, err := CopyPlain(eval(tc.src))
		if tc.err != "" {
			require.ErrorIs(t, err, ErrNotPlain, tc.src)
			require.Contains(t, err.Error(), tc.err, tc.src)
			continue
		}
		require.NoError(t, err, tc.src)
		require.Equal(t, ToGo(eval(tc.src)), ToGo(FromPlain(L, v)), tc.src)
	}
}

// A copy holds a table's array part with its nil slots, so it costs what
// rebuilding it does, and the rebuild fills no gap.
func TestCopyPlainArrayPart(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	require.NoError(t, L.DoString(`v = {} v[60000] = "x" v.name = "n"`))
	c, err := CopyPlain(L.GetGlobal("v"))
	require.NoError(t, err)
	p := c.(*PlainTable)
	require.Len(t, p.Array, 60000)
	require.Equal(t, "x", p.Array[59999])
	require.Equal(t, []any{"name"}, p.Keys)
	back := FromPlain(L, c).(*lua.LTable)
	n, _ := ArrayLen(back)
	require.Equal(t, 60000, n)
	require.Equal(t, 60000, ArrayCap(back), "built at its size, not grown by copies")
	require.Equal(t, lua.LString("x"), back.RawGetInt(60000))
}

// FuzzCopyPlain builds a payload from the input — tables nested as the
// bytes say, keys of any length and kind, shared tables, cycles, values of
// every kind — and copies it as ai.send_to does: CopyPlain either copies
// it (and FromPlain gives back the same data) or refuses it with
// ErrNotPlain; it never panics, and its work is bounded by the entries it
// copies, not by depth × key length.
func FuzzCopyPlain(f *testing.F) {
	f.Add([]byte{3, 1, 200, 2, 7, 0, 9})
	f.Add([]byte("\x05\x10deep and long keys\x00\x01\x02"))
	f.Add(make([]byte, 300))
	f.Fuzz(func(t *testing.T, data []byte) {
		L := lua.NewState()
		defer L.Close()
		next := func() byte {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return b
		}
		var tables []*lua.LTable
		var build func(depth int) lua.LValue
		build = func(depth int) lua.LValue {
			switch b := next(); b % 8 {
			case 0:
				return lua.LNumber(float64(next()) - 100)
			case 1:
				return lua.LString(strings.Repeat(string(rune('a'+next()%26)), int(next())*int(next())))
			case 2:
				return lua.LBool(b&8 != 0)
			case 3:
				if len(tables) > 0 {
					return tables[int(next())%len(tables)] // shared, or a cycle
				}
				return lua.LNil
			case 4:
				return L.NewFunction(func(*lua.LState) int { return 0 })
			default:
				t := L.NewTable()
				tables = append(tables, t)
				if depth < 150 {
					for n := int(next() % 4); n >= 0 && len(data) > 0; n-- {
						var k lua.LValue = lua.LString(strings.Repeat("k", int(next())*64))
						if next()%3 == 0 {
							k = lua.LNumber(float64(next()))
						}
						t.RawSet(k, build(depth+1))
					}
				}
				return t
			}
		}
		v := build(0)
		cp, err := CopyPlain(v)
		if err != nil {
			require.ErrorIs(t, err, ErrNotPlain)
			require.Less(t, len(err.Error()), 2000, "an error names its place, clipped")
			return
		}
		back := FromPlain(L, cp)
		again, err := CopyPlain(back)
		require.NoError(t, err)
		require.Equal(t, plainjson.Safe(ToGo(FromPlain(L, again))), plainjson.Safe(ToGo(back)))
	})
}

// A payload of numbers and strings costs its copy a few allocations
// whatever its size: its numbers and strings are not boxed again, out or
// back in (the rebuilt table's own allocations are gopher-lua's).
func TestCopyPlainShares(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	require.NoError(t, L.DoString(`v = { x = 1.5, y = -2.25, name = "scout", 4.5, 6.5, "w" }`))
	v := L.GetGlobal("v")
	c, err := CopyPlain(v)
	require.NoError(t, err)
	require.Equal(t, ToGo(v), ToGo(FromPlain(L, c)))
	p := c.(*PlainTable)
	require.Equal(t, []any{4.5, 6.5, "w"}, p.Array)
	require.Equal(t, []any{"x", "y", "name"}, p.Keys, "in the order next visits them")
	require.Equal(t, []any{1.5, -2.25, "scout"}, p.Vals)
	copies := testing.AllocsPerRun(100, func() {
		if _, err := CopyPlain(v); err != nil {
			panic(err)
		}
	})
	// The table, its array part, its keys and values.
	require.LessOrEqual(t, copies, 3.0)
	// Rebuilding it costs what the table constructor that made it does:
	// gopher-lua's allocations, nothing more per number or string.
	require.NoError(t, L.DoString(`function make() return { x = 1.5, y = -2.25, name = "scout", 4.5, 6.5, "w" } end`))
	ctor := testing.AllocsPerRun(100, func() {
		L.Push(L.GetGlobal("make"))
		L.Call(0, 1)
		L.Pop(1)
	})
	rebuilds := testing.AllocsPerRun(100, func() { _ = FromPlain(L, c) })
	require.LessOrEqual(t, rebuilds, ctor)

	// The rebuilt table is an ordinary one: next visits its keys in the
	// sender's order, and setting keys again or anew keeps one of each.
	L.SetGlobal("got", FromPlain(L, c))
	require.NoError(t, L.DoString(`
		got.y = 7; got.z = 8; got.x = nil; got.x = 9; got[4] = 10
		local seen = {}
		for k, v in pairs(got) do seen[#seen + 1] = tostring(k) .. "=" .. tostring(v) end
		order = table.concat(seen, " ")`))
	require.Equal(t, "1=4.5 2=6.5 3=w 4=10 x=9 y=7 name=scout z=8", L.GetGlobal("order").String())
}
