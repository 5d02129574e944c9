package dialect

// Rewriting an assignment into one gopher-lua compiles right.

import (
	"github.com/yuin/gopher-lua/ast"
)

// rewrite builds the do block that stands for site.stmt.
//
// It is long because it is one switch over the node kinds of the syntax
// tree, each case a line or two.
func (r *dlResolver) rewrite(site dlAssignSite) ast.Stmt {
	s, fn := site.stmt, site.fn
	decl := &ast.LocalAssignStmt{}
	temp := func(e ast.Expr) *ast.IdentExpr {
		name := dlTempName(len(decl.Names) + 1)
		decl.Names = append(decl.Names, name)
		decl.Exprs = append(decl.Exprs, e)
		return dlIdent(name, e)
	}
	// inline: used as is at the store, like PUC's register operands.
	inline := func(e ast.Expr) bool {
		switch e.(type) {
		case *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr, *ast.NumberExpr, *ast.StringExpr:
			return true
		}
		return r.local(e, fn) != nil
	}
	type target struct {
		ident    *ast.IdentExpr
		attr     *ast.AttrGetExpr
		obj, key ast.Expr
	}
	targets := make([]target, len(s.Lhs))
	for k, l := range s.Lhs {
		switch l := l.(type) {
		case *ast.IdentExpr:
			targets[k].ident = l
			v := r.local(l, fn)
			if v == nil {
				continue
			}
			// check_conflict: earlier targets indexed by this local use a
			// copy taken now.
			var cp *ast.IdentExpr
			for j := 0; j < k; j++ {
				t := &targets[j]
				if t.attr == nil {
					continue
				}
				for _, p := range []*ast.Expr{&t.obj, &t.key} {
					if r.local(*p, fn) == v {
						if cp == nil {
							cp = temp(dlIdent(l.Value, l))
						}
						*p = dlIdent(cp.Value, *p)
					}
				}
			}
		case *ast.AttrGetExpr:
			t := &targets[k]
			t.attr, t.obj, t.key = l, l.Object, l.Key
			if !inline(t.obj) {
				t.obj = temp(t.obj)
			}
			if !inline(t.key) {
				t.key = temp(t.key)
			}
		}
	}
	values := make([]*ast.IdentExpr, len(s.Lhs))
	for k := range s.Lhs {
		name := dlTempName(len(decl.Names) + 1)
		decl.Names = append(decl.Names, name)
		values[k] = dlIdent(name, s.Lhs[k])
	}
	decl.Exprs = append(decl.Exprs, s.Rhs...)
	decl.SetLine(s.Line())

	block := &ast.DoBlockStmt{Stmts: []ast.Stmt{decl}}
	for k := len(s.Lhs) - 1; k >= 0; k-- {
		t := targets[k]
		var lhs ast.Expr = t.ident
		if t.attr != nil {
			a := &ast.AttrGetExpr{Object: t.obj, Key: t.key}
			dlSetPos(a, t.attr)
			lhs = a
		}
		st := &ast.AssignStmt{Lhs: []ast.Expr{lhs}, Rhs: []ast.Expr{values[k]}}
		st.SetLine(lhs.Line())
		st.SetLastLine(lhs.LastLine())
		block.Stmts = append(block.Stmts, st)
	}
	block.SetLine(s.Line())
	last := s.Line()
	for _, e := range append(append([]ast.Expr{}, s.Lhs...), s.Rhs...) {
		last = max(last, e.Line(), e.LastLine())
	}
	block.SetLastLine(last)
	return block
}

// ---- jumps onto jumps -----------------------------------------------------
//
// gopher-lua 1.1.2's jump-to-jump optimisation (patchCode) follows a jump
// that lands on another JMP and reads that JMP's operand as a label number;
// when the JMP lies before it (a loop's jump back), it was already patched
// and its operand is an offset, so the jump back goes astray: a generic for
// whose body starts with `if false then ... end` never ends, skips its body
// or calls nil (yuin/gopher-lua#540). The targets of backward jumps are the
// start of a generic for's body, a repeat's body, a while's condition (its
// body when the condition compiles to nothing) and a label (a goto back).
// Where the first instruction there may be an unconditional JMP, the pass
// puts `do local (nop) = false end` (one LOADBOOL) first; a while whose
// condition itself starts with a jump, as in `while (false and x) or y`,
// becomes `while true do (nop) if not (cond) then break end ... end`.
