package plainjson

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSafeBounded: a table shared many ways prints at most
// MaxValues values, however many paths reach it.
func TestSafeBounded(t *testing.T) {
	var shared any = map[string]any{"x": 1.0}
	for range 40 {
		shared = map[string]any{"a": shared, "b": shared}
	}
	out := Safe(shared)
	n := 0
	var count func(v any)
	count = func(v any) {
		n++
		if m, ok := v.(map[string]any); ok {
			for _, x := range m {
				count(x)
			}
		}
	}
	count(out)
	assert.LessOrEqual(t, n, 2*MaxValues+1, "each value counted, or a placeholder in a counted table")
	assert.Greater(t, n, MaxValues/2)
	assert.Equal(t, map[string]any{"n": 1.0, "s": "nan"}, Safe(map[string]any{"n": 1.0, "s": math.NaN()}))
}

// Numbers print as Lua's %.14g does: the binary noise of a sum is gone,
// whole numbers and what JSON cannot hold are as before.
func TestNumberRoundsLikeLua(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want any
	}{
		{0.1 + 0.2, 0.3},
		{0.9099999999999999, 0.91},
		{3, 3.0},
		{1e300, 1e300},
		{-2.5, -2.5},
		{1.0 / 3, 0.33333333333333},
		{math.NaN(), "nan"},
		{math.Inf(-1), "-inf"},
	} {
		assert.Equal(t, tc.want, Number(tc.in), "%v", tc.in)
	}
	assert.Equal(t, map[string]any{"x": 0.3, "l": []any{0.91}}, Safe(map[string]any{"x": 0.1 + 0.2, "l": []any{0.9099999999999999}}))
}
