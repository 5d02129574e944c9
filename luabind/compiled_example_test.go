package luabind_test

import (
	"fmt"
	"strings"

	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// CompiledFuncs tells which functions of a chunk run compiled to Go as
// callbacks, and why the others run in the VM.
func ExampleCompiledFuncs() {
	proto, err := luabind.Compile(strings.NewReader(`
local score = function(ctx) return math.min(1, ctx.dist / 50) end
local update = function(ctx, dt)
  for i = 1, 3 do ctx.x = ctx.x + dt end
end
return score, update`), "guard.lua")
	if err != nil {
		panic(err)
	}
	for _, f := range luabind.CompiledFuncs(proto) {
		if f.Compiled {
			fmt.Println(f.Line, "compiled")
		} else {
			fmt.Println(f.Line, "VM:", f.Why)
		}
	}
	// Output:
	// 2 compiled
	// 3 VM: line 4: a loop
}

// SetCompiled(false) runs every callback in the VM, to compare the two.
func ExampleVM_SetCompiled() {
	vm := luabind.NewVM(luabind.Options{})
	defer vm.Close()
	v, err := vm.RunString("s.lua", "return function(ctx) return ctx.hunger * 2 end")
	if err != nil {
		panic(err)
	}
	fn := v.(*lua.LFunction)
	fmt.Println(luabind.ProtoCompiled(fn.Proto))
	ctx := vm.L.NewTable()
	ctx.RawSetString("hunger", lua.LNumber(0.25))
	for _, on := range []bool{true, false} {
		vm.SetCompiled(on)
		n, err := vm.CallNumber(fn, ctx)
		fmt.Println(n, err)
	}
	// Output:
	// true
	// 0.5 <nil>
	// 0.5 <nil>
}
