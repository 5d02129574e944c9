package defs

import (
	"fmt"
	"math"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Every recognised condition gives what calling the Lua function gives,
// for values of every type; where Lua would raise an error (ordering a
// number with nil) or could consult a metatable, the fast path declines.
func TestFastCondMatchesLua(t *testing.T) {
	vm := NewVM(luabind.Options{})
	defer vm.Close()
	var srcs []string
	for _, k := range []string{"0", "1", "-1.5", "1000", `"found"`, `""`, "true", "false", "1/0"} {
		for _, op := range []string{"==", "~=", "<", "<=", ">", ">="} {
			srcs = append(srcs, fmt.Sprintf("function(ctx) return ctx.f %s %s end", op, k))
			srcs = append(srcs, fmt.Sprintf("function(ctx, p) return %s %s ctx.f end", k, op))
		}
	}
	srcs = append(srcs, "function(ctx) return ctx.f end", "function(ctx) return not ctx.f end",
		"function(ctx, payload) return ctx.f end",
		// Not recognised: other shapes must keep calling Lua.
		"function(ctx) return ctx.f == ctx.g end", "function(ctx) return ctx.f.g == 1 end",
		"function(ctx) local x = 1 return ctx.f == x end", "function(ctx) return ctx.f == nil end",
		"function(...) return (...).f end", "function(ctx) return ctx.f and true end",
		"function(ctx) ctx.n = 1 return ctx.f end", "function(ctx) return ctx.f, 1 end")
	values := []lua.LValue{lua.LNil, lua.LTrue, lua.LFalse, lua.LNumber(0), lua.LNumber(1), lua.LNumber(-1.5),
		lua.LNumber(1000), lua.LNumber(math.NaN()), lua.LNumber(math.Inf(1)), lua.LNumber(math.Inf(-1)),
		lua.LString("found"), lua.LString("x"), lua.LString(""), vm.L.NewTable(), vm.L.NewFunction(func(*lua.LState) int { return 0 })}
	recognised := 0
	for _, src := range srcs {
		v, err := vm.RunString("cond.lua", "return "+src)
		require.NoError(t, err, src)
		fn := v.(*lua.LFunction)
		c, ok := toCond(fn)
		require.True(t, ok)
		lc := c.(LuaCond)
		if lc.fast != nil {
			recognised++
		}
		for _, val := range values {
			for _, withMeta := range []bool{false, true} {
				ctx := vm.L.NewTable()
				ctx.RawSetString("f", val)
				ctx.RawSetString("g", lua.LNumber(1))
				if withMeta {
					mt := vm.L.NewTable()
					mt.RawSetString("__index", vm.L.NewFunction(func(L *lua.LState) int { L.Push(lua.LString("found")); return 1 }))
					vm.L.SetMetatable(ctx, mt)
				}
				want, werr := vm.CallBool(fn, ctx, lua.LNil)
				if lc.fast == nil {
					continue
				}
				got, ok := lc.fast.test(ctx)
				if withMeta {
					require.False(t, ok, "%s: a context with a metatable is left to Lua", src)
					continue
				}
				if werr != nil {
					require.False(t, ok, "%s with f = %v: Lua raises %v; the fast path must not answer", src, val, werr)
					continue
				}
				if ok {
					require.Equal(t, want, got, "%s with f = %v", src, val)
				}
				// Through Test, the answer is Lua's either way.
				r, err := lc.Test(vm, ctx, lua.LNil)
				require.NoError(t, err)
				require.Equal(t, want, r, "%s with f = %v", src, val)
			}
		}
	}
	// Five number constants (1/0 is folded) with the six comparisons on
	// either side, two string constants with == and ~= on either side, and
	// the three truthiness forms. Booleans are no constants in Lua's
	// bytecode (LOADBOOL), strings are not ordered in Go (Lua uses the
	// locale), and the other shapes are not field-versus-constant.
	require.Equal(t, 5*6*2+2*2*2+3, recognised, "every field-versus-constant shape is recognised, no other")
}
