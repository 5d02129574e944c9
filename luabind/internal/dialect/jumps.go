package dialect

// Generic for headers with fewer than three values, and jumps onto jumps.

import (
	"github.com/yuin/gopher-lua/ast"
)

// dlPadForExprs: gopher-lua 1.1.2 sets the generator, state and control of
// a generic for from its expression list but fills missing ones with nil
// only up to the number of loop variables (yuin/gopher-lua#514), so in
// `for k, v in next, t do` the control value is whatever the register held
// (an element of a table constructor just built there, say) and the loop
// starts in the middle or not at all. A list of fewer than three that does
// not end in a call or `...` gets explicit nils: `for k, v in next, t, nil`.
func dlPadForExprs(s *ast.GenericForStmt, n *int) {
	if len(s.Names) >= 3 || len(s.Exprs) >= 3 || len(s.Exprs) == 0 {
		return
	}
	last := s.Exprs[len(s.Exprs)-1]
	switch x := last.(type) {
	case *ast.FuncCallExpr:
		if !x.AdjustRet {
			return
		}
	case *ast.Comma3Expr:
		if !x.AdjustRet {
			return
		}
	}
	for len(s.Exprs) < 3 {
		nilx := &ast.NilExpr{}
		dlSetPos(nilx, last)
		s.Exprs = append(s.Exprs, nilx)
	}
	*n++
}

// dlNop is `do local (nop) = false end`: one LOADBOOL.
func dlNop(line int) ast.Stmt {
	f := &ast.FalseExpr{}
	f.SetLine(line)
	l := &ast.LocalAssignStmt{Names: []string{"(nop)"}, Exprs: []ast.Expr{f}}
	l.SetLine(line)
	d := &ast.DoBlockStmt{Stmts: []ast.Stmt{l}}
	d.SetLine(line)
	d.SetLastLine(line)
	return d
}

// fixJumps returns list with fillers where a backward jump would land on a
// JMP, in every block and function below it; n counts them.
func dlFixJumps(list []ast.Stmt, n *int) []ast.Stmt {
	for i := 0; i < len(list); i++ {
		switch s := list[i].(type) {
		case *ast.LabelStmt:
			if dlListFirst(list[i+1:]) == dlJump {
				list = append(list[:i+1], append([]ast.Stmt{dlNop(s.Line())}, list[i+1:]...)...)
				*n++
			}
		}
		dlFixJumpsStmt(list[i], n)
	}
	return list
}

func dlBodyStart(list []ast.Stmt, line int, n *int) []ast.Stmt {
	list = dlFixJumps(list, n)
	if dlListFirst(list) == dlJump {
		*n++
		return append([]ast.Stmt{dlNop(line)}, list...)
	}
	return list
}

func dlFixJumpsStmt(s ast.Stmt, n *int) {
	exprs := func(list ...ast.Expr) {
		for _, e := range list {
			dlWalk(e, func(e ast.Expr) bool {
				if f, ok := e.(*ast.FunctionExpr); ok {
					f.Stmts = dlFixJumps(f.Stmts, n)
					return false // fixJumps went through its body
				}
				return true
			})
		}
	}
	switch s := s.(type) {
	case *ast.AssignStmt:
		exprs(s.Lhs...)
		exprs(s.Rhs...)
	case *ast.LocalAssignStmt:
		exprs(s.Exprs...)
	case *ast.FuncCallStmt:
		exprs(s.Expr)
	case *ast.ReturnStmt:
		exprs(s.Exprs...)
	case *ast.FuncDefStmt:
		exprs(s.Name.Func, s.Name.Receiver)
		s.Func.Stmts = dlFixJumps(s.Func.Stmts, n)
	case *ast.DoBlockStmt:
		s.Stmts = dlFixJumps(s.Stmts, n)
	case *ast.IfStmt:
		exprs(s.Condition)
		s.Then = dlFixJumps(s.Then, n)
		s.Else = dlFixJumps(s.Else, n)
	case *ast.NumberForStmt:
		exprs(s.Init, s.Limit, s.Step)
		s.Stmts = dlFixJumps(s.Stmts, n)
	case *ast.GenericForStmt:
		exprs(s.Exprs...)
		dlPadForExprs(s, n)
		s.Stmts = dlBodyStart(s.Stmts, s.Line(), n)
	case *ast.RepeatStmt:
		exprs(s.Condition)
		s.Stmts = dlBodyStart(s.Stmts, s.Line(), n)
	case *ast.WhileStmt:
		exprs(s.Condition)
		switch dlCondFirst(s.Condition, false) {
		case dlNone:
			s.Stmts = dlBodyStart(s.Stmts, s.Line(), n)
		case dlJump:
			// while c do b end -> while true do (nop) if not c then break end b end
			line := s.Condition.Line()
			not := &ast.UnaryNotOpExpr{Expr: s.Condition}
			not.SetLine(line)
			brk := &ast.BreakStmt{}
			brk.SetLine(line)
			exit := &ast.IfStmt{Condition: not, Then: []ast.Stmt{brk}}
			exit.SetLine(line)
			exit.SetLastLine(line)
			t := &ast.TrueExpr{}
			t.SetLine(s.Line())
			s.Condition = t
			s.Stmts = append([]ast.Stmt{dlNop(line), exit}, dlFixJumps(s.Stmts, n)...)
			*n++
		default:
			s.Stmts = dlFixJumps(s.Stmts, n)
		}
	}
}
