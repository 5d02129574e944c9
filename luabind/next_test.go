package luabind

import (
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// The sandbox's next visits what gopher-lua's does, in the same order:
// array part, hash part, cleared keys stepped over, keys cleared during a
// traversal.
func TestNextVisitsAsGopherLua(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"empty", `return {}`},
		{"array", `return {1, 2, 3}`},
		{"array with holes", `local t = {1, 2, 3, 4} t[2] = nil t[4] = nil return t`},
		{"hash", `return {a = 1, b = 2, [1.5] = 3, [true] = 4}`},
		{"both", `local t = {1, 2, x = 3, y = 4} t[200000] = 5 return t`},
		{"cleared keys", `local t = {} for i = 1, 10000 do t["k" .. i] = i end for i = 1, 10000 do if i % 7 ~= 0 then t["k" .. i] = nil end end return t`},
		{"only cleared keys", `local t = {} for i = 1, 10000 do t[i + 0.5] = i end for i = 1, 10000 do t[i + 0.5] = nil end return t`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := NewVM(Options{})
			defer vm.Close()
			v, err := vm.RunString("next.lua", tc.src)
			require.NoError(t, err)
			tb := v.(*lua.LTable)
			type kv struct{ k, v lua.LValue }
			var want, got []kv
			for k, v := tb.Next(lua.LNil); k != lua.LNil; k, v = tb.Next(k) {
				want = append(want, kv{k, v})
			}
			for k, v := vm.tableNext(vm.L, tb, lua.LNil); k != lua.LNil; k, v = vm.tableNext(vm.L, tb, k) {
				got = append(got, kv{k, v})
			}
			require.Equal(t, want, got)
			// Clearing each key as it is visited, as Lua allows.
			n := 0
			for k, _ := vm.tableNext(vm.L, tb, lua.LNil); k != lua.LNil; k, _ = vm.tableNext(vm.L, tb, k) {
				tb.RawSet(k, lua.LNil)
				n++
			}
			require.Equal(t, len(want), n)
			k, _ := tb.Next(lua.LNil)
			require.Equal(t, lua.LNil, k)
		})
	}
}
