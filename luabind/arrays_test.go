package luabind

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/luaai/luaai/internal/luaval"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// A sequence stops at MaxSequence elements: keys past it are ordinary
// keys, table.insert past it is an error rather than an element t[k]
// cannot find, and no integer key fills more than MaxSequence slots.
func TestSequenceLimit(t *testing.T) {
	full := fmt.Sprintf(`local t = {} for i = 1, %d do t[i] = i end `, luaval.MaxSequence)
	for _, tc := range []struct{ name, src, want, err string }{
		{"a key past the limit is an ordinary key", full + `t[#t + 1] = "x" return #t .. " " .. t[#t + 1]`, fmt.Sprintf("%d x", luaval.MaxSequence), ""},
		{"ipairs stops at the limit", full + `t[#t + 1] = 1 local n = 0 for _ in ipairs(t) do n = n + 1 end return n`, fmt.Sprint(luaval.MaxSequence), ""},
		{"pairs sees every key", full + `t[#t + 1] = 1 local n = 0 for _ in pairs(t) do n = n + 1 end return n`, fmt.Sprint(luaval.MaxSequence + 1), ""},
		{"table.insert at the end", full + `table.insert(t, 1)`, "", fmt.Sprintf("table.insert: the table already holds %d elements in sequence", luaval.MaxSequence)},
		{"table.insert inside", full + `table.insert(t, 1, 0)`, "", fmt.Sprintf("table.insert: the table already holds %d elements in sequence", luaval.MaxSequence)},
		{"table.insert below the limit", fmt.Sprintf(`local t = {} for i = 1, %d do t[i] = i end table.insert(t, 1, 0) return #t .. " " .. t[1] .. " " .. t[%d]`, luaval.MaxSequence-1, luaval.MaxSequence), fmt.Sprintf("%d 0 %d", luaval.MaxSequence, luaval.MaxSequence-1), ""},
		{"table.insert nil", full + `table.insert(t, nil) return #t`, fmt.Sprint(luaval.MaxSequence), ""},
		{"table.insert far past the end", `local t = {} table.insert(t, 8388608, "x") return #t .. " " .. t[8388608]`, "0 x", ""},
		{"table.insert at a gap", `local t = {} table.insert(t, 5, "x") return #t .. " " .. t[5]`, "5 x", ""},
		{"table.insert at 0", `local t = { 1 } table.insert(t, 0, "x") return #t .. " " .. t[0]`, "1 x", ""},
		{"table.insert arguments", `table.insert({})`, "", "wrong number of arguments"},
		{"table.remove", full + fmt.Sprintf(`t[#t + 1] = 1 table.remove(t) return #t .. " " .. tostring(t[%d])`, luaval.MaxSequence+1), fmt.Sprintf("%d 1", luaval.MaxSequence-1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := sandboxRun(t, Options{}, tc.src)
			if tc.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, lua.LVAsString(v))
		})
	}
}

// An integer key far past a table's array part costs what one hash entry
// costs; the largest gap an instruction can fill is MaxSequence slots,
// 2 MiB kept. Measured as the bytes allocated by the Go heap (all
// goroutines: the bound is loose enough for what the test runner does
// beside).
func TestGapFillsAreBounded(t *testing.T) {
	const margin = 1 << 20
	for _, tc := range []struct {
		name, stmt string
		bound      uint64
	}{
		{"t[8388608]", `t[8388608] = 1`, margin},
		{"t[67108863]", `t[67108863] = 1`, margin},
		{"rawset", `rawset(t, 67108863, 1)`, margin},
		{"table.insert", `table.insert(t, 8388608, 1)`, margin},
		{"the largest gap", fmt.Sprintf(`t[%d] = 1`, luaval.MaxSequence), 12<<20 + margin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := NewVM(Options{})
			defer vm.Close()
			v, err := vm.RunString("gap.lua", `return function() local t = {} `+tc.stmt+` return t end`)
			require.NoError(t, err)
			fn := v.(*lua.LFunction)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = vm.Call(fn)
			runtime.ReadMemStats(&after)
			require.NoError(t, err)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: %d bytes allocated", tc.name, alloc)
			require.Less(t, alloc, tc.bound)
		})
	}
}
