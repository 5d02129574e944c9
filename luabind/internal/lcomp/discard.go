package lcomp

import (
	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// RunDiscard is Run for a call whose result nobody reads (an update or a
// hook): steps is Result.Steps, and ok is false when the VM must run the
// call instead (nothing was changed then). The tree, when there is one,
// runs without a Result built and copied out.
func (p *Program) RunDiscard(m *Machine, fn *lua.LFunction, nargs int, a0, a1 lua.LValue) (steps int, ok bool) {
	if s := p.fast; s != nil {
		if _, ok := s.eval(m, nargs, a0, a1); ok {
			return s.steps, true
		}
	}
	// The tree gave up having changed nothing: Run tries it again (as
	// it would) and then the interpreter.
	res, ok := p.Run(m, fn, nargs, a0, a1)
	return res.Steps, ok
}

// eval runs the tree: its checks, its return value (r, when it has one),
// then its write; ok is false when it gave up (nothing was changed).
func (s *straight) eval(m *Machine, nargs int, a0, a1 lua.LValue) (r float64, ok bool) {
	if nargs < 2 {
		a1 = lua.LNil
	}
	if nargs < 1 {
		a0 = lua.LNil
	}
	for _, c := range s.checks {
		if !c(a0, a1) {
			return 0, false
		}
	}
	if s.ret != nil {
		if r, ok = s.ret(a0, a1); !ok {
			return 0, false
		}
	}
	if s.wtab != nil {
		t, ok := s.wtab(a0, a1)
		if !ok {
			return 0, false
		}
		v, ok := s.wval(a0, a1)
		if !ok || t.Metatable != lua.LNil {
			return 0, false
		}
		luaval.SetString(t, s.wkey, m.box(val{n: v, num: true}))
	}
	return r, true
}
