package luabind

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Importing luabind lowers gopher-lua's array limit once, and the fields
// the memory measure reads are where this gopher-lua keeps them.
func TestArrayLimitAndFields(t *testing.T) {
	require.Equal(t, MaxSequence+1, lua.MaxArrayIndex)
	tableFields.once.Do(findTableFields)
	require.True(t, tableFields.ok, "LTable.array not found: the memory measure falls back to MaxN")
	require.True(t, tableFields.regOK, "LState.reg not found: coroutines are measured at a fixed size")

	tb := &lua.LTable{}
	for i := 1; i <= 10; i++ {
		tb.RawSetInt(i, lua.LNumber(i))
	}
	tb.RawSetInt(40, lua.LTrue) // 29 nil slots
	n, ok := ArrayLen(tb)
	require.True(t, ok)
	require.Equal(t, 40, n)
	require.GreaterOrEqual(t, ArrayCap(tb), 40)
	tb.RawSetInt(30, lua.LNil)
	n, _ = ArrayLen(tb)
	require.Equal(t, 40, n, "setting nil keeps the slots")

	// A suspended coroutine's locals are on its value stack.
	vm := NewVM(Options{})
	defer vm.Close()
	v, err := vm.RunString("co.lua", `
local co = coroutine.create(function()
  local marker = { "the local" }
  coroutine.yield()
  return marker
end)
coroutine.resume(co)
return co`)
	require.NoError(t, err)
	th, ok := v.(*lua.LState)
	require.True(t, ok)
	values, bytes, ok := ThreadStack(th)
	require.True(t, ok)
	require.GreaterOrEqual(t, bytes, int64(4096*16), "the 4K-slot value stack at least")
	found := false
	for _, x := range values {
		if t, ok := x.(*lua.LTable); ok && t.RawGetInt(1) == lua.LString("the local") {
			found = true
		}
	}
	require.True(t, found, "the suspended coroutine's local is on its stack")
}

// A sequence stops at MaxSequence elements: keys past it are ordinary
// keys, table.insert past it is an error rather than an element t[k]
// cannot find, and no integer key fills more than MaxSequence slots.
func TestSequenceLimit(t *testing.T) {
	full := fmt.Sprintf(`local t = {} for i = 1, %d do t[i] = i end `, MaxSequence)
	for _, tc := range []struct{ name, src, want, err string }{
		{"a key past the limit is an ordinary key", full + `t[#t + 1] = "x" return #t .. " " .. t[#t + 1]`, fmt.Sprintf("%d x", MaxSequence), ""},
		{"ipairs stops at the limit", full + `t[#t + 1] = 1 local n = 0 for _ in ipairs(t) do n = n + 1 end return n`, fmt.Sprint(MaxSequence), ""},
		{"pairs sees every key", full + `t[#t + 1] = 1 local n = 0 for _ in pairs(t) do n = n + 1 end return n`, fmt.Sprint(MaxSequence + 1), ""},
		{"table.insert at the end", full + `table.insert(t, 1)`, "", fmt.Sprintf("table.insert: the table already holds %d elements in sequence", MaxSequence)},
		{"table.insert inside", full + `table.insert(t, 1, 0)`, "", fmt.Sprintf("table.insert: the table already holds %d elements in sequence", MaxSequence)},
		{"table.insert below the limit", fmt.Sprintf(`local t = {} for i = 1, %d do t[i] = i end table.insert(t, 1, 0) return #t .. " " .. t[1] .. " " .. t[%d]`, MaxSequence-1, MaxSequence), fmt.Sprintf("%d 0 %d", MaxSequence, MaxSequence-1), ""},
		{"table.insert nil", full + `table.insert(t, nil) return #t`, fmt.Sprint(MaxSequence), ""},
		{"table.insert far past the end", `local t = {} table.insert(t, 8388608, "x") return #t .. " " .. t[8388608]`, "0 x", ""},
		{"table.insert at a gap", `local t = {} table.insert(t, 5, "x") return #t .. " " .. t[5]`, "5 x", ""},
		{"table.insert at 0", `local t = { 1 } table.insert(t, 0, "x") return #t .. " " .. t[0]`, "1 x", ""},
		{"table.insert arguments", `table.insert({})`, "", "wrong number of arguments"},
		{"table.remove", full + fmt.Sprintf(`t[#t + 1] = 1 table.remove(t) return #t .. " " .. tostring(t[%d])`, MaxSequence+1), fmt.Sprintf("%d 1", MaxSequence-1), ""},
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
		{"the largest gap", fmt.Sprintf(`t[%d] = 1`, MaxSequence), 12<<20 + margin},
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
