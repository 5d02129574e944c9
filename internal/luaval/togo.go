package luaval

import (
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// MaxGoDepth is how deep ToGo follows nested tables.
const MaxGoDepth = 64

// ToGo converts a Lua value to plain Go data, the one conversion the host
// (Agent.Get, Agent.Context) and the CLI's context output share:
//
//   - nil, booleans, numbers (float64, NaN and infinities as they are) and
//     strings as themselves;
//   - a table whose keys are exactly 1..n (n ≥ 1) as []any, any other table
//     as map[string]any, keys written as Lua prints them ("2.5", "true"; a
//     table or function key as "table: 0x…");
//   - a userdata as the Go value it holds (a bound game object);
//   - a function, coroutine or channel as its type name: "function",
//     "thread", "channel";
//   - a table met again inside itself as "<cycle>", and one nested deeper
//     than MaxGoDepth as "<too deep>". A table reached twice without a cycle
//     is converted once: both places hold the same Go map or slice, so a
//     table shared a million ways costs what it holds, not a million copies.
func ToGo(v lua.LValue) any {
	c := goConverter{open: map[*lua.LTable]bool{}, done: map[*lua.LTable]any{}}
	return c.toGo(v, 0)
}

type goConverter struct {
	open map[*lua.LTable]bool // tables being converted (a cycle meets one)
	done map[*lua.LTable]any  // tables converted
}

func (c *goConverter) toGo(v lua.LValue, depth int) any {
	switch v := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		return bool(v)
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		return string(v)
	case *lua.LUserData:
		return v.Value
	case *lua.LTable:
		if c.open[v] {
			return "<cycle>"
		}
		if done, ok := c.done[v]; ok {
			return done
		}
		if depth >= MaxGoDepth {
			return "<too deep>"
		}
		c.open[v] = true
		defer delete(c.open, v)
		var out any
		if n, ok := arrayLen(v); ok {
			list := make([]any, n)
			for i := range n {
				list[i] = c.toGo(v.RawGetInt(i+1), depth+1)
			}
			out = list
		} else {
			m := map[string]any{}
			v.ForEach(func(k, val lua.LValue) {
				m[goKey(k)] = c.toGo(val, depth+1)
			})
			out = m
		}
		c.done[v] = out
		return out
	}
	return v.Type().String()
}

// arrayLen reports whether t's keys are exactly 1..n, n ≥ 1.
func arrayLen(t *lua.LTable) (int, bool) {
	count, top, ok := 0, 0, true
	t.ForEach(func(k, _ lua.LValue) {
		count++
		n, isNum := k.(lua.LNumber)
		if !isNum || n < 1 || float64(n) != math.Trunc(float64(n)) || float64(n) > math.MaxInt32 {
			ok = false
			return
		}
		top = max(top, int(n))
	})
	return top, ok && count > 0 && count == top
}

func goKey(k lua.LValue) string {
	switch k := k.(type) {
	case lua.LString:
		return string(k)
	case lua.LNumber:
		return strconv.FormatFloat(float64(k), 'g', -1, 64)
	case lua.LBool:
		return strconv.FormatBool(bool(k))
	}
	return k.String()
}
