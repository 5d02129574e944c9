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
//   - Pattern matching (string.find, match, gmatch, gsub) runs on a copy of
//     gopher-lua's pattern engine (below) that counts its steps and stops
//     when the running call's budget is over: gopher-lua's own engine can
//     run for minutes on a short pattern ("a*b" against 100,000 "a"s) out
//     of the budget's reach. gsub builds its result in one pass (gopher-lua
//     copies the whole string once per match) and gmatch finds its matches
//     one at a time (gopher-lua finds them all before the first).
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
	"strconv"
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

// Pattern functions. They keep gopher-lua's behaviour except where it
// departs from Lua 5.1 in ways a script would trip on: find with an empty
// pattern and an init, find with an init past the end, match returning
// nothing instead of nil, gsub with n <= 0, "%x" in a gsub replacement, and
// replacement values that are neither strings nor numbers.

// patternFor compiles a pattern or raises its error.
func patternFor(L *lua.LState, p string) *patProgram {
	prog, err := patCompile(p)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	return prog
}

// matcher returns what the pattern engine polls to stop: the budget.
func (vm *VM) matcher(src string) *patRun {
	r := &patRun{src: src}
	if b := vm.guard.bud; b != nil {
		r.abort = b.expired
	}
	return r
}

// match runs prog at sp and raises a Lua error for pattern errors and
// budget stops.
func (vm *VM) match(L *lua.LState, r *patRun, prog *patProgram, sp int) (bool, int, *patMatch) {
	ok, end, m, err := r.matchAt(prog, sp)
	if err != nil {
		if err == errPatAborted {
			vm.checkBudget(L)
		}
		L.RaiseError("%s", err.Error())
	}
	return ok, end, m
}

// find is the first match of prog in r.src at or after init.
func (vm *VM) find(L *lua.LState, r *patRun, prog *patProgram, init int) (*patMatch, bool) {
	for sp := init; sp <= len(r.src); sp++ {
		if ok, _, m := vm.match(L, r, prog, sp); ok {
			return m, true
		}
		if prog.head {
			break
		}
	}
	return nil, false
}

// pushCaptures pushes the captures of m, or the whole match when whole is
// set and the pattern has none; it returns how many it pushed.
func pushCaptures(L *lua.LState, src string, m *patMatch, whole bool) int {
	if m.CaptureLength() == 2 {
		if !whole {
			return 0
		}
		L.Push(lua.LString(src[m.Capture(0):m.Capture(1)]))
		return 1
	}
	for i := 2; i < m.CaptureLength(); i += 2 {
		L.Push(captureValue(src, m, i))
	}
	return m.CaptureLength()/2 - 1
}

func captureValue(src string, m *patMatch, i int) lua.LValue {
	if m.IsPosCapture(i) {
		return lua.LNumber(m.Capture(i))
	}
	return lua.LString(src[m.Capture(i):m.Capture(i+1)])
}

func (vm *VM) strFind(L *lua.LState) int {
	str := L.CheckString(1)
	pattern := L.CheckString(2)
	init := luaStringIndex(str, L.OptInt(3, 1))
	if lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(pattern, "^$*+?.([%-") {
		pos := strings.Index(str[init:], pattern)
		if pos < 0 {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(init + pos + 1))
		L.Push(lua.LNumber(init + pos + len(pattern)))
		return 2
	}
	prog := patternFor(L, pattern)
	m, ok := vm.find(L, vm.matcher(str), prog, init)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(m.Capture(0) + 1))
	L.Push(lua.LNumber(m.Capture(1)))
	return 2 + pushCaptures(L, str, m, false)
}

func (vm *VM) strMatch(L *lua.LState) int {
	str := L.CheckString(1)
	prog := patternFor(L, L.CheckString(2))
	init := luaStringIndex(str, L.OptInt(3, 1))
	m, ok := vm.find(L, vm.matcher(str), prog, init)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	return pushCaptures(L, str, m, true)
}

// luaStringIndex turns find's and match's 1-based, possibly negative, init
// into a 0-based offset within [0, len(s)], as Lua 5.1 does.
func luaStringIndex(s string, i int) int {
	if i < 0 {
		i = len(s) + i + 1
	}
	if i < 1 {
		return 0
	}
	if i-1 > len(s) {
		return len(s)
	}
	return i - 1
}

func (vm *VM) strGmatch(L *lua.LState) int {
	str := L.CheckString(1)
	prog := patternFor(L, L.CheckString(2))
	r := vm.matcher(str)
	sp, done := 0, false
	L.Push(L.NewFunction(func(L *lua.LState) int {
		for !done && sp <= len(str) {
			ok, end, m := vm.match(L, r, prog, sp)
			sp++
			if prog.head {
				done = true
			}
			if ok {
				if sp < end {
					sp = end
				}
				return pushCaptures(L, str, m, true)
			}
		}
		done = true
		return 0
	}))
	return 1
}

// strGsub is string.gsub in one pass with the string cap.
func (vm *VM) strGsub(L *lua.LState) int {
	str := L.CheckString(1)
	prog := patternFor(L, L.CheckString(2))
	L.CheckTypes(3, lua.LTString, lua.LTNumber, lua.LTTable, lua.LTFunction)
	repl := L.Get(3)
	maxN := L.OptInt(4, len(str)+1)
	max := vm.guard.maxString
	r := vm.matcher(str)
	var b strings.Builder
	add := func(s string) {
		if b.Len()+len(s) > max {
			vm.tooLong(L, "string.gsub", float64(b.Len()+len(s)))
		}
		b.WriteString(s)
	}
	n := 0
	src := 0
	for n < maxN {
		ok, e, m := vm.match(L, r, prog, src)
		if ok {
			n++
			vm.gsubValue(L, str, m, repl, add)
		}
		switch {
		case ok && e > src:
			src = e
		case src < len(str):
			add(str[src : src+1])
			src++
		default:
			src = len(str) + 1
		}
		if src > len(str) || prog.head {
			break
		}
		if n&1023 == 0 {
			vm.checkBudget(L)
		}
	}
	if src < len(str) {
		add(str[src:])
	}
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// gsubValue adds the replacement of one match, as Lua 5.1's add_value.
func (vm *VM) gsubValue(L *lua.LState, str string, m *patMatch, repl lua.LValue, add func(string)) {
	whole := str[m.Capture(0):m.Capture(1)]
	var v lua.LValue
	switch repl := repl.(type) {
	case lua.LString, lua.LNumber:
		gsubString(L, str, m, repl.String(), add)
		return
	case *lua.LTable:
		key := lua.LValue(lua.LString(whole))
		if m.CaptureLength() > 2 {
			key = captureValue(str, m, 2)
		}
		v = L.GetTable(repl, key)
	case *lua.LFunction:
		L.Push(repl)
		nargs := pushCaptures(L, str, m, true)
		L.Call(nargs, 1)
		v = L.Get(-1)
		L.Pop(1)
	}
	switch v := v.(type) {
	case lua.LString:
		add(string(v))
		return
	case lua.LNumber:
		add(v.String())
		return
	case *lua.LNilType:
		add(whole)
		return
	case lua.LBool:
		if !bool(v) {
			add(whole)
			return
		}
	}
	L.RaiseError("invalid replacement value (a %s)", v.Type().String())
}

// gsubString expands a replacement string: %0-%9 are captures (%0 and, in
// a pattern without captures, %1 the whole match), %x is x.
func gsubString(L *lua.LState, str string, m *patMatch, repl string, add func(string)) {
	for {
		i := strings.IndexByte(repl, '%')
		if i < 0 || i+1 == len(repl) {
			add(repl)
			return
		}
		add(repl[:i])
		c := repl[i+1]
		repl = repl[i+2:]
		if c < '0' || c > '9' {
			add(string(c))
			continue
		}
		k := int(c - '0')
		switch {
		case k == 0 || (k == 1 && m.CaptureLength() == 2):
			add(str[m.Capture(0):m.Capture(1)])
		case 2*k < m.CaptureLength():
			if m.IsPosCapture(2 * k) {
				add(strconv.Itoa(m.Capture(2 * k)))
			} else {
				add(str[m.Capture(2*k):m.Capture(2*k+1)])
			}
		default:
			L.RaiseError("invalid capture index")
		}
	}
}

// The pattern engine: a copy of gopher-lua's pm package (v1.1.2,
// github.com/yuin/gopher-lua/pm, MIT licence, Copyright (c) 2015 Yusuke
// Inuzuka), with the identifiers renamed into this package and one change:
// the matcher counts its steps and, every 4096, asks whether the running
// call's budget is over (patRun.abort), so a pathological pattern stops
// with the call instead of running for minutes in Go where the budget
// cannot reach it. Compiling and matching are also separate, so gsub and
// gmatch compile once and match one position at a time.

const (
	patEOS          = -1
	patUnknown      = -2
	patMaxRecursion = 200000 // gopher-lua: 1000000, 256 MiB of Go stack
)

type patError struct {
	Pos     int
	Message string
}

func newPatError(pos int, message string, args ...interface{}) *patError {
	if len(args) == 0 {
		return &patError{pos, message}
	}
	return &patError{pos, fmt.Sprintf(message, args...)}
}

func (e *patError) Error() string {
	switch e.Pos {
	case patEOS:
		return fmt.Sprintf("%s at EOS", e.Message)
	case patUnknown:
		return e.Message
	default:
		return fmt.Sprintf("%s at %d", e.Message, e.Pos)
	}
}

// errPatAborted is the matcher stopping because the budget is over.
var errPatAborted = &patError{patUnknown, "pattern matching stopped: the call ran past its time budget"}

type patMatch struct {
	// captured positions
	// layout
	// xxxx xxxx xxxx xxx0 : caputured positions
	// xxxx xxxx xxxx xxx1 : position captured positions
	captures []uint32
}

func newPatMatch() *patMatch { return &patMatch{[]uint32{}} }

func (st *patMatch) addPosCapture(s, pos int) {
	for s+1 >= len(st.captures) {
		st.captures = append(st.captures, 0)
	}
	st.captures[s] = (uint32(pos) << 1) | 1
	st.captures[s+1] = (uint32(pos) << 1) | 1
}

func (st *patMatch) setCapture(s, pos int) uint32 {
	for s >= len(st.captures) {
		st.captures = append(st.captures, 0)
	}
	v := st.captures[s]
	st.captures[s] = (uint32(pos) << 1)
	return v
}

func (st *patMatch) restoreCapture(s int, pos uint32) { st.captures[s] = pos }

func (st *patMatch) CaptureLength() int { return len(st.captures) }

func (st *patMatch) IsPosCapture(idx int) bool { return (st.captures[idx] & 1) == 1 }

func (st *patMatch) Capture(idx int) int { return int(st.captures[idx] >> 1) }

// patProgram is a compiled pattern.
type patProgram struct {
	insts []patInst
	head  bool // anchored with '^'
}

// patCompile parses and compiles a pattern.
func patCompile(p string) (prog *patProgram, err error) {
	defer func() {
		if v := recover(); v != nil {
			perr, ok := v.(*patError)
			if !ok {
				panic(v)
			}
			prog, err = nil, perr
		}
	}()
	pat := patParse(newPatScanner([]byte(p)), true)
	return &patProgram{insts: patCompileNode(pat), head: pat.MustHead}, nil
}

// patRun is the matching of patterns against one subject.
type patRun struct {
	src   string
	steps uint32
	abort func() bool // polled every 4096 steps; true stops the match
}

// matchAt tries prog at position sp of r.src: whether it matches, where
// the match ends, and its captures.
func (r *patRun) matchAt(prog *patProgram, sp int) (ok bool, end int, m *patMatch, err error) {
	defer func() {
		if v := recover(); v != nil {
			perr, isPat := v.(*patError)
			if !isPat {
				panic(v)
			}
			ok, m, err = false, nil, perr
		}
	}()
	ok, end, m = r.vm(prog.insts, 0, sp, 0, newPatMatch())
	return ok, end, m, nil
}

// tick counts a step and stops the match when the budget is over.
func (r *patRun) tick() {
	r.steps++
	if r.steps&4095 == 0 && r.abort != nil && r.abort() {
		panic(errPatAborted)
	}
}

// patGreedy recognises the split at pc of a greedy repetition of one
// character class: the class, and where the rest of the pattern starts.
func patGreedy(insts []patInst, pc int) (patClass, int, bool) {
	in := insts[pc]
	if in.Operand1 == pc+1 && in.Operand2 == pc+3 && pc+2 < len(insts) &&
		insts[pc+1].OpCode == patOpChar && insts[pc+2].OpCode == patOpJmp && insts[pc+2].Operand1 == pc {
		return insts[pc+1].Class, pc + 3, true // c*
	}
	if in.Operand1 == pc-1 && in.Operand2 == pc+1 && pc > 0 && insts[pc-1].OpCode == patOpChar {
		return insts[pc-1].Class, pc + 1, true // the loop of c+
	}
	return nil, 0, false
}

// vm is gopher-lua's recursiveVM ("Regular Expression Matching: the Virtual
// Machine Approach", https://swtch.com/~rsc/regexp/regexp2.html) with the
// step count.
func (r *patRun) vm(insts []patInst, pc, sp, recLevel int, m *patMatch) (bool, int, *patMatch) {
	src := r.src
	recLevel++
	if recLevel > patMaxRecursion {
		panic(newPatError(patUnknown, "pattern/input too complex"))
	}
redo:
	r.tick()
	inst := insts[pc]
	switch inst.OpCode {
	case patOpChar:
		if sp >= len(src) || !inst.Class.Matches(int(src[sp])) {
			return false, sp, m
		}
		pc++
		sp++
		goto redo
	case patOpMatch:
		return true, sp, m
	case patOpTailMatch:
		return sp >= len(src), sp, m
	case patOpJmp:
		pc = inst.Operand1
		goto redo
	case patOpSplit:
		// Greedy c* (split pc+1,pc+3; char c; jmp pc) and the loop of c+
		// (char c; split pc-1,pc+1): count the run of c, then try the rest
		// from the longest run down, as Lua's max_expand does. Same answers
		// as the recursion below, which uses a frame per character (256 MiB
		// of Go stack for ".*" on a megabyte).
		if c, rest, ok := patGreedy(insts, pc); ok {
			n := 0
			for sp+n < len(src) && c.Matches(int(src[sp+n])) {
				n++
				r.tick()
			}
			for ; n >= 0; n-- {
				if ok, nsp, _ := r.vm(insts, rest, sp+n, recLevel, m); ok {
					return true, nsp, m
				}
			}
			return false, sp, m
		}
		if ok, nsp, _ := r.vm(insts, inst.Operand1, sp, recLevel, m); ok {
			return true, nsp, m
		}
		pc = inst.Operand2
		goto redo
	case patOpSave:
		s := m.setCapture(inst.Operand1, sp)
		if ok, nsp, _ := r.vm(insts, pc+1, sp, recLevel, m); ok {
			return true, nsp, m
		}
		m.restoreCapture(inst.Operand1, s)
		return false, sp, m
	case patOpPSave:
		m.addPosCapture(inst.Operand1, sp+1)
		pc++
		goto redo
	case patOpBrace:
		if sp >= len(src) || int(src[sp]) != inst.Operand1 {
			return false, sp, m
		}
		count := 1
		for sp = sp + 1; sp < len(src); sp++ {
			r.tick()
			if int(src[sp]) == inst.Operand2 {
				count--
			}
			if count == 0 {
				pc++
				sp++
				goto redo
			}
			if int(src[sp]) == inst.Operand1 {
				count++
			}
		}
		return false, sp, m
	case patOpNumber:
		idx := inst.Operand1 * 2
		if idx >= m.CaptureLength()-1 {
			panic(newPatError(patUnknown, "invalid capture index"))
		}
		capture := src[m.Capture(idx):m.Capture(idx+1)]
		for i := 0; i < len(capture); i++ {
			r.tick()
			if i+sp >= len(src) || capture[i] != src[i+sp] {
				return false, sp, m
			}
		}
		pc++
		sp += len(capture)
		goto redo
	}
	panic("should not reach here")
}

/* patScanner {{{ */

type patScannerState struct {
	Pos     int
	started bool
}

type patScanner struct {
	src   []byte
	State patScannerState
	saved patScannerState
}

func newPatScanner(src []byte) *patScanner {
	return &patScanner{
		src: src,
		State: patScannerState{
			Pos:     0,
			started: false,
		},
		saved: patScannerState{},
	}
}

func (sc *patScanner) Length() int { return len(sc.src) }

func (sc *patScanner) Next() int {
	if !sc.State.started {
		sc.State.started = true
		if len(sc.src) == 0 {
			sc.State.Pos = patEOS
		}
	} else {
		sc.State.Pos = sc.NextPos()
	}
	if sc.State.Pos == patEOS {
		return patEOS
	}
	return int(sc.src[sc.State.Pos])
}

func (sc *patScanner) CurrentPos() int {
	return sc.State.Pos
}

func (sc *patScanner) NextPos() int {
	if sc.State.Pos == patEOS || sc.State.Pos >= len(sc.src)-1 {
		return patEOS
	}
	if !sc.State.started {
		return 0
	} else {
		return sc.State.Pos + 1
	}
}

func (sc *patScanner) Peek() int {
	cureof := sc.State.Pos == patEOS
	ch := sc.Next()
	if !cureof {
		if sc.State.Pos == patEOS {
			sc.State.Pos = len(sc.src) - 1
		} else {
			sc.State.Pos--
			if sc.State.Pos < 0 {
				sc.State.Pos = 0
				sc.State.started = false
			}
		}
	}
	return ch
}

func (sc *patScanner) Save() { sc.saved = sc.State }

func (sc *patScanner) Restore() { sc.State = sc.saved }

/* }}} */

/* bytecode {{{ */

type patOpCode int

const (
	patOpChar patOpCode = iota
	patOpMatch
	patOpTailMatch
	patOpJmp
	patOpSplit
	patOpSave
	patOpPSave
	patOpBrace
	patOpNumber
)

type patInst struct {
	OpCode   patOpCode
	Class    patClass
	Operand1 int
	Operand2 int
}

/* }}} */

/* classes {{{ */

type patClass interface {
	Matches(ch int) bool
}

type patDotClass struct{}

func (pn *patDotClass) Matches(ch int) bool { return true }

type patCharClass struct {
	Ch int
}

func (pn *patCharClass) Matches(ch int) bool { return pn.Ch == ch }

type patSingleClass struct {
	Class int
}

func (pn *patSingleClass) Matches(ch int) bool {
	ret := false
	switch pn.Class {
	case 'a', 'A':
		ret = 'A' <= ch && ch <= 'Z' || 'a' <= ch && ch <= 'z'
	case 'c', 'C':
		ret = (0x00 <= ch && ch <= 0x1F) || ch == 0x7F
	case 'd', 'D':
		ret = '0' <= ch && ch <= '9'
	case 'l', 'L':
		ret = 'a' <= ch && ch <= 'z'
	case 'p', 'P':
		ret = (0x21 <= ch && ch <= 0x2f) || (0x3a <= ch && ch <= 0x40) || (0x5b <= ch && ch <= 0x60) || (0x7b <= ch && ch <= 0x7e)
	case 's', 'S':
		switch ch {
		case ' ', '\f', '\n', '\r', '\t', '\v':
			ret = true
		}
	case 'u', 'U':
		ret = 'A' <= ch && ch <= 'Z'
	case 'w', 'W':
		ret = '0' <= ch && ch <= '9' || 'A' <= ch && ch <= 'Z' || 'a' <= ch && ch <= 'z'
	case 'x', 'X':
		ret = '0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f' || 'A' <= ch && ch <= 'F'
	case 'z', 'Z':
		ret = ch == 0
	default:
		return ch == pn.Class
	}
	if 'A' <= pn.Class && pn.Class <= 'Z' {
		return !ret
	}
	return ret
}

type patSetClass struct {
	IsNot   bool
	Classes []patClass
}

func (pn *patSetClass) Matches(ch int) bool {
	for _, patClass := range pn.Classes {
		if patClass.Matches(ch) {
			return !pn.IsNot
		}
	}
	return pn.IsNot
}

type patRangeClass struct {
	Begin patClass
	End   patClass
}

func (pn *patRangeClass) Matches(ch int) bool {
	switch begin := pn.Begin.(type) {
	case *patCharClass:
		end, ok := pn.End.(*patCharClass)
		if !ok {
			return false
		}
		return begin.Ch <= ch && ch <= end.Ch
	}
	return false
}

// }}}

// patterns {{{

type patNode interface{}

type patSingle struct {
	Class patClass
}

type patSeq struct {
	MustHead bool
	MustTail bool
	Patterns []patNode
}

type patRepeat struct {
	Type  int
	Class patClass
}

type patPosCap struct{}

type patCap struct {
	Pattern patNode
}

type patNumber struct {
	N int
}

type patBrace struct {
	Begin int
	End   int
}

// }}}

/* parse {{{ */

func patParseClass(sc *patScanner, allowset bool) patClass {
	ch := sc.Next()
	switch ch {
	case '%':
		return &patSingleClass{sc.Next()}
	case '.':
		if allowset {
			return &patDotClass{}
		}
		return &patCharClass{ch}
	case '[':
		if allowset {
			return patParseClassSet(sc)
		}
		return &patCharClass{ch}
	//case '^' '$', '(', ')', ']', '*', '+', '-', '?':
	//	panic(newPatError(sc.CurrentPos(), "invalid %c", ch))
	case patEOS:
		panic(newPatError(sc.CurrentPos(), "unexpected EOS"))
	default:
		return &patCharClass{ch}
	}
}

func patParseClassSet(sc *patScanner) patClass {
	set := &patSetClass{false, []patClass{}}
	if sc.Peek() == '^' {
		set.IsNot = true
		sc.Next()
	}
	isrange := false
	for {
		ch := sc.Peek()
		switch ch {
		// case '[':
		// 	panic(newPatError(sc.CurrentPos(), "'[' can not be nested"))
		case patEOS:
			panic(newPatError(sc.CurrentPos(), "unexpected EOS"))
		case ']':
			if len(set.Classes) > 0 {
				sc.Next()
				goto exit
			}
			fallthrough
		case '-':
			if len(set.Classes) > 0 {
				sc.Next()
				isrange = true
				continue
			}
			fallthrough
		default:
			set.Classes = append(set.Classes, patParseClass(sc, false))
		}
		if isrange {
			begin := set.Classes[len(set.Classes)-2]
			end := set.Classes[len(set.Classes)-1]
			set.Classes = set.Classes[0 : len(set.Classes)-2]
			set.Classes = append(set.Classes, &patRangeClass{begin, end})
			isrange = false
		}
	}
exit:
	if isrange {
		set.Classes = append(set.Classes, &patCharClass{'-'})
	}

	return set
}

func patParse(sc *patScanner, toplevel bool) *patSeq {
	pat := &patSeq{}
	if toplevel {
		if sc.Peek() == '^' {
			sc.Next()
			pat.MustHead = true
		}
	}
	for {
		ch := sc.Peek()
		switch ch {
		case '%':
			sc.Save()
			sc.Next()
			switch sc.Peek() {
			case '0':
				panic(newPatError(sc.CurrentPos(), "invalid capture index"))
			case '1', '2', '3', '4', '5', '6', '7', '8', '9':
				pat.Patterns = append(pat.Patterns, &patNumber{sc.Next() - 48})
			case 'b':
				sc.Next()
				pat.Patterns = append(pat.Patterns, &patBrace{sc.Next(), sc.Next()})
			default:
				sc.Restore()
				pat.Patterns = append(pat.Patterns, &patSingle{patParseClass(sc, true)})
			}
		case '.', '[', ']':
			pat.Patterns = append(pat.Patterns, &patSingle{patParseClass(sc, true)})
		//case ']':
		//	panic(newPatError(sc.CurrentPos(), "invalid ']'"))
		case ')':
			if toplevel {
				panic(newPatError(sc.CurrentPos(), "invalid ')'"))
			}
			return pat
		case '(':
			sc.Next()
			if sc.Peek() == ')' {
				sc.Next()
				pat.Patterns = append(pat.Patterns, &patPosCap{})
			} else {
				ret := &patCap{patParse(sc, false)}
				if sc.Peek() != ')' {
					panic(newPatError(sc.CurrentPos(), "unfinished capture"))
				}
				sc.Next()
				pat.Patterns = append(pat.Patterns, ret)
			}
		case '*', '+', '-', '?':
			sc.Next()
			if len(pat.Patterns) > 0 {
				spat, ok := pat.Patterns[len(pat.Patterns)-1].(*patSingle)
				if ok {
					pat.Patterns = pat.Patterns[0 : len(pat.Patterns)-1]
					pat.Patterns = append(pat.Patterns, &patRepeat{ch, spat.Class})
					continue
				}
			}
			pat.Patterns = append(pat.Patterns, &patSingle{&patCharClass{ch}})
		case '$':
			if toplevel && (sc.NextPos() == sc.Length()-1 || sc.NextPos() == patEOS) {
				pat.MustTail = true
			} else {
				pat.Patterns = append(pat.Patterns, &patSingle{&patCharClass{ch}})
			}
			sc.Next()
		case patEOS:
			sc.Next()
			goto exit
		default:
			sc.Next()
			pat.Patterns = append(pat.Patterns, &patSingle{&patCharClass{ch}})
		}
	}
exit:
	return pat
}

type patIptr struct {
	insts   []patInst
	capture int
}

func patCompileNode(p patNode, ps ...*patIptr) []patInst {
	var ptr *patIptr
	toplevel := false
	if len(ps) == 0 {
		toplevel = true
		ptr = &patIptr{[]patInst{patInst{patOpSave, nil, 0, -1}}, 2}
	} else {
		ptr = ps[0]
	}
	switch pat := p.(type) {
	case *patSingle:
		ptr.insts = append(ptr.insts, patInst{patOpChar, pat.Class, -1, -1})
	case *patSeq:
		for _, cp := range pat.Patterns {
			patCompileNode(cp, ptr)
		}
	case *patRepeat:
		idx := len(ptr.insts)
		switch pat.Type {
		case '*':
			ptr.insts = append(ptr.insts,
				patInst{patOpSplit, nil, idx + 1, idx + 3},
				patInst{patOpChar, pat.Class, -1, -1},
				patInst{patOpJmp, nil, idx, -1})
		case '+':
			ptr.insts = append(ptr.insts,
				patInst{patOpChar, pat.Class, -1, -1},
				patInst{patOpSplit, nil, idx, idx + 2})
		case '-':
			ptr.insts = append(ptr.insts,
				patInst{patOpSplit, nil, idx + 3, idx + 1},
				patInst{patOpChar, pat.Class, -1, -1},
				patInst{patOpJmp, nil, idx, -1})
		case '?':
			ptr.insts = append(ptr.insts,
				patInst{patOpSplit, nil, idx + 1, idx + 2},
				patInst{patOpChar, pat.Class, -1, -1})
		}
	case *patPosCap:
		ptr.insts = append(ptr.insts, patInst{patOpPSave, nil, ptr.capture, -1})
		ptr.capture += 2
	case *patCap:
		c0, c1 := ptr.capture, ptr.capture+1
		ptr.capture += 2
		ptr.insts = append(ptr.insts, patInst{patOpSave, nil, c0, -1})
		patCompileNode(pat.Pattern, ptr)
		ptr.insts = append(ptr.insts, patInst{patOpSave, nil, c1, -1})
	case *patBrace:
		ptr.insts = append(ptr.insts, patInst{patOpBrace, nil, pat.Begin, pat.End})
	case *patNumber:
		ptr.insts = append(ptr.insts, patInst{patOpNumber, nil, pat.N, -1})
	}
	if toplevel {
		if p.(*patSeq).MustTail {
			ptr.insts = append(ptr.insts, patInst{patOpSave, nil, 1, -1}, patInst{patOpTailMatch, nil, -1, -1})
		}
		ptr.insts = append(ptr.insts, patInst{patOpSave, nil, 1, -1}, patInst{patOpMatch, nil, -1, -1})
	}
	return ptr.insts
}

/* }}} parse */

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
