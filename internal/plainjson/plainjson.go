// Package plainjson is the one JSON writer of luaai's plain values: what
// the inspector shows, what luaai run --json prints and what --record
// writes. It makes plain Go data (what a context or payload converts to)
// printable by encoding/json, bounded, and writes numbers JSON cannot hold
// as strings. It imports nothing of the module.
package plainjson

import (
	"fmt"
	"math"
	"strconv"
)

// MaxValues bounds the values Safe writes: JSON has no sharing,
// so a table held a million ways (which ToGo converts once) would print a
// million copies, and a few levels of t = {a = t, b = t} billions.
const MaxValues = 1 << 18

// TooLarge is what Safe writes in place of the values past
// MaxValues.
const TooLarge = "<too large to show>"

// Safe makes plain Go data (what luaval.ToGo returns) printable by
// encoding/json: numbers JSON cannot hold (NaN, ±Inf) become strings, a
// bound Go value prints as its %v string, and past MaxValues values
// every further table or value is TooLarge.
func Safe(v any) any {
	left := MaxValues
	return safe(v, &left)
}

func safe(v any, left *int) any {
	if *left <= 0 {
		return TooLarge
	}
	*left--
	switch v := v.(type) {
	case nil, bool, string:
		return v
	case float64:
		return Number(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = safe(x, left)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = safe(x, left)
		}
		return out
	}
	return fmt.Sprintf("%v", v)
}

// Number is f rounded to 14 significant digits, as Lua's %.14g prints
// numbers (0.91, not 0.9099999999999999), or "nan", "inf" or "-inf" for
// what JSON cannot hold.
func Number(f float64) any {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return f // whole numbers print exactly already
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 14, 64), 64)
	if err != nil {
		return f
	}
	return r
}
