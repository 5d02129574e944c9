package lcomp_test

import (
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/internal/lcomp"
	lua "github.com/yuin/gopher-lua"
)

// BenchmarkBranch runs a tree action (the scouts' walk) as a branch tree
// and through the interpreter, and calls it through the VM.
func BenchmarkBranch(b *testing.B) {
	const src = `return function(ctx, dt)
  ctx.x = ctx.x + 3 * dt
  if ctx.x >= ctx.goal then ctx.x, ctx.tired = 0, true end
  return "running"
end`
	L := lua.NewState()
	defer L.Close()
	proto, err := luabind.Compile(strings.NewReader(src), "walk.lua")
	if err != nil {
		b.Fatal(err)
	}
	L.Push(L.NewFunctionFromProto(proto))
	L.Call(0, 1)
	fn := L.Get(-1).(*lua.LFunction)
	L.Pop(1)
	prog, err := lcomp.Compile(fn.Proto)
	if err != nil || !prog.HasBranch() {
		b.Fatal("no branch tree", err)
	}
	ctx := L.CreateTable(0, 4)
	ctx.RawSetString("x", lua.LNumber(0))
	ctx.RawSetString("goal", lua.LNumber(20))
	ctx.RawSetString("tired", lua.LFalse)
	dt := lua.LNumber(1.0 / 60)
	m := &lcomp.Machine{}
	for _, c := range []struct {
		name string
		p    *lcomp.Program
	}{{"tree", prog}, {"interp", prog.WithoutBranch()}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				if _, ok := c.p.Run(m, fn, 2, ctx, dt); !ok {
					b.Fatal("fell back")
				}
			}
		})
	}
	b.Run("vm", func(b *testing.B) {
		for range b.N {
			L.Push(fn)
			L.Push(ctx)
			L.Push(dt)
			L.Call(2, 1)
			L.Pop(1)
		}
	})
}
