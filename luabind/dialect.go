package luabind

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// This file is luaai's AST pass between parse.Parse and lua.Compile
// (Compile in vm.go, so behaviours, modules, test files, hot reloads and
// load/loadstring all get it). gopher-lua 1.1.2 compiles some statements
// with other than Lua 5.1 semantics; the pass rewrites exactly those into
// equivalent Lua that it compiles correctly, and leaves every other
// statement as the parser made it (the same bytecode as without the pass).
// Each kind below was found by, and is kept in, the differential tests
// against PUC Lua 5.1 (dialect_diff_test.go, testdata/dialect).
//
// Assignments (AssignStmt) with more than one target or value:
//
//  1. Order (yuin/gopher-lua#440, #158, #315). Lua 5.1 (manual §2.4.3)
//     evaluates every expression before it assigns anything; gopher-lua
//     writes each value straight into the register of a local target, so a
//     later value, or a table or key on the left, reads the new value:
//     `a, b = b, a` gives 2 2. Likewise when a call on the right reads or
//     writes a captured local target through an upvalue, or raises an error
//     after half the targets were written.
//  2. Register shift: when the value of a table target is a plain local,
//     gopher-lua stores from that local's register but still steps its
//     register counter back, so targets to the left stored from the counter
//     get the wrong value: `g, t.a = g, x` sets g to the string "a".
//  3. A call whose single result goes to the last parameter (`p = (f())`,
//     `p, q = f(), 1`) is compiled in place from that parameter's register
//     up, over the locals declared after it.
//  4. `...` cut to one value for a local (`a, g = ..., 1`, `a = (...)`)
//     counts registers wrongly: the next value overwrites another local, or
//     the VM crashes on a register never written.
//
// and in any assignment:
//
//  5. and/or into an existing local x: when the left operand of an and is
//     neither a local nor a constant and is false or nil, that value never
//     reaches x, which keeps its old value (`x = t.missing and 1`); and an
//     operand that only decides where to go next is copied into x before a
//     later operand reads x (`x = ((a and b) or c) and x`).
//  6. `t[k] = f()` with k a local captured by a closure: Lua 5.1 reads k
//     after f runs, gopher-lua before.
//
// Such an assignment becomes
//
//	do
//	  local (assign 1), ..., (assign n) = <tables/keys on the left>, <values>
//	  target_last = (assign n) ... target_1 = (assign k)
//	end
//
// which does what PUC Lua 5.1's code generator does, step by step: the
// table and key expressions of indexed targets first, left to right (a
// plain local or a constant is used as is at the store, as PUC uses its
// register; but when a local target further right is that local, its value
// is copied at that point, like PUC's check_conflict), then the values left
// to right through one `local` statement (which gopher-lua gets right:
// multiple results of a final call or `...`, nil for missing values, extra
// expressions evaluated), then the targets assigned last to first (so
// `a, a = 1, 2` leaves 1), each by a single assignment. The names
// "(assign N)" cannot be written in a script, so they shadow nothing, and
// the do block ends their scope with the statement, so they count against
// the 200-locals limit only while it runs. Every node created takes its
// line from the node it stands for, so errors keep their file:line.
//
// Other statements:
//
//  7. `local f = function() ... f ... end`: gopher-lua binds the inner f to
//     the new local, as for `local function f`; in Lua 5.1 it is the f
//     outside (`local print = function(...) print(...) end` recursed
//     forever). When the body names f, the statement gets an extra value,
//     `local f = function() ... end, nil`, which gopher-lua compiles
//     without binding early. `local function f` is left alone (only that
//     form gets a last line from the parser).
//  8. A jump back onto a JMP (#540): see dlFixJumps.
//  9. A generic for with fewer than three values (#514): see dlPadForExprs.
// 10. A for header that reads a local which a call in the same header
//     changes through an upvalue: see forNeedsHoist.

// rewriteDialect returns chunk with the statements gopher-lua would get wrong
// rewritten (in place where it can).
func rewriteDialect(chunk []ast.Stmt) []ast.Stmt {
	chunk, _ = dialectPass(chunk)
	return chunk
}

// dlStats counts the rewrites of each kind.
type dlStats struct {
	assigns, localFuncs, loops int
}

func (s dlStats) total() int { return s.assigns + s.localFuncs + s.loops }

func dialectPass(chunk []ast.Stmt) ([]ast.Stmt, dlStats) {
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
	st := dlStats{assigns: len(todo), localFuncs: len(r.localFuncs), loops: len(fors)}
	chunk = dlFixJumps(chunk, &st.loops)
	return chunk, st
}

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

// rewrite builds the do block that stands for site.stmt.
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
