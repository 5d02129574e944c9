package astpass

import "github.com/yuin/gopher-lua/ast"

// MaxDepth bounds how deeply a chunk's blocks, functions and
// expressions nest. gopher-lua's compiler recurses once per level, and
// takes time quadratic in the depth of nested blocks: without a bound a
// script of a few megabytes of "not not not ..." overflows the Go stack
// (a fatal error no recover catches: the whole game stops), and a megabyte
// of nested "do ... end" takes minutes to compile. PUC Lua 5.1 refuses past
// 200 levels ("chunk has too many syntax levels"); 1000 leaves room for
// long left-associative chains (a + b + c + ...), which gopher-lua nests.
const MaxDepth = 1000

// TooDeep reports whether a chunk nests deeper than MaxDepth, and the line
// of the first node found past it (0 when the node has no line). It walks
// the tree with its own stack, so it cannot overflow Go's.
//
// It is long because it is one switch over the node kinds of the syntax
// tree, each case a line or two.
func TooDeep(chunk []ast.Stmt) (line int, deep bool) {
	type item struct {
		node  any
		depth int
	}
	stack := make([]item, 0, 64)
	pushStmts := func(list []ast.Stmt, depth int) {
		for _, s := range list {
			stack = append(stack, item{s, depth})
		}
	}
	pushExprs := func(depth int, list ...ast.Expr) {
		for _, e := range list {
			if e != nil {
				stack = append(stack, item{e, depth})
			}
		}
	}
	pushStmts(chunk, 1)
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > MaxDepth {
			if p, ok := it.node.(ast.PositionHolder); ok {
				line = p.Line()
			}
			return line, true
		}
		d := it.depth + 1
		switch n := it.node.(type) {
		case *ast.AssignStmt:
			pushExprs(d, n.Lhs...)
			pushExprs(d, n.Rhs...)
		case *ast.LocalAssignStmt:
			pushExprs(d, n.Exprs...)
		case *ast.FuncCallStmt:
			pushExprs(d, n.Expr)
		case *ast.DoBlockStmt:
			pushStmts(n.Stmts, d)
		case *ast.WhileStmt:
			pushExprs(d, n.Condition)
			pushStmts(n.Stmts, d)
		case *ast.RepeatStmt:
			pushExprs(d, n.Condition)
			pushStmts(n.Stmts, d)
		case *ast.IfStmt:
			pushExprs(d, n.Condition)
			pushStmts(n.Then, d)
			pushStmts(n.Else, d) // elseif chains nest here, as gopher-lua compiles them
		case *ast.NumberForStmt:
			pushExprs(d, n.Init, n.Limit, n.Step)
			pushStmts(n.Stmts, d)
		case *ast.GenericForStmt:
			pushExprs(d, n.Exprs...)
			pushStmts(n.Stmts, d)
		case *ast.FuncDefStmt:
			if n.Name != nil {
				pushExprs(d, n.Name.Func, n.Name.Receiver)
			}
			if n.Func != nil {
				stack = append(stack, item{n.Func, d})
			}
		case *ast.ReturnStmt:
			pushExprs(d, n.Exprs...)
		case *ast.AttrGetExpr:
			pushExprs(d, n.Object, n.Key)
		case *ast.TableExpr:
			for _, f := range n.Fields {
				if f != nil {
					pushExprs(d, f.Key, f.Value)
				}
			}
		case *ast.FuncCallExpr:
			pushExprs(d, n.Func, n.Receiver)
			pushExprs(d, n.Args...)
		case *ast.LogicalOpExpr:
			pushExprs(d, n.Lhs, n.Rhs)
		case *ast.RelationalOpExpr:
			pushExprs(d, n.Lhs, n.Rhs)
		case *ast.StringConcatOpExpr:
			pushExprs(d, n.Lhs, n.Rhs)
		case *ast.ArithmeticOpExpr:
			pushExprs(d, n.Lhs, n.Rhs)
		case *ast.UnaryMinusOpExpr:
			pushExprs(d, n.Expr)
		case *ast.UnaryNotOpExpr:
			pushExprs(d, n.Expr)
		case *ast.UnaryLenOpExpr:
			pushExprs(d, n.Expr)
		case *ast.FunctionExpr:
			pushStmts(n.Stmts, d)
		}
	}
	return 0, false
}
