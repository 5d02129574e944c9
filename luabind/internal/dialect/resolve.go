package dialect

// The resolver: which local each name means, and where assignments and
// for headers stand.

import (
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// dlVar is one declaration of a local variable.
type dlVar struct {
	name      string
	fn        *dlFunc
	captured  bool // some nested function refers to it
	lastParam bool // the last parameter (self included) of its function

	// pending: declared by `local f = function`, whose body does not see
	// it in Lua 5.1; hit: the body named it.
	pending, hit bool
}

// dlFunc is one function body.
type dlFunc struct{ parent *dlFunc }

// dlBlock is one scope.
type dlBlock struct {
	parent *dlBlock
	fn     *dlFunc
	vars   []*dlVar
}

type dlAssignSite struct {
	stmt *ast.AssignStmt
	fn   *dlFunc
	slot *ast.Stmt // the element of the enclosing statement list
}

// dlResolver binds every identifier to its declaration, following
// gopher-lua's scoping rules, and collects the statements to look at.
type dlResolver struct {
	block      *dlBlock
	refs       map[*ast.IdentExpr]*dlVar // absent: a global
	assigns    []dlAssignSite
	localFuncs []*ast.LocalAssignStmt
	fors       []dlAssignSite // stmt nil: the slot holds the for
}

func (r *dlResolver) push() { r.block = &dlBlock{parent: r.block, fn: r.block.fn} }
func (r *dlResolver) pop()  { r.block = r.block.parent }

func (r *dlResolver) declare(name string) *dlVar {
	v := &dlVar{name: name, fn: r.block.fn}
	r.block.vars = append(r.block.vars, v)
	return v
}

func (r *dlResolver) lookup(name string) *dlVar {
	for b := r.block; b != nil; b = b.parent {
		for i := len(b.vars) - 1; i >= 0; i-- {
			if v := b.vars[i]; v.name == name {
				if v.pending {
					v.hit = true
					continue
				}
				if v.fn != r.block.fn {
					v.captured = true
				}
				return v
			}
		}
	}
	return nil
}

func (r *dlResolver) stmts(list []ast.Stmt) {
	for i := range list {
		r.stmt(&list[i])
	}
}

func (r *dlResolver) block1(list []ast.Stmt) {
	r.push()
	r.stmts(list)
	r.pop()
}

func (r *dlResolver) stmt(slot *ast.Stmt) {
	switch s := (*slot).(type) {
	case *ast.AssignStmt:
		for _, l := range s.Lhs {
			r.expr(l)
		}
		r.exprs(s.Rhs)
		r.assigns = append(r.assigns, dlAssignSite{stmt: s, fn: r.block.fn, slot: slot})
	case *ast.LocalAssignStmt:
		r.localAssign(s)
	case *ast.FuncCallStmt:
		r.expr(s.Expr)
	case *ast.DoBlockStmt:
		r.block1(s.Stmts)
	case *ast.WhileStmt:
		r.expr(s.Condition)
		r.block1(s.Stmts)
	case *ast.RepeatStmt:
		r.push()
		r.stmts(s.Stmts)
		r.expr(s.Condition)
		r.pop()
	case *ast.IfStmt:
		r.expr(s.Condition)
		r.block1(s.Then)
		r.block1(s.Else)
	case *ast.NumberForStmt:
		r.fors = append(r.fors, dlAssignSite{fn: r.block.fn, slot: slot})
		r.expr(s.Init)
		r.expr(s.Limit)
		r.expr(s.Step)
		r.push()
		r.declare(s.Name)
		r.stmts(s.Stmts)
		r.pop()
	case *ast.GenericForStmt:
		r.fors = append(r.fors, dlAssignSite{fn: r.block.fn, slot: slot})
		r.exprs(s.Exprs)
		r.push()
		for _, n := range s.Names {
			r.declare(n)
		}
		r.stmts(s.Stmts)
		r.pop()
	case *ast.FuncDefStmt:
		if s.Name.Func != nil {
			r.expr(s.Name.Func)
			r.function(s.Func, false)
		} else {
			r.expr(s.Name.Receiver)
			r.function(s.Func, true)
		}
	case *ast.ReturnStmt:
		r.exprs(s.Exprs)
	}
}

// localAssign declares the names after the expressions, except for the one
// form gopher-lua declares first: one name, one function expression.
func (r *dlResolver) localAssign(s *ast.LocalAssignStmt) {
	if len(s.Names) == 1 && len(s.Exprs) == 1 {
		if f, ok := s.Exprs[0].(*ast.FunctionExpr); ok {
			if s.LastLine() != 0 { // `local function f`: recursive on purpose
				r.declare(s.Names[0])
				r.expr(f)
				return
			}
			// `local f = function`: resolve as Lua 5.1 does, noting whether
			// the body names f where gopher-lua would bind the new local.
			v := r.declare(s.Names[0])
			v.pending = true
			r.expr(f)
			v.pending = false
			if v.hit {
				r.localFuncs = append(r.localFuncs, s)
			}
			return
		}
	}
	r.exprs(s.Exprs)
	for _, n := range s.Names {
		r.declare(n)
	}
}

func (r *dlResolver) function(f *ast.FunctionExpr, method bool) {
	saved := r.block
	r.block = &dlBlock{parent: saved, fn: &dlFunc{parent: saved.fn}}
	if method {
		r.declare("self")
	}
	for _, n := range f.ParList.Names {
		r.declare(n)
	}
	if n := len(r.block.vars); n > 0 {
		r.block.vars[n-1].lastParam = true
	}
	if f.ParList.HasVargs && lua.CompatVarArg {
		r.declare("arg")
	}
	r.stmts(f.Stmts)
	r.block = saved
}

func (r *dlResolver) exprs(list []ast.Expr) {
	for _, e := range list {
		r.expr(e)
	}
}

func (r *dlResolver) expr(e ast.Expr) {
	switch x := e.(type) {
	case nil:
	case *ast.IdentExpr:
		if v := r.lookup(x.Value); v != nil {
			r.refs[x] = v
		}
	case *ast.AttrGetExpr:
		r.expr(x.Object)
		r.expr(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			r.expr(f.Key)
			r.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		r.expr(x.Func)
		r.expr(x.Receiver)
		r.exprs(x.Args)
	case *ast.LogicalOpExpr:
		r.expr(x.Lhs)
		r.expr(x.Rhs)
	case *ast.RelationalOpExpr:
		r.expr(x.Lhs)
		r.expr(x.Rhs)
	case *ast.StringConcatOpExpr:
		r.expr(x.Lhs)
		r.expr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		r.expr(x.Lhs)
		r.expr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		r.expr(x.Expr)
	case *ast.UnaryNotOpExpr:
		r.expr(x.Expr)
	case *ast.UnaryLenOpExpr:
		r.expr(x.Expr)
	case *ast.FunctionExpr:
		r.function(x, false)
	}
}

// local returns the declaration e names when e is a plain local of fn.
func (r *dlResolver) local(e ast.Expr, fn *dlFunc) *dlVar {
	id, ok := e.(*ast.IdentExpr)
	if !ok {
		return nil
	}
	if v := r.refs[id]; v != nil && v.fn == fn {
		return v
	}
	return nil
}

// dlWalk calls f for every expression in e, function bodies included, and
// goes into the parts of those for which f returns true.
func dlWalk(e ast.Expr, f func(ast.Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch x := e.(type) {
	case *ast.AttrGetExpr:
		dlWalk(x.Object, f)
		dlWalk(x.Key, f)
	case *ast.TableExpr:
		for _, fl := range x.Fields {
			dlWalk(fl.Key, f)
			dlWalk(fl.Value, f)
		}
	case *ast.FuncCallExpr:
		dlWalk(x.Func, f)
		dlWalk(x.Receiver, f)
		for _, a := range x.Args {
			dlWalk(a, f)
		}
	case *ast.LogicalOpExpr:
		dlWalk(x.Lhs, f)
		dlWalk(x.Rhs, f)
	case *ast.RelationalOpExpr:
		dlWalk(x.Lhs, f)
		dlWalk(x.Rhs, f)
	case *ast.StringConcatOpExpr:
		dlWalk(x.Lhs, f)
		dlWalk(x.Rhs, f)
	case *ast.ArithmeticOpExpr:
		dlWalk(x.Lhs, f)
		dlWalk(x.Rhs, f)
	case *ast.UnaryMinusOpExpr:
		dlWalk(x.Expr, f)
	case *ast.UnaryNotOpExpr:
		dlWalk(x.Expr, f)
	case *ast.UnaryLenOpExpr:
		dlWalk(x.Expr, f)
	case *ast.FunctionExpr:
		dlWalkStmts(x.Stmts, f)
	}
}

func dlWalkStmts(list []ast.Stmt, f func(ast.Expr) bool) {
	for _, s := range list {
		switch s := s.(type) {
		case *ast.AssignStmt:
			for _, e := range s.Lhs {
				dlWalk(e, f)
			}
			for _, e := range s.Rhs {
				dlWalk(e, f)
			}
		case *ast.LocalAssignStmt:
			for _, e := range s.Exprs {
				dlWalk(e, f)
			}
		case *ast.FuncCallStmt:
			dlWalk(s.Expr, f)
		case *ast.DoBlockStmt:
			dlWalkStmts(s.Stmts, f)
		case *ast.WhileStmt:
			dlWalk(s.Condition, f)
			dlWalkStmts(s.Stmts, f)
		case *ast.RepeatStmt:
			dlWalkStmts(s.Stmts, f)
			dlWalk(s.Condition, f)
		case *ast.IfStmt:
			dlWalk(s.Condition, f)
			dlWalkStmts(s.Then, f)
			dlWalkStmts(s.Else, f)
		case *ast.NumberForStmt:
			dlWalk(s.Init, f)
			dlWalk(s.Limit, f)
			dlWalk(s.Step, f)
			dlWalkStmts(s.Stmts, f)
		case *ast.GenericForStmt:
			for _, e := range s.Exprs {
				dlWalk(e, f)
			}
			dlWalkStmts(s.Stmts, f)
		case *ast.FuncDefStmt:
			dlWalk(s.Name.Func, f)
			dlWalk(s.Name.Receiver, f)
			dlWalk(s.Func, f)
		case *ast.ReturnStmt:
			for _, e := range s.Exprs {
				dlWalk(e, f)
			}
		}
	}
}
