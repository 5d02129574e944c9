package luabind

import (
	"fmt"
	"math"
)

// JSONSafe makes plain Go data (what ToGo returns) printable by
// encoding/json: numbers JSON cannot hold (NaN, ±Inf) become strings, and a
// bound Go value prints as its %v string.
func JSONSafe(v any) any {
	switch v := v.(type) {
	case nil, bool, string:
		return v
	case float64:
		return JSONNumber(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = JSONSafe(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = JSONSafe(x)
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
