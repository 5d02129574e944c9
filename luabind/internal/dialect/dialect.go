package dialect

import (
	"github.com/yuin/gopher-lua/ast"
)

// Rewrite returns chunk with the statements gopher-lua would get wrong
// rewritten (in place where it can).
func Rewrite(chunk []ast.Stmt) []ast.Stmt {
	chunk, _ = Pass(chunk)
	return chunk
}

// Stats counts the rewrites of each kind, for the differential tests.
type Stats struct {
	Assigns, LocalFuncs, Loops int
}

// Total is the number of rewrites.
func (s Stats) Total() int { return s.Assigns + s.LocalFuncs + s.Loops }

// Pass is Rewrite, also counting what it rewrote.
func Pass(chunk []ast.Stmt) ([]ast.Stmt, Stats) {
	r := &dlResolver{refs: map[*ast.IdentExpr]*dlVar{}}
	main := &dlFunc{}
	r.block = &dlBlock{fn: main}
	r.stmts(chunk)
	// Decide everything on the untouched tree, then change it.
	var todo []dlAssignSite
	for _, site := range r.assigns {
		if r.needsRewrite(site) {
			todo = append(todo, site)
		}
	}
	var fors []dlAssignSite
	for _, site := range r.fors {
		if r.forNeedsHoist(site) {
			fors = append(fors, site)
		}
	}
	for _, site := range todo {
		*site.slot = r.rewrite(site)
	}
	for _, site := range fors {
		*site.slot = dlHoistFor(*site.slot)
	}
	for _, lf := range r.localFuncs {
		nilx := &ast.NilExpr{}
		dlSetPos(nilx, lf.Exprs[0])
		lf.Exprs = append(lf.Exprs, nilx)
	}
	st := Stats{Assigns: len(todo), LocalFuncs: len(r.localFuncs), Loops: len(fors)}
	chunk = dlFixJumps(chunk, &st.Loops)
	return chunk, st
}
