package dialect

// Which statements gopher-lua would miscompile.

import (
	"strconv"

	"github.com/yuin/gopher-lua/ast"
)

// mayRunCode reports whether evaluating e may run code other than e itself
// (a call, a metamethod, an __index on _G) or raise an error.
func (r *dlResolver) mayRunCode(e ast.Expr) bool {
	switch x := e.(type) {
	case nil, *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr, *ast.NumberExpr, *ast.StringExpr,
		*ast.Comma3Expr, *ast.FunctionExpr:
		return false
	case *ast.IdentExpr:
		return r.refs[x] == nil // a global read goes through _G
	case *ast.UnaryNotOpExpr:
		return r.mayRunCode(x.Expr)
	case *ast.LogicalOpExpr:
		return r.mayRunCode(x.Lhs) || r.mayRunCode(x.Rhs)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if r.mayRunCode(f.Key) || r.mayRunCode(f.Value) {
				return true
			}
		}
		return false
	}
	return true
}

// It is long because it is one switch over the statement and expression
// kinds of the syntax tree, each case a line or two.
func (r *dlResolver) needsRewrite(site dlAssignSite) bool {
	s, fn := site.stmt, site.fn
	// Subexpressions evaluated by the statement: the right-hand sides and
	// the tables and keys of indexed targets.
	var evaluated []ast.Expr
	stores := false // a store that may run code (__newindex)
	for _, l := range s.Lhs {
		switch l := l.(type) {
		case *ast.AttrGetExpr:
			evaluated = append(evaluated, l.Object, l.Key)
			stores = true
		case *ast.IdentExpr:
			if r.refs[l] == nil {
				stores = true
			}
		default:
			return false // not an assignable expression; leave it to the compiler
		}
	}
	evaluated = append(evaluated, s.Rhs...)
	for k, l := range s.Lhs {
		v := r.local(l, fn)
		if v == nil || k >= len(s.Rhs) {
			continue
		}
		if r.logicalMiscompiled(s.Rhs[k], v, fn) {
			return true
		}
		// 3: a call whose one result goes to the last parameter is compiled
		// in place, from that parameter's register up, over the locals
		// declared after it and the values computed so far:
		// `function f(p) local keep = 1; p = (g()) end` loses keep.
		if c, ok := s.Rhs[k].(*ast.FuncCallExpr); ok && v.lastParam && (c.AdjustRet || k < len(s.Rhs)-1) {
			return true
		}
		// 4: `...` cut to one value for a local computes a negative register
		// count, so the next value overwrites another local: `a, g = ..., 5`
		// sets the local after a to 5, `a = (...)` crashes.
		if c, ok := s.Rhs[k].(*ast.Comma3Expr); ok && (c.AdjustRet || k < len(s.Rhs)-1) {
			return true
		}
	}
	runsCode := stores
	for _, e := range evaluated {
		if r.mayRunCode(e) {
			runsCode = true
		}
	}

	if len(s.Lhs) == 1 && len(s.Rhs) == 1 {
		// 6: t[k] = rhs with k a captured local: Lua 5.1 reads k after rhs.
		a, ok := s.Lhs[0].(*ast.AttrGetExpr)
		if !ok {
			return false
		}
		k := r.local(a.Key, fn)
		if k == nil || !k.captured {
			return false
		}
		for _, e := range s.Rhs {
			if r.mayRunCode(e) {
				return true
			}
		}
		return false
	}

	if r.shiftsRegisters(s, fn) {
		return true
	}

	targets := map[*dlVar]bool{}
	captured := false
	for _, l := range s.Lhs {
		if v := r.local(l, fn); v != nil {
			if targets[v] {
				return true // assigned twice
			}
			targets[v] = true
			captured = captured || v.captured
		}
	}
	reads := false
	for _, e := range evaluated {
		dlWalk(e, func(e ast.Expr) bool {
			id, ok := e.(*ast.IdentExpr)
			if !ok {
				return true
			}
			v := r.refs[id]
			if v == nil {
				return true
			}
			if targets[v] {
				reads = true
			}
			if v.fn == fn && v.captured {
				captured = true
			}
			return true
		})
	}
	if reads {
		return true
	}
	return captured && runsCode
}

// logicalMiscompiled reports miscompile 5 (see the top of the file): an
// and/or expression e assigned to an existing local v is compiled straight
// into v's register (compileLogicalOpExpr, compileLogicalOpExprAux), and
// two of its operand shapes go wrong there:
//
//   - An operand whose false or nil value would be the result (the left
//     side of an and, roughly) is tested with TEST instead of TESTSET, so
//     that value never reaches v, which keeps its old value:
//     `x = t.missing and 1` leaves x as it was instead of setting nil.
//   - An operand whose true value only decides where to go next, as b in
//     `x = ((a and b) or c) and x`, is copied into v by TESTSET before the
//     rest is evaluated, so a later operand that reads v (or a function
//     that reads it through an upvalue) sees that value instead of v's.
//
// A constant or a comparison is compiled differently and is fine, as is a
// local variable for the first shape, and any and/or in a `local`
// statement (a fresh register).
func (r *dlResolver) logicalMiscompiled(e ast.Expr, v *dlVar, fn *dlFunc) bool {
	top, ok := e.(*ast.LogicalOpExpr)
	if !ok {
		return false
	}
	loses, early := false, false
	// tE, fE: the operand's then/else label is the end of the expression;
	// h: another condition follows (compileLogicalOpExprAux's hasnextcond).
	var aux func(e ast.Expr, tE, fE, h bool)
	aux = func(e ast.Expr, tE, fE, h bool) {
		switch x := e.(type) {
		case *ast.LogicalOpExpr:
			if x.Operator == "and" {
				aux(x.Lhs, false, fE, false)
			} else {
				aux(x.Lhs, tE, false, true)
			}
			aux(x.Rhs, tE, fE, h)
			return
		case *ast.RelationalOpExpr:
			return
		}
		if dlIsConst(e) {
			return
		}
		if h && !tE {
			early = true // TESTSET into v, then on to another operand
		}
		if !h && fE && !tE && r.local(e, fn) == nil {
			loses = true // TEST: a false result never reaches v
		}
	}
	if top.Operator == "and" {
		aux(top.Lhs, false, true, false)
	} else {
		aux(top.Lhs, true, false, true)
	}
	aux(top.Rhs, true, true, false)
	if loses {
		return true
	}
	if !early {
		return false
	}
	if v.captured && r.mayRunCode(e) {
		return true
	}
	reads := false
	dlWalk(e, func(e ast.Expr) bool {
		if id, ok := e.(*ast.IdentExpr); ok && r.refs[id] == v {
			reads = true
		}
		return true
	})
	return reads
}

// forNeedsHoist: gopher-lua compiles the header of a for (the numeric
// bounds, a generic for's expression list) after declaring the loop's hidden
// locals, which turns off the register reuse it does elsewhere: a local
// operand is copied when it is reached, not read when the operator runs.
// When something later in the header changes that local through an upvalue
// (`for i = n + f(), 10` with f assigning n), gopher-lua uses the old value
// and PUC Lua 5.1 the new one. Lua leaves the order unspecified, but the
// fix is cheap: such a header is evaluated by a `local` statement first,
// as everywhere else (see dlHoistFor). Only headers that read a captured
// local of the function and can run code qualify.
func (r *dlResolver) forNeedsHoist(site dlAssignSite) bool {
	var header []ast.Expr
	switch s := (*site.slot).(type) {
	case *ast.NumberForStmt:
		header = []ast.Expr{s.Init, s.Limit, s.Step}
	case *ast.GenericForStmt:
		header = s.Exprs
	}
	reads, runs := false, false
	for _, e := range header {
		if r.mayRunCode(e) {
			runs = true
		}
		dlWalk(e, func(e ast.Expr) bool {
			if id, ok := e.(*ast.IdentExpr); ok {
				if v := r.refs[id]; v != nil && v.fn == site.fn && v.captured {
					reads = true
				}
			}
			return true
		})
	}
	return reads && runs
}

// dlHoistFor turns `for i = a, b, c do ... end` into
// `do local (loop 1), (loop 2), (loop 3) = a, b, c; for i = (loop 1),
// (loop 2), (loop 3) do ... end end`, and a generic for likewise (three
// values, as its expression list is adjusted to three).
func dlHoistFor(st ast.Stmt) ast.Stmt {
	decl := &ast.LocalAssignStmt{}
	decl.SetLine(st.Line())
	temp := func(e ast.Expr, pos ast.PositionHolder) ast.Expr {
		name := "(loop " + strconv.Itoa(len(decl.Names)+1) + ")"
		decl.Names = append(decl.Names, name)
		if e != nil {
			decl.Exprs = append(decl.Exprs, e)
		}
		return dlIdent(name, pos)
	}
	switch s := st.(type) {
	case *ast.NumberForStmt:
		s.Init, s.Limit = temp(s.Init, s.Init), temp(s.Limit, s.Limit)
		if s.Step != nil {
			s.Step = temp(s.Step, s.Step)
		}
	case *ast.GenericForStmt:
		exprs := s.Exprs
		s.Exprs = []ast.Expr{temp(nil, st), temp(nil, st), temp(nil, st)}
		decl.Exprs = exprs
	}
	block := &ast.DoBlockStmt{Stmts: []ast.Stmt{decl, st}}
	block.SetLine(st.Line())
	block.SetLastLine(st.LastLine())
	return block
}

// shiftsRegisters reports miscompile 2 (see the top of the file), in
// gopher-lua 1.1.2's compileAssignStmt: when the value of a table target is a plain local, it
// stores from that local's register without reserving one, yet still steps
// the register counter back after the store, so every target to its left
// that is stored from that counter (a global, an upvalue, a local whose
// value was computed in a register of its own) gets the value meant for the
// target before it, or the table key: `g, t.a = g, x` sets g to "a".
func (r *dlResolver) shiftsRegisters(s *ast.AssignStmt, fn *dlFunc) bool {
	counted := false // a target so far that is stored from the counter
	for k, l := range s.Lhs {
		switch l := l.(type) {
		case *ast.IdentExpr:
			if r.local(l, fn) == nil || k >= len(s.Rhs) || !dlInPlace(s.Rhs[k]) {
				counted = true
			}
		case *ast.AttrGetExpr:
			if counted && k < len(s.Rhs) && r.local(s.Rhs[k], fn) != nil {
				return true
			}
		}
	}
	return false
}

// dlInPlace: gopher-lua compiles e straight into a local target's register
// (compileExpr returns 0 registers used), so the store needs no move.
func dlInPlace(e ast.Expr) bool {
	switch e.(type) {
	case *ast.FuncCallExpr, *ast.TableExpr, *ast.Comma3Expr, *ast.FunctionExpr:
		return false
	}
	return true
}

func dlTempName(n int) string { return "(assign " + strconv.Itoa(n) + ")" }

func dlSetPos(dst, src ast.PositionHolder) {
	dst.SetLine(src.Line())
	dst.SetLastLine(src.LastLine())
}

func dlIdent(name string, pos ast.PositionHolder) *ast.IdentExpr {
	id := &ast.IdentExpr{Value: name}
	dlSetPos(id, pos)
	return id
}
