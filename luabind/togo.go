package luabind

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
//     is converted at each place.
func ToGo(v lua.LValue) any {
	return toGo(v, map[*lua.LTable]bool{}, 0)
}

func toGo(v lua.LValue, open map[*lua.LTable]bool, depth int) any {
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
		if open[v] {
			return "<cycle>"
		}
		if depth >= MaxGoDepth {
			return "<too deep>"
		}
		open[v] = true
		defer delete(open, v)
		if n, ok := arrayLen(v); ok {
			out := make([]any, n)
			for i := range n {
				out[i] = toGo(v.RawGetInt(i+1), open, depth+1)
			}
			return out
		}
		out := map[string]any{}
		v.ForEach(func(k, val lua.LValue) {
			out[goKey(k)] = toGo(val, open, depth+1)
		})
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
