package lcomp

import lua "github.com/yuin/gopher-lua"

// StraightRuns says whether p's tree (expr.go) runs fn(a0, a1) to the end
// rather than giving up to the interpreter: the differential test counts
// those runs, on a twin of the context it compares.
func (p *Program) StraightRuns(m *Machine, nargs int, a0, a1 lua.LValue) bool {
	if p.fast == nil {
		return false
	}
	_, ok := p.fast.run(m, nargs, a0, a1)
	return ok
}
