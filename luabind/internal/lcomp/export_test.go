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

// BranchRuns says whether p's branch tree (branch.go) runs fn(a0, a1) to
// the end rather than giving up to the interpreter: the differential test
// counts those runs, on a twin of the context it compares.
func (p *Program) BranchRuns(m *Machine, fn *lua.LFunction, nargs int, a0, a1 lua.LValue) bool {
	if p.branch == nil || p.fast != nil {
		return false
	}
	_, ok := p.branch.run(m, fn, nargs, a0, a1)
	return ok
}

// HasBranch says whether p runs as a branch tree.
func (p *Program) HasBranch() bool { return p.branch != nil && p.fast == nil }

// WithoutBranch is p without its branch tree: the interpreter runs it
// (benchmarks compare the two).
func (p *Program) WithoutBranch() *Program {
	q := *p
	q.branch = nil
	return &q
}
