package luabind

import (
	"testing"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

func compiledFn(t *testing.T, vm *VM, src string) *lua.LFunction {
	t.Helper()
	v, err := vm.RunString("c.lua", "return "+src)
	require.NoError(t, err)
	fn := v.(*lua.LFunction)
	ok, why := compiled(fn)
	require.True(t, ok, "%s compiles: %s", src, why)
	return fn
}

// The Call helpers give what the VM gives, compiled or not: results,
// errors (message and line), writes.
func TestCompiledCallsMatchVM(t *testing.T) {
	for _, tc := range []struct {
		src  string
		ctx  map[string]lua.LValue
		call func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error)
	}{
		{src: "function(ctx) return ctx.hp < 30 and ctx.enemy ~= nil end", ctx: map[string]lua.LValue{"hp": lua.LNumber(10), "enemy": lua.LTrue},
			call: func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error) { return vm.CallBool(fn, ctx, lua.LNil) }},
		{src: "function(ctx) return ctx.hp < 30 end", ctx: map[string]lua.LValue{"hp": lua.LString("x")},
			call: func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error) { return vm.CallBool(fn, ctx, lua.LNil) }},
		{src: "function(ctx) return 1 - ctx.hunger / 100 end", ctx: map[string]lua.LValue{"hunger": lua.LNumber(40)},
			call: func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error) { return vm.CallNumber(fn, ctx) }},
		{src: "function(ctx) return ctx.hunger / 0 * 0 end", ctx: map[string]lua.LValue{"hunger": lua.LNumber(40)},
			call: func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error) { return vm.CallNumber(fn, ctx) }},
		{src: "function(ctx) return ctx.name end", ctx: map[string]lua.LValue{"name": lua.LString("x")},
			call: func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error) { return vm.CallNumber(fn, ctx) }},
		{src: "function(ctx) return math.min(1, ctx.dist / 50) end", ctx: map[string]lua.LValue{"dist": lua.LString("25")},
			call: func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error) { return vm.CallNumber(fn, ctx) }},
		{src: "function(ctx, dt) ctx.x = ctx.x + ctx.vx * dt end", ctx: map[string]lua.LValue{"x": lua.LNumber(1), "vx": lua.LNumber(2)},
			call: func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error) {
				return nil, vm.CallUpdate(fn, ctx, lua.LNumber(0.5))
			}},
		{src: "function(ctx, dt) ctx.y = 1\n ctx.x = ctx.x + ctx.vx * dt end", ctx: map[string]lua.LValue{"x": lua.LNumber(1)},
			call: func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error) {
				return nil, vm.CallUpdate(fn, ctx, lua.LNumber(0.5))
			}},
		{src: "function(ctx) if ctx.hp > 0 then return \"running\" end return \"failure\" end", ctx: map[string]lua.LValue{"hp": lua.LNumber(1)},
			call: func(vm *VM, fn *lua.LFunction, ctx *lua.LTable) (any, error) {
				return vm.CallStatus(fn, ctx, lua.LNumber(0.1))
			}},
	} {
		var outs [2]string
		for i, on := range []bool{true, false} {
			vm := NewVM(Options{})
			vm.SetCompiled(on)
			fn := compiledFn(t, vm, tc.src)
			if !on {
				require.Nil(t, vm.program(fn))
			}
			ctx := vm.L.NewTable()
			for k, v := range tc.ctx {
				ctx.RawSetString(k, v)
			}
			got, err := tc.call(vm, fn, ctx)
			msg := ""
			if err != nil {
				msg = scripterr.ErrorMessage(err)
			}
			outs[i] = fmtValue(got) + " | " + msg + " | " + fmtValue(ctx.RawGetString("x")) + fmtValue(ctx.RawGetString("y"))
			vm.Close()
		}
		require.Equal(t, outs[1], outs[0], tc.src)
	}
}

func fmtValue(v any) string {
	if lv, ok := v.(lua.LValue); ok {
		return lv.Type().String() + ":" + lv.String()
	}
	return lua.LString("").String() + func() string {
		switch v := v.(type) {
		case nil:
			return "nil"
		case bool:
			if v {
				return "true"
			}
			return "false"
		case float64:
			return lua.LNumber(v).String()
		}
		return "?"
	}()
}

// Under an instruction budget a compiled call counts what the VM counts:
// a budget too small for the function stops it as the VM does.
func TestCompiledStepBudget(t *testing.T) {
	src := "function(ctx, dt) ctx.x = ctx.x + 1\n ctx.y = ctx.x * 2\n ctx.z = ctx.y - 1 end"
	for _, steps := range []int64{3, 6, 100} {
		var msgs [2]string
		for i, on := range []bool{true, false} {
			vm := NewVM(Options{BudgetSteps: steps})
			vm.SetCompiled(on)
			v, err := vm.RunString("c.lua", "return "+src)
			require.NoError(t, err)
			fn := v.(*lua.LFunction)
			ctx := vm.L.NewTable()
			ctx.RawSetString("x", lua.LNumber(1))
			err = vm.CallUpdate(fn, ctx, lua.LNumber(0.1))
			if err != nil {
				msgs[i] = scripterr.ErrorMessage(err)
			}
			msgs[i] += " z=" + ctx.RawGetString("z").String()
			vm.Close()
		}
		require.Equal(t, msgs[1], msgs[0], "budget of %d steps", steps)
	}
}

// A compiled update allocates nothing of its own per call: the numbers it
// stores are boxed a block at a time.
func TestCompiledUpdateAllocs(t *testing.T) {
	vm := NewVM(Options{})
	defer vm.Close()
	fn := compiledFn(t, vm, "function(ctx, dt) ctx.x = ctx.x + ctx.vx * dt\n ctx.hunger = math.max(0, ctx.hunger - 0.5 * dt) end")
	score := compiledFn(t, vm, "function(ctx) return ctx.fatigue * ctx.fatigue end")
	ctx := vm.L.NewTable()
	ctx.RawSetString("x", lua.LNumber(0))
	ctx.RawSetString("vx", lua.LNumber(1.5))
	ctx.RawSetString("hunger", lua.LNumber(1e9))
	ctx.RawSetString("fatigue", lua.LNumber(0.3))
	dt := lua.LValue(lua.LNumber(0.016))
	allocs := testing.AllocsPerRun(1000, func() {
		require.NoError(t, vm.CallUpdate(fn, ctx, dt))
		_, err := vm.CallNumber(score, ctx)
		require.NoError(t, err)
	})
	require.Zero(t, allocs)
	require.InDelta(t, 1001*1.5*0.016, float64(ctx.RawGetString("x").(lua.LNumber)), 1e-9)
}

// BenchmarkCompiledScorer calls a Lua scorer compiled and through the VM.
func BenchmarkCompiledScorer(b *testing.B) {
	for _, on := range []bool{true, false} {
		name := "compiled"
		if !on {
			name = "vm"
		}
		b.Run(name, func(b *testing.B) {
			vm := NewVM(Options{})
			defer vm.Close()
			vm.SetCompiled(on)
			v, err := vm.RunString("s.lua", "return function(ctx) return ctx.hunger * (1 - ctx.d3) end")
			if err != nil {
				b.Fatal(err)
			}
			fn := v.(*lua.LFunction)
			ctx := vm.L.NewTable()
			ctx.RawSetString("hunger", lua.LNumber(0.5))
			for _, k := range []string{"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7"} {
				ctx.RawSetString(k, lua.LNumber(0.3))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := vm.CallNumber(fn, ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// constSlots gives every field and constant a slot of v.
type constSlots struct {
	n      int
	v      [64]float64
	fields map[string]int
}

func (s *constSlots) Field(path []string) (int, bool) {
	if s.fields == nil {
		s.fields = map[string]int{}
	}
	s.fields[path[0]] = s.n
	s.n++
	return s.n - 1, true
}
func (s *constSlots) Const(k float64) (int, bool) {
	s.v[s.n] = k
	s.n++
	return s.n - 1, true
}

// A scorer's value taken over shared reads counts, under the instruction
// budget, what CallNumber counts; where the budget is too small for it,
// or compiling is off, it is not taken.
func TestTakeFieldNumberCounts(t *testing.T) {
	src := "function(ctx) return ctx.hunger * (1 - ctx.d) end"
	var work [3]uint64
	for i := range work {
		vm := NewVM(Options{BudgetSteps: 100})
		fn := compiledFn(t, vm, src)
		ctx := vm.L.NewTable()
		ctx.RawSetString("hunger", lua.LNumber(0.5))
		ctx.RawSetString("d", lua.LNumber(0.25))
		before := vm.Work()
		if i == 0 {
			n, err := vm.CallNumber(fn, ctx)
			require.NoError(t, err)
			require.Equal(t, 0.375, n)
		} else {
			s := &constSlots{}
			f := vm.CompileFieldNumber(fn, s)
			require.NotNil(t, f)
			s.v[s.fields["hunger"]], s.v[s.fields["d"]] = 0.5, 0.25
			require.Equal(t, 0.375, f.Eval(&s.v))
			if i == 1 {
				require.True(t, vm.TakeFieldNumber(f))
			} else {
				require.True(t, vm.TakeFieldNumbers(2*f.MaxSteps))
				vm.ChargeFieldNumber(f) // two scorers of one run
				vm.ChargeFieldNumber(f)
			}
		}
		work[i] = vm.Work() - before
		vm.Close()
	}
	require.Equal(t, work[0], work[1])
	require.Equal(t, 2*work[0], work[2])
	require.Positive(t, work[0])

	vm := NewVM(Options{BudgetSteps: 3})
	defer vm.Close()
	f := vm.CompileFieldNumber(compiledFn(t, vm, src), &constSlots{})
	require.NotNil(t, f)
	require.False(t, vm.TakeFieldNumber(f), "more instructions than the budget")
	require.False(t, vm.TakeFieldNumbers(f.MaxSteps), "more instructions than the budget")
	vm2 := NewVM(Options{})
	defer vm2.Close()
	fn := compiledFn(t, vm2, src)
	f = vm2.CompileFieldNumber(fn, &constSlots{})
	vm2.SetCompiled(false)
	require.False(t, vm2.TakeFieldNumber(f), "compiling off")
	require.False(t, vm2.TakeFieldNumbers(f.MaxSteps), "compiling off")
	require.Nil(t, vm2.CompileFieldNumber(fn, &constSlots{}))
}
