package luabind

// The `..` operator under the string cap.
//
// gopher-lua joins strings for `..` inside its VM loop, with no hook: a
// script doubling a string (s = s .. s) makes 16 MiB, then 32, 64, … in
// single allocations that neither the time budget nor the memory limit can
// stop in time (one join of a 128 MiB string is one instruction). The
// compile step therefore turns every concatenation into a call of a Go
// function, cat, that refuses results over Options.MaxString as the string
// library does, and otherwise means what `..` means: right to left, numbers
// converted, runs of strings joined at once, the __concat metamethod for
// anything else, and gopher-lua's own error message for a value that
// cannot be joined.
//
// The function reaches every chunk as a local declared first in the chunk
// (catLocal: a name no script can write), read from a global no script
// needs (catGlobal). A mod that replaces that global in its own globals
// only changes what its later chunks call, and whatever it installs can
// only build strings through functions that are capped too.

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

const (
	catLocal  = "(luaai concat)"
	catGlobal = "luaai concat"
)

// rewriteConcat replaces every `..` of the chunk by a call of cat.
func rewriteConcat(chunk []ast.Stmt) []ast.Stmt {
	c := &concatRewriter{}
	c.stmts(chunk)
	if !c.used {
		return chunk
	}
	decl := &ast.LocalAssignStmt{Names: []string{catLocal}, Exprs: []ast.Expr{&ast.IdentExpr{Value: catGlobal}}}
	return append([]ast.Stmt{decl}, chunk...)
}

type concatRewriter struct{ used bool }

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
	call := &ast.FuncCallExpr{Func: &ast.IdentExpr{Value: catLocal}, Args: args}
	call.SetLine(e.Line())
	call.SetLastLine(e.LastLine())
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

// catFunction is `..` over its arguments (at least two), refusing results
// over max bytes. VMs install it as the global catGlobal; a bare
// gopher-lua state running compiled chunks needs it too (OpenConcat).
func catFunction(max int) lua.LGFunction {
	return func(L *lua.LState) int { return cat(L, max) }
}

// OpenConcat installs what compiled chunks call for `..` into a Lua state
// that is not a VM (a bare gopher-lua state running Compile's output), with
// the default string cap.
func OpenConcat(L *lua.LState) {
	L.SetGlobal(catGlobal, L.NewFunction(catFunction(DefaultMaxString)))
}

func cat(L *lua.LState, max int) int {
	n := L.GetTop()
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
			op := L.GetMetaField(lhs, "__concat")
			if op == lua.LNil {
				op = L.GetMetaField(rhs, "__concat")
			}
			if op.Type() != lua.LTFunction {
				L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
			}
			L.Push(op)
			L.Push(lhs)
			L.Push(rhs)
			L.Call(2, 1)
			rhs = L.Get(-1)
			L.Pop(1)
			i--
			continue
		}
		// A run of joinable values, from i down to j+1, then rhs.
		j := i
		size := len(lua.LVAsString(rhs))
		for j >= 1 && lua.LVCanConvToString(L.Get(j)) {
			size += len(lua.LVAsString(L.Get(j)))
			j--
		}
		if size > max {
			raiseTooLong(L, "string concatenation (..)", float64(size), max)
		}
		var b strings.Builder
		b.Grow(size)
		for k := j + 1; k <= i; k++ {
			b.WriteString(lua.LVAsString(L.Get(k)))
		}
		b.WriteString(lua.LVAsString(rhs))
		rhs = lua.LString(b.String())
		i = j
	}
	L.Push(rhs)
	return 1
}
