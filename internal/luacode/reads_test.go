package luacode

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// compile runs src, which returns a function, and gives that function.
func compile(t *testing.T, src string) *lua.LFunction {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	require.NoError(t, L.DoString(src))
	fn, ok := L.Get(-1).(*lua.LFunction)
	require.True(t, ok, "the chunk returns a function")
	return fn
}

func keys(uses []FieldUse) []string {
	var out []string
	for _, u := range uses {
		out = append(out, u.Key)
	}
	return out
}

func TestReads(t *testing.T) {
	fn := compile(t, `local function helper(x) return x end
return function(ctx, payload)
  if ctx.hp < 10 and payload.kind == "fire" then
    ctx.mood = "angry"
  end
  local t = {}
  t.seen = 3.5
  return ctx.name, helper(payload.from)
end`)
	require.Equal(t, []string{"hp", "name"}, keys(CtxReads(fn)))
	require.Equal(t, []string{"kind", "from"}, keys(ParamReads(fn, 1)))
	require.Nil(t, ParamReads(fn, 2), "no third parameter")
	require.Equal(t, "payload", ParamName(fn, 1))
	require.Equal(t, "", ParamName(fn, 5))
	require.Len(t, Helpers(fn), 1)

	written := map[string]bool{}
	WrittenKeys(fn, written)
	require.Equal(t, map[string]bool{"mood": true, "seen": true}, written)

	nums, strs := map[float64]bool{}, map[string]bool{}
	Constants(fn, nums, strs)
	require.True(t, nums[10] && nums[3.5], "%v", nums)
	require.True(t, strs["fire"] && strs["angry"], "%v", strs)

	uses := map[string]*Use{}
	FieldUses(fn, 0, uses)
	require.NotNil(t, uses["hp"])
	require.True(t, uses["hp"].Number, "compared with <")
	require.NotNil(t, uses["mood"])
	require.True(t, uses["mood"].Written)
	payload := map[string]*Use{}
	FieldUses(fn, 1, payload)
	require.NotNil(t, payload["kind"])
	require.Contains(t, payload["kind"].Values, lua.LValue(lua.LString("fire")))
}

func TestAppendValue(t *testing.T) {
	var vs []lua.LValue
	vs = AppendValue(vs, lua.LNumber(1))
	vs = AppendValue(vs, lua.LNumber(1))
	require.Len(t, vs, 1, "kept once")
	for i := range 100 {
		vs = AppendValue(vs, lua.LNumber(i+2))
	}
	require.Len(t, vs, 64, "at most 64")
}
