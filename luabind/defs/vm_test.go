package defs

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// compileFn runs src, which returns a function, and returns that function.
func compileFn(t testing.TB, vm *VM, name, src string) *lua.LFunction {
	t.Helper()
	v, err := vm.RunString(name, src)
	require.NoError(t, err)
	fn, ok := v.(*lua.LFunction)
	require.True(t, ok, "%s returns %v", name, v)
	return fn
}

// Inside a tick, math.random uses the running agent's generator; outside
// one, the VM's.
func TestRandomUsesTheRunnersGenerator(t *testing.T) {
	vm := NewVM(luabind.Options{Seed: 1})
	defer vm.Close()
	fn := compileFn(t, vm, "scripts/r.lua", `return function() return math.random(1000000) end`)
	r := &fakeRunner{rng: rand.New(rand.NewPCG(7, 7))}
	want := rand.New(rand.NewPCG(7, 7)).Int64N(1000000) + 1
	old := vm.SetRunner(r)
	v, err := vm.Call(fn)
	vm.SetRunner(old)
	require.NoError(t, err)
	require.Equal(t, lua.LNumber(want), v)
	require.Nil(t, vm.Runner())

	outside := NewVM(luabind.Options{Seed: 1})
	defer outside.Close()
	a, err := outside.Call(compileFn(t, outside, "scripts/r.lua", `return function() return math.random(1000000) end`))
	require.NoError(t, err)
	b, err := vm.Call(fn)
	require.NoError(t, err)
	require.Equal(t, a, b, "outside a tick, the generator of Options.Seed")
}

func TestMachineMetatablesStayProtected(t *testing.T) {
	vm := NewVM(luabind.Options{})
	defer vm.Close()
	v, err := vm.RunString("scripts/sandbox.lua", `
		local ai = require("luaai")
		local m = ai.fsm{initial = "a", states = {a = {}}}
		return getmetatable(m)`)
	require.NoError(t, err)
	require.Equal(t, lua.LString("luaai.machine"), v)
}

// A Lua condition or scorer runs under the callback budget, like the
// other protected calls.
func TestBudgetStopsLuaCondAndScorer(t *testing.T) {
	vm := NewVM(luabind.Options{Budget: 50 * time.Millisecond})
	defer vm.Close()
	fn := compileFn(t, vm, "scripts/h.lua", "return function()\nwhile true do end\nend")
	ctx := vm.L.NewTable()
	for name, call := range map[string]func() error{
		"LuaCond":   func() error { _, err := LuaCond{Fn: fn}.Test(vm, ctx, lua.LNil); return err },
		"LuaScorer": func() error { _, err := LuaScorer{fn}.Score(vm, ctx); return err },
	} {
		t.Run(name, func(t *testing.T) {
			err := call()
			require.ErrorIs(t, err, scripterr.ErrBudget)
			require.Equal(t, "scripts/h.lua:2: callback ran past its 50ms budget", err.Error())
			require.Equal(t, 0, vm.L.GetTop(), "stack balanced")
		})
	}
}

// fakeRunner is a Runner with a generator and nothing else.
type fakeRunner struct{ rng *rand.Rand }

func (r *fakeRunner) Request(TransitionKind, string, lua.LValue) error { return errors.New("no") }
func (r *fakeRunner) ID() int                                          { return 0 }
func (r *fakeRunner) SendTo(int, string, any) (bool, error)            { return false, nil }
func (r *fakeRunner) Send(string, lua.LValue) error                    { return nil }
func (r *fakeRunner) State() (string, bool)                            { return "", false }
func (r *fakeRunner) Active(string) bool                               { return false }
func (r *fakeRunner) Time() float64                                    { return 0 }
func (r *fakeRunner) Rand() *rand.Rand                                 { return r.rng }
func (r *fakeRunner) Log(string)                                       {}
