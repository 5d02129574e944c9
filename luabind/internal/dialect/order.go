package dialect

// What an expression or statement compiles to first (for the jump fix).

import (
	"github.com/yuin/gopher-lua/ast"
)

// dlFirstOp is what the first instruction a construct compiles to may be.
type dlFirstOp int

const (
	dlNone  dlFirstOp = iota // nothing, or a LOADNIL that may merge into the one before
	dlOther                  // an instruction that is not an unconditional JMP
	dlJump                   // possibly an unconditional JMP
)

func dlIsConst(e ast.Expr) bool {
	switch e.(type) {
	case *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr, *ast.NumberExpr, *ast.StringExpr:
		return true
	}
	return false
}

// exprFirst is the first instruction of e compiled as a value.
func dlExprFirst(e ast.Expr) dlFirstOp {
	switch x := e.(type) {
	case nil, *ast.NilExpr:
		return dlNone
	case *ast.LogicalOpExpr:
		return dlLogicalFirst(x.Lhs)
	case *ast.ArithmeticOpExpr:
		return dlOperandsFirst(x.Lhs, x.Rhs)
	case *ast.StringConcatOpExpr:
		return dlOperandsFirst(x.Lhs, x.Rhs)
	case *ast.RelationalOpExpr:
		return dlOperandsFirst(x.Lhs, x.Rhs)
	case *ast.AttrGetExpr:
		return dlOperandsFirst(x.Object, x.Key)
	case *ast.UnaryMinusOpExpr:
		return dlOperandsFirst(x.Expr, nil)
	case *ast.UnaryNotOpExpr:
		return dlOperandsFirst(x.Expr, nil)
	case *ast.UnaryLenOpExpr:
		return dlOperandsFirst(x.Expr, nil)
	case *ast.FuncCallExpr:
		if x.Func != nil {
			return dlOperandsFirst(x.Func, nil)
		}
		return dlOperandsFirst(x.Receiver, nil)
	}
	return dlOther
}

// operandsFirst: the operands come first, then an instruction of the operator.
func dlOperandsFirst(a, b ast.Expr) dlFirstOp {
	if dlExprFirst(a) == dlJump || dlExprFirst(b) == dlJump {
		return dlJump
	}
	return dlOther
}

// logicalFirst is the first instruction of the left operand of and/or
// (compileLogicalOpExprAux): a constant there is a bare JMP.
func dlLogicalFirst(e ast.Expr) dlFirstOp {
	if dlIsConst(e) {
		return dlJump
	}
	if l, ok := e.(*ast.LogicalOpExpr); ok {
		return dlLogicalFirst(l.Lhs)
	}
	return dlOperandsFirst(e, nil)
}

// condFirst is the first instruction of e compiled as a branch condition
// (compileBranchCondition).
func dlCondFirst(e ast.Expr, hasNext bool) dlFirstOp {
	switch x := e.(type) {
	case *ast.FalseExpr, *ast.NilExpr:
		if !hasNext {
			return dlJump
		}
	case *ast.TrueExpr, *ast.NumberExpr, *ast.StringExpr:
		if !hasNext {
			return dlNone
		}
	case *ast.UnaryNotOpExpr:
		return dlCondFirst(x.Expr, !hasNext)
	case *ast.LogicalOpExpr:
		f := dlCondFirst(x.Lhs, x.Operator == "or")
		if f == dlNone {
			f = dlCondFirst(x.Rhs, hasNext)
		}
		return f
	}
	return dlOperandsFirst(e, nil)
}

func dlListFirst(list []ast.Stmt) dlFirstOp {
	for _, s := range list {
		if f := dlStmtFirst(s); f != dlNone {
			return f
		}
	}
	return dlNone
}

// exprsFirst: expressions compiled in order.
func dlExprsFirst(list ...ast.Expr) dlFirstOp {
	for _, e := range list {
		if f := dlExprFirst(e); f != dlNone {
			return f
		}
	}
	return dlNone
}

func dlStmtFirst(s ast.Stmt) dlFirstOp {
	switch s := s.(type) {
	case *ast.IfStmt:
		if f := dlCondFirst(s.Condition, false); f != dlNone {
			return f
		}
		if f := dlListFirst(s.Then); f != dlNone {
			return f
		}
		if len(s.Else) > 0 {
			return dlJump // the jump over the else part
		}
		return dlNone
	case *ast.WhileStmt:
		if f := dlCondFirst(s.Condition, false); f != dlNone {
			return f
		}
		if f := dlListFirst(s.Stmts); f != dlNone {
			return f
		}
		return dlJump
	case *ast.RepeatStmt:
		if f := dlListFirst(s.Stmts); f != dlNone {
			return f
		}
		return dlCondFirst(s.Condition, false)
	case *ast.DoBlockStmt:
		return dlListFirst(s.Stmts)
	case *ast.LabelStmt:
		return dlNone
	case *ast.BreakStmt:
		return dlJump
	case *ast.GotoStmt, *ast.FuncDefStmt:
		return dlOther // CLOSE, CLOSURE
	case *ast.AssignStmt:
		var list []ast.Expr
		for _, l := range s.Lhs {
			if a, ok := l.(*ast.AttrGetExpr); ok {
				if !dlIsConst(a.Object) {
					if _, id := a.Object.(*ast.IdentExpr); !id {
						list = append(list, a.Object)
					}
				}
				list = append(list, a.Key)
			}
		}
		for i, e := range s.Rhs {
			if i < len(s.Lhs) {
				if _, ok := s.Lhs[i].(*ast.AttrGetExpr); ok && (dlIsConst(e) || dlIsIdentExpr(e)) {
					continue // a register or constant operand, no instruction
				}
			}
			list = append(list, e)
		}
		return dlExprsFirst(list...)
	case *ast.LocalAssignStmt:
		return dlExprsFirst(s.Exprs...)
	case *ast.FuncCallStmt:
		return dlExprFirst(s.Expr)
	case *ast.ReturnStmt:
		if f := dlExprsFirst(s.Exprs...); f != dlNone {
			return f
		}
		return dlOther
	case *ast.NumberForStmt:
		if f := dlExprsFirst(s.Init, s.Limit, s.Step); f != dlNone {
			return f
		}
		return dlOther
	case *ast.GenericForStmt:
		if f := dlExprsFirst(s.Exprs...); f != dlNone {
			return f
		}
		return dlJump
	}
	return dlJump
}

func dlIsIdentExpr(e ast.Expr) bool { _, ok := e.(*ast.IdentExpr); return ok }
