package luabind

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

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

// TestJSONSafeBounded: a table shared many ways prints at most
// MaxJSONValues values, however many paths reach it.
func TestJSONSafeBounded(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	require.NoError(t, L.DoString(`t = {x = 1}; for i = 1, 40 do t = {a = t, b = t} end`))
	out := JSONSafe(ToGo(L.GetGlobal("t")))
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
	assert.LessOrEqual(t, n, 2*MaxJSONValues+1, "each value counted, or a placeholder in a counted table")
	assert.Greater(t, n, MaxJSONValues/2)
	assert.Equal(t, map[string]any{"n": 1.0, "s": "nan"}, JSONSafe(map[string]any{"n": 1.0, "s": math.NaN()}))
}
