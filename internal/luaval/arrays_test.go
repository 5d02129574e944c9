package luaval

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Importing luaval lowers gopher-lua's array limit once, and the fields
// the memory measure reads are where this gopher-lua keeps them.
func TestArrayLimitAndFields(t *testing.T) {
	require.Equal(t, MaxSequence+1, lua.MaxArrayIndex)
	require.True(t, tableFields.stringsOK, "LTable.strdict, keys and k2i not found: string tables are filled key by key")
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
	L := lua.NewState()
	defer L.Close()
	err := L.DoString(`
local co = coroutine.create(function()
  local marker = { "the local" }
  coroutine.yield()
  return marker
end)
coroutine.resume(co)
return co`)
	require.NoError(t, err)
	th, ok := L.Get(-1).(*lua.LState)
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
