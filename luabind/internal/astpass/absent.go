package astpass

import "github.com/yuin/gopher-lua/ast"

// Missing says which names a sandbox leaves out: Global for a global
// function (dofile), Field for a field of a global library (os.execute),
// Lib for a whole library (io: every field of it is missing).
type Missing struct {
	Global func(name string) bool
	Field  func(lib, name string) bool
	Lib    func(lib string) bool
}

// Absent makes a use of a missing name raise an error that names it,
// while reading it still gives nil (so feature tests such as
// `io and io.write` or `if debug and debug.getinfo then` work):
//
//   - a call of a missing global, f(…), becomes (f or local("f"))(…);
//   - a call of a missing library field, os.execute(…), becomes
//     (os.execute or local("os.execute"))(…);
//   - an index of a missing library, io.write, becomes
//     (io or local("io.write")).write.
//
// local is a local the chunk's first statement declares with the value of
// the global named global: a function that raises "NAME is not available".
// A name the script gave a value (its own global or local of that name)
// is used as it is. A chunk without such uses is returned as it is.
func Absent(chunk []ast.Stmt, local, global string, m Missing) []ast.Stmt {
	a := &absentRewriter{local: local, m: m}
	walkStmts(chunk, a.expr)
	if !a.used {
		return chunk
	}
	return append([]ast.Stmt{prologue(local, global)}, chunk...)
}

type absentRewriter struct {
	local string
	m     Missing
	used  bool
}

// or is (e or local(name)), at e's line.
func (a *absentRewriter) or(e ast.Expr, name string) ast.Expr {
	a.used = true
	str := &ast.StringExpr{Value: name}
	call := &ast.FuncCallExpr{Func: &ast.IdentExpr{Value: a.local}, Args: []ast.Expr{str}}
	or := &ast.LogicalOpExpr{Operator: "or", Lhs: e, Rhs: call}
	for _, p := range []ast.PositionHolder{str, call, call.Func, or} {
		p.SetLine(e.Line())
		p.SetLastLine(e.LastLine())
	}
	return or
}

// expr rewrites e itself (its parts were rewritten first) and returns it.
func (a *absentRewriter) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.FuncCallExpr:
		switch f := e.Func.(type) {
		case *ast.IdentExpr:
			if a.m.Global(f.Value) {
				e.Func = a.or(f, f.Value)
			}
		case *ast.AttrGetExpr:
			if lib, key, ok := libField(f); ok && a.m.Field(lib, key) {
				e.Func = a.or(f, lib+"."+key)
			}
		}
		if r, ok := e.Receiver.(*ast.IdentExpr); ok && a.m.Lib(r.Value) {
			e.Receiver = a.or(r, r.Value+"."+e.Method) // io:write(…)
		}
	case *ast.AttrGetExpr:
		if lib, ok := e.Object.(*ast.IdentExpr); ok && a.m.Lib(lib.Value) {
			name := lib.Value
			if key, ok := e.Key.(*ast.StringExpr); ok {
				name += "." + key.Value
			}
			e.Object = a.or(lib, name)
		}
	}
	return e
}

// libField reads lib.key from a field access of a global-looking name.
func libField(e *ast.AttrGetExpr) (lib, key string, ok bool) {
	obj, ok1 := e.Object.(*ast.IdentExpr)
	k, ok2 := e.Key.(*ast.StringExpr)
	if !ok1 || !ok2 {
		return "", "", false
	}
	return obj.Value, k.Value, true
}

// walkStmts calls fn on every expression below the statements, innermost
// first, replacing each by what fn returns.
func walkStmts(list []ast.Stmt, fn func(ast.Expr) ast.Expr) {
	for _, s := range list {
		walkStmt(s, fn)
	}
}

func walkList(es []ast.Expr, fn func(ast.Expr) ast.Expr) {
	for i := range es {
		es[i] = walkExpr(es[i], fn)
	}
}

func walkStmt(s ast.Stmt, fn func(ast.Expr) ast.Expr) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		walkList(s.Lhs, fn)
		walkList(s.Rhs, fn)
	case *ast.LocalAssignStmt:
		walkList(s.Exprs, fn)
	case *ast.FuncCallStmt:
		s.Expr = walkExpr(s.Expr, fn)
	case *ast.DoBlockStmt:
		walkStmts(s.Stmts, fn)
	case *ast.WhileStmt:
		s.Condition = walkExpr(s.Condition, fn)
		walkStmts(s.Stmts, fn)
	case *ast.RepeatStmt:
		walkStmts(s.Stmts, fn)
		s.Condition = walkExpr(s.Condition, fn)
	case *ast.IfStmt:
		s.Condition = walkExpr(s.Condition, fn)
		walkStmts(s.Then, fn)
		walkStmts(s.Else, fn)
	case *ast.NumberForStmt:
		s.Init, s.Limit = walkExpr(s.Init, fn), walkExpr(s.Limit, fn)
		if s.Step != nil {
			s.Step = walkExpr(s.Step, fn)
		}
		walkStmts(s.Stmts, fn)
	case *ast.GenericForStmt:
		walkList(s.Exprs, fn)
		walkStmts(s.Stmts, fn)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			if s.Name.Func != nil {
				s.Name.Func = walkExpr(s.Name.Func, fn)
			}
			if s.Name.Receiver != nil {
				s.Name.Receiver = walkExpr(s.Name.Receiver, fn)
			}
		}
		walkExpr(s.Func, fn)
	case *ast.ReturnStmt:
		walkList(s.Exprs, fn)
	}
}

func walkExpr(e ast.Expr, fn func(ast.Expr) ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.AttrGetExpr:
		e.Object, e.Key = walkExpr(e.Object, fn), walkExpr(e.Key, fn)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = walkExpr(f.Key, fn)
			}
			f.Value = walkExpr(f.Value, fn)
		}
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = walkExpr(e.Func, fn)
		}
		if e.Receiver != nil {
			e.Receiver = walkExpr(e.Receiver, fn)
		}
		walkList(e.Args, fn)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = walkExpr(e.Lhs, fn), walkExpr(e.Rhs, fn)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = walkExpr(e.Lhs, fn), walkExpr(e.Rhs, fn)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = walkExpr(e.Lhs, fn), walkExpr(e.Rhs, fn)
	case *ast.StringConcatOpExpr:
		e.Lhs, e.Rhs = walkExpr(e.Lhs, fn), walkExpr(e.Rhs, fn)
	case *ast.UnaryMinusOpExpr:
		e.Expr = walkExpr(e.Expr, fn)
	case *ast.UnaryNotOpExpr:
		e.Expr = walkExpr(e.Expr, fn)
	case *ast.UnaryLenOpExpr:
		e.Expr = walkExpr(e.Expr, fn)
	case *ast.FunctionExpr:
		walkStmts(e.Stmts, fn)
	}
	return fn(e)
}
