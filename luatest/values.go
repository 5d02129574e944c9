package luatest

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/luaai/luaai/internal/luatext"
	lua "github.com/yuin/gopher-lua"
)

const (
	bustedMaxDepth   = 4
	bustedMaxEntries = 50
)

// formatValue shows a value Lua-style: strings quoted, numbers with %.14g,
// tables as {1, 2, a = 1, b = {…}} with the sequence first and the other
// keys sorted.
func formatValue(v lua.LValue) string {
	var b strings.Builder
	writeValue(&b, v, 0, map[*lua.LTable]bool{})
	return b.String()
}

func writeValue(b *strings.Builder, v lua.LValue, depth int, open map[*lua.LTable]bool) {
	switch x := v.(type) {
	case *lua.LNilType:
		b.WriteString("nil")
	case lua.LBool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case lua.LNumber:
		b.WriteString(formatNumber(float64(x)))
	case lua.LString:
		b.WriteString(luatext.Quote(string(x)))
	case *lua.LTable:
		if open[x] || depth >= bustedMaxDepth {
			b.WriteString("{…}")
			return
		}
		open[x] = true
		defer delete(open, x)
		keys := sortedKeys(x)
		if len(keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		seq := 0
		for seq < len(keys) {
			if n, ok := keys[seq].(lua.LNumber); !ok || float64(n) != float64(seq+1) {
				break
			}
			seq++
		}
		// sortedKeys sorts numbers first, so 1..seq are the first keys.
		for i, k := range keys {
			if i == bustedMaxEntries {
				b.WriteString(", …")
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			if i >= seq {
				if s, ok := k.(lua.LString); ok && luatext.IsName(string(s)) {
					b.WriteString(string(s))
				} else {
					b.WriteByte('[')
					writeValue(b, k, depth+1, open)
					b.WriteByte(']')
				}
				b.WriteString(" = ")
			}
			writeValue(b, x.RawGet(k), depth+1, open)
		}
		b.WriteByte('}')
	default:
		if m := matcherOf(v); m != nil {
			b.WriteString(m.desc)
			return
		}
		b.WriteString(v.String())
	}
}

func formatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// sortedKeys is the keys of t in a stable order: numbers ascending, then
// strings, then booleans, then anything else by its string form.
func sortedKeys(t *lua.LTable) []lua.LValue {
	var keys []lua.LValue
	t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	rank := func(v lua.LValue) int {
		switch v.(type) {
		case lua.LNumber:
			return 0
		case lua.LString:
			return 1
		case lua.LBool:
			return 2
		}
		return 3
	}
	sort.SliceStable(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		switch a := keys[i].(type) {
		case lua.LNumber:
			return a < keys[j].(lua.LNumber)
		case lua.LString:
			return a < keys[j].(lua.LString)
		case lua.LBool:
			return !bool(a) && bool(keys[j].(lua.LBool))
		}
		return keys[i].String() < keys[j].String()
	})
	return keys
}
