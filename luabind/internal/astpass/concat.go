package astpass

import "github.com/yuin/gopher-lua/ast"

// Concat replaces every `..` of the chunk by a call of the local named
// local, which the chunk's first statement declares with the value of the
// global named global: `a .. b .. c` becomes local(a, b, c), each operand
// cut to one value as an operand of `..` is. A chunk without `..` is
// returned as it is. The caller names the local so that no script can
// write it (a name that is not an identifier).
func Concat(chunk []ast.Stmt, local, global string) []ast.Stmt {
	c := &concatRewriter{local: local}
	c.stmts(chunk)
	if !c.used {
		return chunk
	}
	return append([]ast.Stmt{prologue(local, global)}, chunk...)
}

// prologue is `local <local> = <global>`, at line 1 (the chunk's first
// instructions then have a line, as every other one does).
func prologue(local, global string) ast.Stmt {
	id := &ast.IdentExpr{Value: global}
	decl := &ast.LocalAssignStmt{Names: []string{local}, Exprs: []ast.Expr{id}}
	for _, p := range []ast.PositionHolder{id, decl} {
		p.SetLine(1)
		p.SetLastLine(1)
	}
	return decl
}

type concatRewriter struct {
	local string
	used  bool
}

func (c *concatRewriter) stmts(list []ast.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

func (c *concatRewriter) list(es []ast.Expr) {
	for i := range es {
		es[i] = c.expr(es[i])
	}
}

func (c *concatRewriter) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		c.list(s.Lhs)
		c.list(s.Rhs)
	case *ast.LocalAssignStmt:
		c.list(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = c.expr(s.Expr)
	case *ast.DoBlockStmt:
		c.stmts(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = c.expr(s.Condition)
		c.stmts(s.Stmts)
	case *ast.RepeatStmt:
		c.stmts(s.Stmts)
		s.Condition = c.expr(s.Condition)
	case *ast.IfStmt:
		s.Condition = c.expr(s.Condition)
		c.stmts(s.Then)
		c.stmts(s.Else)
	case *ast.NumberForStmt:
		s.Init, s.Limit = c.expr(s.Init), c.expr(s.Limit)
		if s.Step != nil {
			s.Step = c.expr(s.Step)
		}
		c.stmts(s.Stmts)
	case *ast.GenericForStmt:
		c.list(s.Exprs)
		c.stmts(s.Stmts)
	case *ast.FuncDefStmt:
		if s.Name != nil {
			if s.Name.Func != nil {
				s.Name.Func = c.expr(s.Name.Func)
			}
			if s.Name.Receiver != nil {
				s.Name.Receiver = c.expr(s.Name.Receiver)
			}
		}
		c.expr(s.Func)
	case *ast.ReturnStmt:
		c.list(s.Exprs)
	}
}

func (c *concatRewriter) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.AttrGetExpr:
		e.Object, e.Key = c.expr(e.Object), c.expr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = c.expr(f.Key)
			}
			f.Value = c.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = c.expr(e.Func)
		}
		if e.Receiver != nil {
			e.Receiver = c.expr(e.Receiver)
		}
		c.list(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = c.expr(e.Lhs), c.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = c.expr(e.Lhs), c.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = c.expr(e.Lhs), c.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = c.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = c.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = c.expr(e.Expr)
	case *ast.FunctionExpr:
		c.stmts(e.Stmts)
	case *ast.StringConcatOpExpr:
		return c.concat(e)
	}
	return e
}

// concat turns a .. b .. c (parsed as a .. (b .. c)) into cat(a, b, c).
// Each operand gives one value, as an operand of `..` does.
func (c *concatRewriter) concat(e *ast.StringConcatOpExpr) ast.Expr {
	c.used = true
	var args []ast.Expr
	for {
		args = append(args, c.operand(e.Lhs))
		next, ok := e.Rhs.(*ast.StringConcatOpExpr)
		if !ok {
			args = append(args, c.operand(e.Rhs))
			break
		}
		e = next
	}
	call := &ast.FuncCallExpr{Func: &ast.IdentExpr{Value: c.local}, Args: args}
	// Every node at the expression's line: the instructions loading the
	// function have a line too, so an error or a stop there (the budget
	// may fire at any instruction) names the script's line, not 0.
	for _, p := range []ast.PositionHolder{call, call.Func} {
		p.SetLine(e.Line())
		p.SetLastLine(e.LastLine())
	}
	return call
}

func (c *concatRewriter) operand(e ast.Expr) ast.Expr {
	e = c.expr(e)
	switch v := e.(type) {
	case *ast.FuncCallExpr:
		v.AdjustRet = true
	case *ast.Comma3Expr:
		v.AdjustRet = true
	}
	return e
}
