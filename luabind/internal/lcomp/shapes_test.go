package lcomp_test

import (
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/internal/lcomp"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// The callbacks games write every tick compile; what the compiler cannot
// run exactly is refused with its reason and line.
func TestCompileShapes(t *testing.T) {
	for _, tc := range []struct {
		src string
		why string // "": compiles
	}{
		{src: "function(ctx) return ctx.hp < 30 and ctx.enemy ~= nil end"},
		{src: "function(ctx) return 1 - ctx.hunger / 100 end"},
		{src: "function(ctx) return math.min(1, ctx.dist / 50) end"},
		{src: "function(ctx, dt) ctx.x = ctx.x + ctx.vx * dt end"},
		{src: "function(ctx, dt) local b = ctx.body\n b.x = b.x + ctx.dir * ctx.speed * dt\n if b.x > 50 or b.x < -50 then ctx.dir = -ctx.dir end end"},
		{src: "function(ctx, p) if p.kind == \"noise\" then ctx.alert = true elseif not ctx.alert then return false end return #ctx.name > 0 end"},
		{src: "function(ctx) return math.floor(math.sqrt(math.abs(ctx.a.b.c)) % 3) ^ 2 end"},
		{src: "function(ctx) return K + ctx.n end"}, // an upvalue
		{src: "function(ctx) for i = 1, 3 do ctx.n = i end end", why: "line 1: a loop"},
		{src: "function(ctx) return ctx.name .. \"!\" end", why: "line 1: string concatenation (..)"},
		{src: "function(ctx) return ai.state() == \"idle\" end", why: "line 1: a call of a field state"},
		{src: "function(ctx) return math.random() end", why: "line 1: a call of math.random (only math.min, max, abs, floor and sqrt run compiled)"},
		{src: "function(ctx) return ctx:f() end", why: "line 1: a method call"},
		{src: "function(ctx) return {} end", why: "line 1: a table constructor"},
		{src: "function(ctx) return function() end end", why: "line 1: a nested function"},
		{src: "function(ctx) G = 1 end", why: "line 1: a global assignment"},
		{src: "function(ctx) K = 1 end", why: "line 1: an assignment to an upvalue"},
		{src: "function(...) return ... end", why: "line 1: a function with varargs (...)"},
		{src: "function(ctx) return ctx[1] end", why: "line 1: a table index with a computed or non-string key"},
		{src: "function(ctx) return tostring(ctx.n) end", why: "line 1: a call of tostring"},
	} {
		proto, err := luabind.Compile(strings.NewReader("local ai, K = require, 3\nreturn "+tc.src), "s.lua")
		require.NoError(t, err, tc.src)
		_, err = lcomp.Compile(proto.FunctionPrototypes[0])
		if tc.why == "" {
			require.NoError(t, err, tc.src)
			continue
		}
		require.Error(t, err, tc.src)
		// The chunk's first line is the local: the function is on line 2.
		require.Equal(t, strings.Replace(tc.why, "line 1", "line 2", 1), err.Error(), tc.src)
	}
}

// A field write the run cannot finish is undone before the VM takes over.
func TestFallbackUndoesWrites(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	proto, err := luabind.Compile(strings.NewReader("return function(ctx) ctx.a = 1; ctx.b = 2; return ctx.c + 1 end"), "u.lua")
	require.NoError(t, err)
	require.NoError(t, L.DoString("x = 1")) // a state to run in
	fn := L.NewFunctionFromProto(proto.FunctionPrototypes[0])
	prog, err := lcomp.Compile(fn.Proto)
	require.NoError(t, err)
	ctx := L.NewTable()
	ctx.RawSetString("a", lua.LString("old"))
	ctx.RawSetString("c", lua.LString("10")) // Lua would coerce it: the VM's
	_, ok := prog.Run(&lcomp.Machine{}, fn, 1, ctx, lua.LNil)
	require.False(t, ok)
	require.Equal(t, lua.LString("old"), ctx.RawGetString("a"))
	require.Equal(t, lua.LNil, ctx.RawGetString("b"))
	ctx.RawSetString("c", lua.LNumber(10))
	r, ok := prog.Run(&lcomp.Machine{}, fn, 1, ctx, lua.LNil)
	require.True(t, ok)
	require.Equal(t, lua.LNumber(11), r.Value())
	require.Equal(t, lua.LNumber(2), ctx.RawGetString("b"))
	require.Equal(t, 7, r.Steps) // (LOADK key, SETTABLEKS) ×2, GETTABLEKS, ADD, RETURN
}
