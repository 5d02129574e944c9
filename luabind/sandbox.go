package luabind

// The sandbox, beyond the library whitelist of openLibs (vm.go).
//
// What a script can reach, and what it cannot (sandbox_test.go has a test
// for each):
//
//   - No io, no debug, no os beyond os.time, os.clock and os.date, no
//     dofile, loadfile, getfenv, setfenv, collectgarbage, module, newproxy,
//     string.dump, package.loadlib; package has only the (unused) loaded
//     and preload tables.
//   - load and loadstring compile source text only: a reader function or
//     any other value is refused with an error. Chunk names a script gives
//     are shown with a "=" prefix so a loaded chunk cannot pose as a file
//     elsewhere on disk (require and ai.spawn resolve names next to the
//     calling file).
//   - require resolves names inside the folder of the calling script and
//     the configured roots only (VM.Resolve): no absolute paths, no "..".
//   - setmetatable takes a table as its first argument, as in Lua 5.1.
//     gopher-lua would otherwise let setmetatable(0, mt) or
//     setmetatable("", mt) replace the metatable of every number or string
//     in the VM.
//   - The string metatable is its own table, {__index = string,
//     __metatable = "string"}: getmetatable("") returns the string "string",
//     and methods ("x"):rep(3) still find the string table. The string
//     table, like the other libraries and luaai, is read-only to scripts,
//     and every behaviour file has globals of its own (isolation.go).
//   - Strings are capped at Options.MaxString bytes (16 MiB by default):
//     string.rep, string.format, string.char, string.gsub and table.concat
//     refuse, with a Lua error, to build a longer one. string.rep and
//     string.format know the size before they build anything;
//     string.gsub and table.concat build into a buffer that stops at the
//     limit. The `..` operator is a VM instruction gopher-lua gives no hook
//     for: a loop doubling a string (s = s .. s) is stopped by the time
//     budget (budget.go), not by the cap, and one expression can still
//     join a few hundred capped strings.
//   - Pattern matching (string.find, match, gmatch, gsub) runs on luaai's
//     own Lua 5.1 matcher (internal/pattern, used by patterns.go), which
//     counts its steps and stops when the running call's budget is over:
//     gopher-lua's engine can run for minutes on a short pattern out of
//     the budget's reach. gsub builds its result in one pass and gmatch
//     finds its matches one at a time.
//   - math.random uses the running agent's generator during a tick
//     (Runner.Rand) and a VM-level PCG seeded from Options.Seed outside a
//     tick; math.randomseed does nothing (the host seeds the generators;
//     a script reseeding would break replays). os.time, os.date and
//     os.clock read Options.Now when it is set (os.clock: seconds since its
//     first call). So runs replay.
//   - Compile refuses chunks nested more than 1000 levels deep
//     (checkSyntaxDepth): gopher-lua's compiler would overflow the Go stack,
//     a fatal error, on a few megabytes of "not not not ...".
//   - coroutine.resume pads its arguments so that a yield never hands
//     its caller a Go nil (fixYieldResults, a gopher-lua bug).
//
// The limits of the Lua state itself (NewVM): 512 nested calls (deeper
// recursion is a "stack overflow" error) and a value stack of up to 1M
// slots (beyond: "registry overflow"), grown in large steps so that
// reaching the limit takes milliseconds rather than the minutes gopher-lua's
// default step of 32 slots would take.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// DefaultMaxString is the string size cap when Options.MaxString is zero.
const DefaultMaxString = 16 << 20

// guard is a VM's sandbox state.
type guard struct {
	bud       *budget    // nil when neither Budget nor LoadBudget is set
	rng       *rand.Rand // math.random outside a tick
	maxString int
	coDepth   int         // coroutines being resumed inside each other
	compiling atomic.Bool // a load() compile abandoned by a stop is running
	closed    bool        // VM.Close ran
}

// harden finishes the sandbox openLibs starts: it is called once, at the
// end of openLibs.
func (vm *VM) harden() {
	L := vm.L
	g := &vm.guard
	g.maxString = vm.opts.MaxString
	if g.maxString <= 0 {
		g.maxString = DefaultMaxString
	}
	seed := vm.opts.Seed
	g.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g.bud = newBudget(vm.opts.Budget, vm.opts.LoadBudget, vm.opts.MemoryLimit)
	if g.bud != nil {
		L.SetContext(&g.bud.ctx)
	}

	G := L.G.Global
	G.RawSetString("setmetatable", L.NewFunction(sbSetMetatable(G.RawGetString("setmetatable"))))

	str, _ := G.RawGetString(lua.StringLibName).(*lua.LTable)
	if str != nil {
		str.RawSetString("dump", lua.LNil)
		str.RawSetString("__index", lua.LNil)
		for name, fn := range map[string]lua.LGFunction{
			"rep":    vm.strRep,
			"char":   vm.strChar,
			"format": vm.strFormat(str.RawGetString("format")),
			"find":   vm.strFind,
			"match":  vm.strMatch,
			"gmatch": vm.strGmatch,
			"gfind":  vm.strGmatch,
			"gsub":   vm.strGsub,
		} {
			str.RawSetString(name, L.NewFunction(fn))
		}
		mt := L.NewTable()
		mt.RawSetString("__index", str)
		mt.RawSetString("__metatable", lua.LString("string"))
		L.SetMetatable(lua.LString(""), mt)
	}
	if tab, ok := G.RawGetString(lua.TabLibName).(*lua.LTable); ok {
		tab.RawSetString("concat", L.NewFunction(vm.tableConcat))
	}
	if m, ok := G.RawGetString(lua.MathLibName).(*lua.LTable); ok {
		m.RawSetString("random", L.NewFunction(vm.mathRandom))
		m.RawSetString("randomseed", L.NewFunction(func(*lua.LState) int { return 0 }))
	}
	if vm.opts.Now != nil {
		if osT, ok := G.RawGetString("os").(*lua.LTable); ok {
			var start time.Time // the first call: Now may not be ready while NewVM runs
			osT.RawSetString("clock", L.NewFunction(func(L *lua.LState) int {
				now := vm.now()
				if start.IsZero() {
					start = now
				}
				L.Push(lua.LNumber(now.Sub(start).Seconds()))
				return 1
			}))
		}
	}
	if co, ok := G.RawGetString(lua.CoroutineLibName).(*lua.LTable); ok {
		vm.fixYieldResults(co)
	}
	if co, ok := G.RawGetString(lua.CoroutineLibName).(*lua.LTable); ok && g.bud != nil {
		ctx := &g.bud.ctx
		if create, ok := co.RawGetString("create").(*lua.LFunction); ok && create.IsG {
			gf := create.GFunction
			co.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
				n := gf(L)
				if th, ok := L.Get(-1).(*lua.LState); ok {
					th.SetContext(ctx)
				}
				return n
			}))
		}
		if wrap, ok := co.RawGetString("wrap").(*lua.LFunction); ok && wrap.IsG {
			gf := wrap.GFunction
			co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
				n := gf(L)
				if fn, ok := L.Get(-1).(*lua.LFunction); ok && len(fn.Upvalues) > 0 && fn.Upvalues[0] != nil {
					if th, ok := fn.Upvalues[0].Value().(*lua.LState); ok {
						th.SetContext(ctx)
					}
				}
				return n
			}))
		}
	}
}

// fixYieldResults works around a gopher-lua bug: `local a, b =
// coroutine.yield()` resumed with fewer values than it assigns leaves the
// missing ones as Go nil, not Lua nil (the registers above the top were
// cleared to Go nil when the coroutine yielded). A Go nil stored in a table
// crashes whatever Go code reads it next, the host's included. resume and
// the functions wrap returns pad their arguments with nil up to what the
// pending yield call expects.
//
// Both also count how deeply coroutines are resumed inside each other: at
// most maxCoroutineDepth, since every level is a Go call with a Lua stack
// of its own, and a script nesting them without end would make the budget's
// stop unwind for seconds.
func (vm *VM) fixYieldResults(co *lua.LTable) {
	L := vm.L
	if resume, ok := co.RawGetString("resume").(*lua.LFunction); ok && resume.IsG {
		gf := resume.GFunction
		co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
			if th, ok := L.Get(1).(*lua.LState); ok {
				padResume(L, th, 2)
			}
			vm.enterCoroutine(L)
			defer vm.leaveCoroutine()
			return gf(L)
		}))
	}
	if wrap, ok := co.RawGetString("wrap").(*lua.LFunction); ok && wrap.IsG {
		gf := wrap.GFunction
		co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
			n := gf(L)
			fn, ok := L.Get(-1).(*lua.LFunction)
			if !ok || !fn.IsG || len(fn.Upvalues) != 1 || fn.Upvalues[0] == nil {
				return n
			}
			th, ok := fn.Upvalues[0].Value().(*lua.LState)
			if !ok {
				return n
			}
			aux := fn.GFunction // reads the thread from upvalue 1: keep it there
			L.Pop(1)
			L.Push(L.NewClosure(func(L *lua.LState) int {
				padResume(L, th, 1)
				vm.enterCoroutine(L)
				defer vm.leaveCoroutine()
				return aux(L)
			}, th))
			return n
		}))
	}
}

// maxCoroutineDepth bounds coroutines resumed inside each other.
const maxCoroutineDepth = 200

func (vm *VM) enterCoroutine(L *lua.LState) {
	if vm.guard.coDepth >= maxCoroutineDepth {
		L.RaiseError("coroutines resumed inside each other more than %d deep", maxCoroutineDepth)
	}
	vm.guard.coDepth++
}

func (vm *VM) leaveCoroutine() { vm.guard.coDepth-- }

// padResume pushes nils after the resume arguments (from index first) up
// to the number of results th's pending coroutine.yield call expects.
func padResume(L *lua.LState, th *lua.LState, first int) {
	for have, want := L.GetTop()-first+1, pendingYieldResults(th); have < want; have++ {
		L.Push(lua.LNil)
	}
}

var yieldFields struct {
	once      sync.Once
	frame     []int // LState.currentFrame
	fn, pc    []int // callFrame.Fn, callFrame.Pc
	available bool
}

// pendingYieldResults is how many results the call th is suspended in
// expects: 0 when th has not started, is not suspended in a Lua call, or
// takes any number. gopher-lua keeps this unexported; reflection reads it
// (and finds nothing, so pads nothing, if the fields ever change).
func pendingYieldResults(th *lua.LState) int {
	f := &yieldFields
	f.once.Do(func() {
		st, ok := reflect.TypeOf(lua.LState{}).FieldByName("currentFrame")
		if !ok || st.Type.Kind() != reflect.Pointer || st.Type.Elem().Kind() != reflect.Struct {
			return
		}
		fn, ok1 := st.Type.Elem().FieldByName("Fn")
		pc, ok2 := st.Type.Elem().FieldByName("Pc")
		if !ok1 || !ok2 || fn.Type != reflect.TypeOf((*lua.LFunction)(nil)) || pc.Type.Kind() != reflect.Int {
			return
		}
		f.frame, f.fn, f.pc, f.available = st.Index, fn.Index, pc.Index, true
	})
	if !f.available {
		return 0
	}
	v := reflect.ValueOf(th).Elem().FieldByIndex(f.frame)
	if v.IsNil() {
		return 0
	}
	frame := reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Elem()
	fn, _ := frame.FieldByIndex(f.fn).Interface().(*lua.LFunction)
	pc := int(frame.FieldByIndex(f.pc).Int())
	if fn == nil || fn.IsG || fn.Proto == nil || pc < 1 || pc > len(fn.Proto.Code) {
		return 0
	}
	inst := fn.Proto.Code[pc-1]
	if int(inst>>26) != lua.OP_CALL {
		return 0
	}
	return int(inst>>9)&0x1ff - 1 // C-1 results; C == 0 (any number) gives -1
}

// sbSetMetatable is setmetatable restricted to tables.
func sbSetMetatable(orig lua.LValue) lua.LGFunction {
	fn, _ := orig.(*lua.LFunction)
	return func(L *lua.LState) int {
		if L.Get(1).Type() != lua.LTTable {
			L.ArgError(1, "table expected, got "+L.Get(1).Type().String())
		}
		if fn == nil || !fn.IsG {
			L.RaiseError("setmetatable is not available")
		}
		return fn.GFunction(L)
	}
}

// chunkName is the name a chunk loaded by load/loadstring runs under: what
// the script asked for, behind a "=" so that it is never taken for a file.
func chunkName(name string) string {
	if strings.HasPrefix(name, "=") {
		return name
	}
	return "=" + name
}

// tooLong raises the error of a string over the cap.
func (vm *VM) tooLong(L *lua.LState, fn string, size float64) {
	raiseTooLong(L, fn, size, vm.guard.maxString)
}

func raiseTooLong(L *lua.LState, fn string, size float64, max int) {
	if size >= 1<<53 || math.IsInf(size, 0) {
		L.RaiseError("%s: the result would be more than the %d-byte limit on strings", fn, max)
	}
	L.RaiseError("%s: the result would be %.0f bytes, more than the %d-byte limit on strings", fn, size, max)
}

// checkBudget raises the budget error when the running call has been
// stopped; Go loops that may run long call it now and then.
func (vm *VM) checkBudget(L *lua.LState) {
	if b := vm.guard.bud; b.expired() {
		L.RaiseError("%s", b.stopMessage())
	}
}

func (vm *VM) strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := math.Trunc(float64(L.CheckNumber(2)))
	if n <= 0 || s == "" || math.IsNaN(n) {
		L.Push(lua.LString(""))
		return 1
	}
	if size := float64(len(s)) * n; size > float64(vm.guard.maxString) {
		vm.tooLong(L, "string.rep", size)
	}
	L.Push(lua.LString(strings.Repeat(s, int(n))))
	return 1
}

func (vm *VM) strChar(L *lua.LState) int {
	n := L.GetTop()
	if n > vm.guard.maxString {
		vm.tooLong(L, "string.char", float64(n))
	}
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := L.CheckInt(i)
		if c < 0 || c > 255 {
			L.ArgError(i, "invalid value")
		}
		b[i-1] = byte(c)
	}
	L.Push(lua.LString(b))
	return 1
}

// strFormat checks a format before gopher-lua's string.format runs it: a
// width or precision is at most two digits, as in Lua 5.1, and the result,
// bounded from the format and the lengths of the arguments, fits the cap.
// (Go's fmt would pad "%999999s" to a megabyte.)
func (vm *VM) strFormat(orig lua.LValue) lua.LGFunction {
	fn, _ := orig.(*lua.LFunction)
	return func(L *lua.LState) int {
		f := L.CheckString(1)
		size := float64(len(f))
		arg := 2
		for i := 0; i < len(f); i++ {
			if f[i] != '%' {
				continue
			}
			i++
			if i < len(f) && f[i] == '%' {
				continue
			}
			for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
				i++
			}
			digits := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i, digits = i+1, digits+1
			}
			if i < len(f) && f[i] == '.' {
				i++
				pd := 0
				for i < len(f) && f[i] >= '0' && f[i] <= '9' {
					i, pd = i+1, pd+1
				}
				if pd > digits {
					digits = pd
				}
			}
			if digits > 2 {
				L.RaiseError("invalid format (width or precision too long)")
			}
			if i >= len(f) {
				break
			}
			est := 512.0 // any number in any format with width and precision <= 99
			if s, ok := L.Get(arg).(lua.LString); ok && (f[i] == 's' || f[i] == 'q') {
				est = 4*float64(len(s)) + 104
			}
			size += est
			arg++
		}
		if size > float64(vm.guard.maxString) {
			vm.tooLong(L, "string.format", size)
		}
		if fn == nil || !fn.IsG {
			L.RaiseError("string.format is not available")
		}
		return fn.GFunction(L)
	}
}

// tableConcat is table.concat with gopher-lua's argument handling, built
// in one buffer that stops at the cap (gopher-lua pushes every element and
// separator on the value stack first, so 600,000 elements overflow it).
func (vm *VM) tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	n := t.Len()
	i := L.OptInt(3, 1)
	j := L.OptInt(4, n)
	if L.GetTop() == 3 && (i > n || i < 1) {
		L.Push(lua.LString(""))
		return 1
	}
	if i > n {
		i = n
	}
	if i < 1 {
		i = 1
	}
	if j > n {
		j = n
	}
	if i > j {
		L.Push(lua.LString(""))
		return 1
	}
	max := vm.guard.maxString
	var b strings.Builder
	for k := i; k <= j; k++ {
		var s string
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = v.String()
		default:
			L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
		}
		add := len(s)
		if k != j {
			add += len(sep)
		}
		if b.Len()+add > max {
			vm.tooLong(L, "table.concat", float64(b.Len()+add))
		}
		b.WriteString(s)
		if k != j {
			b.WriteString(sep)
		}
		if k&4095 == 0 {
			vm.checkBudget(L)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// mathRandom is Lua 5.1's math.random on the running agent's generator, or
// the VM's outside a tick.
func (vm *VM) mathRandom(L *lua.LState) int {
	rng := vm.guard.rng
	if vm.runner != nil {
		if r := vm.runner.Rand(); r != nil {
			rng = r
		}
	}
	return pushRandom(L, rng)
}

// pushRandom implements math.random's three forms on rng: () in [0,1),
// (m) in [1,m], (m,n) in [m,n]. Bounds are truncated to integers, as Lua
// 5.1 does, and must be within ±2^53.
func pushRandom(L *lua.LState, rng *rand.Rand) int {
	bound := func(n int) int64 {
		f := math.Trunc(float64(L.CheckNumber(n)))
		if !(f >= -(1<<53) && f <= 1<<53) {
			L.ArgError(n, "interval is too large")
		}
		return int64(f)
	}
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(rng.Float64()))
	case 1:
		m := bound(1)
		if m < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(1 + rng.Int64N(m)))
	case 2:
		m, n := bound(1), bound(2)
		if m > n {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(m + rng.Int64N(n-m+1)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

// maxSyntaxDepth bounds how deeply a chunk's blocks, functions and
// expressions nest. gopher-lua's compiler recurses once per level, and
// takes time quadratic in the depth of nested blocks: without a bound a
// script of a few megabytes of "not not not ..." overflows the Go stack
// (a fatal error no recover catches: the whole game stops), and a megabyte
// of nested "do ... end" takes minutes to compile. PUC Lua 5.1 refuses past
// 200 levels ("chunk has too many syntax levels"); 1000 leaves room for
// long left-associative chains (a + b + c + ...), which gopher-lua nests.
const maxSyntaxDepth = 1000

// checkSyntaxDepth refuses a chunk nested deeper than maxSyntaxDepth. It
// walks the tree with its own stack, so it cannot overflow Go's.
func checkSyntaxDepth(chunk []ast.Stmt, name string) error {
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
		if it.depth > maxSyntaxDepth {
			line := 0
			if p, ok := it.node.(ast.PositionHolder); ok {
				line = p.Line()
			}
			return ErrorList{{Pos: Pos{File: name, Line: line}, Msg: fmt.Sprintf("chunk has too many syntax levels (blocks, functions and expressions nested more than %d deep)", maxSyntaxDepth)}}
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
	return nil
}
