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
