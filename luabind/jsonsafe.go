package luabind

import (
	"fmt"
	"math"
)

// MaxJSONValues bounds the values JSONSafe writes: JSON has no sharing,
// so a table held a million ways (which ToGo converts once) would print a
// million copies, and a few levels of t = {a = t, b = t} billions.
const MaxJSONValues = 1 << 18

// JSONTooLarge is what JSONSafe writes in place of the values past
// MaxJSONValues.
const JSONTooLarge = "<too large to show>"

// JSONSafe makes plain Go data (what ToGo returns) printable by
// encoding/json: numbers JSON cannot hold (NaN, ±Inf) become strings, a
// bound Go value prints as its %v string, and past MaxJSONValues values
// every further table or value is JSONTooLarge.
func JSONSafe(v any) any {
	left := MaxJSONValues
	return jsonSafe(v, &left)
}

func jsonSafe(v any, left *int) any {
	if *left <= 0 {
		return JSONTooLarge
	}
	*left--
	switch v := v.(type) {
	case nil, bool, string:
		return v
	case float64:
		return JSONNumber(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonSafe(x, left)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonSafe(x, left)
		}
		return out
	}
	return fmt.Sprintf("%v", v)
}

// JSONNumber is f, or "nan", "inf" or "-inf" for what JSON cannot hold.
func JSONNumber(f float64) any {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return f
}
