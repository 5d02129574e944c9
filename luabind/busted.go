package luabind

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/luaai/luaai/luabind/internal/pattern"
	lua "github.com/yuin/gopher-lua"
)

// TestResult counts the outcome of one or more test files.
type TestResult struct{ Passed, Failed int }

// Add adds the counts of o to r.
func (r *TestResult) Add(o TestResult) {
	r.Passed += o.Passed
	r.Failed += o.Failed
}

// RunTestFile runs one *_test.lua file in vm, writing failures (and a line
// per file error) to w (README: Agents from Lua, and tests).
//
// For the duration of the file the busted-style globals describe, it,
// before_each, after_each and assert are installed; whatever those globals
// held before is put back afterwards. As in busted, the file body and the
// describe bodies run first and only collect tests; then each `it` runs in
// order, with the before_each hooks of its enclosing blocks (outer to inner)
// before it and their after_each hooks (inner to outer) after it. A file that
// does not compile, or whose body raises an error, counts as one failure and
// none of its tests run.
func (vm *VM) RunTestFile(path string, w io.Writer) TestResult {
	proto, err := CompileFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			fmt.Fprintf(w, "%s: %v\n", path, pe.Err)
		} else {
			fmt.Fprintln(w, err.Error())
		}
		return TestResult{Failed: 1}
	}

	L := vm.L
	top := L.GetTop()
	defer L.SetTop(top)

	r := &bustedRun{vm: vm, root: &bustedBlock{}}
	r.cur = r.root
	r.failMT = L.NewTable()
	r.failMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		if f := bustedFailureOf(L.Get(1)); f != nil {
			L.Push(lua.LString(f.String()))
		} else {
			L.Push(lua.LString("assertion failed"))
		}
		return 1
	}))
	r.failMT.RawSetString("__metatable", lua.LFalse)

	g := L.G.Global
	globals := map[string]lua.LValue{
		"describe":    L.NewFunction(r.luaDescribe),
		"it":          L.NewFunction(r.luaIt),
		"before_each": L.NewFunction(r.luaBeforeEach),
		"after_each":  L.NewFunction(r.luaAfterEach),
		"assert":      r.newAssert(),
	}
	saved := make(map[string]lua.LValue, len(globals))
	for name, v := range globals {
		saved[name] = g.RawGetString(name)
		g.RawSetString(name, v)
	}
	defer func() {
		for name, v := range saved {
			g.RawSetString(name, v)
		}
	}()

	// Collect.
	L.Push(L.NewFunctionFromProto(proto))
	if err := vm.pcall(0, 0, false); err != nil {
		L.SetTop(top)
		r.writeFileError(w, path, err)
		return TestResult{Failed: 1}
	}

	// Run.
	r.running = true
	var res TestResult
	for _, t := range r.tests {
		if err := r.runTest(t); err != nil {
			res.Failed++
			r.writeFailure(w, t, err)
		} else {
			res.Passed++
		}
		L.SetTop(top)
	}
	return res
}

// bustedBlock is one describe block (the root block is the file itself).
type bustedBlock struct {
	name    string
	parent  *bustedBlock
	befores []*lua.LFunction
	afters  []*lua.LFunction
}

// bustedTest is one collected `it`.
type bustedTest struct {
	name  string // describe names and the it name, joined by spaces
	block *bustedBlock
	fn    *lua.LFunction
	pos   Pos // where `it` was called
}

// bustedRun is the state of one RunTestFile.
type bustedRun struct {
	vm      *VM
	root    *bustedBlock
	cur     *bustedBlock
	tests   []*bustedTest
	running bool // the collected tests are running
	failMT  *lua.LTable
}

// bustedFailure is the Go-side record an assertion raises (as the Value of a
// userdata), so a failed assertion is told from any other error without
// parsing messages. Lua code cannot make one.
type bustedFailure struct {
	Pos      Pos
	Msg      string // the message given to the assertion, or plain assert's
	Expected string
	Actual   string
	Note     string // an extra hint, e.g. where two tables differ
	values   bool   // Expected and Actual are set
}

// Desc is the failure without its position, on one line.
func (f *bustedFailure) Desc() string {
	var parts []string
	if f.Msg != "" {
		parts = append(parts, f.Msg)
	}
	if f.values {
		parts = append(parts, "expected: "+f.Expected, "actual: "+f.Actual)
	}
	if f.Note != "" {
		parts = append(parts, f.Note)
	}
	if len(parts) == 0 {
		return "assertion failed!"
	}
	return strings.Join(parts, ", ")
}

// String is "file:line: " and Desc, as tostring() shows a caught failure.
func (f *bustedFailure) String() string {
	if f.Pos.File == "" {
		return f.Desc()
	}
	return f.Pos.String() + ": " + f.Desc()
}

func bustedFailureOf(v lua.LValue) *bustedFailure {
	if ud, ok := v.(*lua.LUserData); ok {
		if f, ok := ud.Value.(*bustedFailure); ok {
			return f
		}
	}
	return nil
}

// bustedErrorObject is the Lua value an error from a protected call carries.
func bustedErrorObject(err error) lua.LValue {
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Object != nil {
		return ae.Object
	}
	return lua.LString(err.Error())
}

// bustedWhere is the position of the Lua code that called the running Go
// function; zero when that is not Lua code.
func bustedWhere(L *lua.LState) Pos {
	p, _ := SplitPos(L.Where(1) + " ")
	return p
}

// ---- collection ----

func (r *bustedRun) notRunning(L *lua.LState, fn string) {
	if r.running {
		L.RaiseError("%s cannot be called while the tests run (only in the file body or a describe block)", fn)
	}
}

func (r *bustedRun) luaDescribe(L *lua.LState) int {
	r.notRunning(L, "describe")
	name := L.CheckString(1)
	fn := L.CheckFunction(2)
	b := &bustedBlock{name: name, parent: r.cur}
	outer := r.cur
	r.cur = b
	defer func() { r.cur = outer }()
	L.Push(fn)
	L.Call(0, 0)
	return 0
}

func (r *bustedRun) luaIt(L *lua.LState) int {
	r.notRunning(L, "it")
	name := L.CheckString(1)
	fn := L.CheckFunction(2)
	names := []string{name}
	for b := r.cur; b != nil; b = b.parent {
		if b.name != "" {
			names = append(names, b.name)
		}
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	pos := bustedWhere(L)
	r.tests = append(r.tests, &bustedTest{name: strings.Join(names, " "), block: r.cur, fn: fn, pos: pos})
	return 0
}

func (r *bustedRun) luaBeforeEach(L *lua.LState) int {
	r.notRunning(L, "before_each")
	r.cur.befores = append(r.cur.befores, L.CheckFunction(1))
	return 0
}

func (r *bustedRun) luaAfterEach(L *lua.LState) int {
	r.notRunning(L, "after_each")
	r.cur.afters = append(r.cur.afters, L.CheckFunction(1))
	return 0
}

// ---- running ----

// runTest runs the before_each hooks (outer to inner), the test, and the
// after_each hooks (inner to outer), and returns the first error. A failing
// before_each skips the rest of the before_each hooks and the test; the
// after_each hooks always run.
func (r *bustedRun) runTest(t *bustedTest) error {
	var chain []*bustedBlock
	for b := t.block; b != nil; b = b.parent {
		chain = append(chain, b)
	}
	var first error
	call := func(fn *lua.LFunction) {
		L := r.vm.L
		top := L.GetTop()
		L.Push(fn)
		err := r.vm.pcall(0, 0, false)
		L.SetTop(top)
		if err != nil && first == nil {
			first = err
		}
	}
	for i := len(chain) - 1; i >= 0 && first == nil; i-- {
		for _, fn := range chain[i].befores {
			if call(fn); first != nil {
				break
			}
		}
	}
	if first == nil {
		call(t.fn)
	}
	for _, b := range chain {
		for _, fn := range b.afters {
			call(fn)
		}
	}
	return first
}

func (r *bustedRun) writeFailure(w io.Writer, t *bustedTest, err error) {
	obj := bustedErrorObject(err)
	if f := bustedFailureOf(obj); f != nil {
		pos := f.Pos
		if pos.File == "" {
			pos = t.pos
		}
		var b strings.Builder
		fmt.Fprintf(&b, "FAIL %s: %s\n", pos, t.name)
		if f.Msg != "" {
			fmt.Fprintf(&b, "  %s\n", f.Msg)
		}
		if f.values {
			fmt.Fprintf(&b, "  expected: %s\n  actual:   %s\n", f.Expected, f.Actual)
		}
		if f.Note != "" {
			fmt.Fprintf(&b, "  %s\n", f.Note)
		}
		if f.Msg == "" && !f.values && f.Note == "" {
			b.WriteString("  assertion failed!\n")
		}
		io.WriteString(w, b.String())
		return
	}
	pos, msg := bustedErrorText(obj)
	if pos.File == "" {
		pos = t.pos
	}
	fmt.Fprintf(w, "FAIL %s: %s\n  error: %s\n", pos, t.name, msg)
}

func (r *bustedRun) writeFileError(w io.Writer, path string, err error) {
	obj := bustedErrorObject(err)
	if f := bustedFailureOf(obj); f != nil {
		pos := f.Pos
		if pos.File == "" {
			pos.File = path
		}
		fmt.Fprintf(w, "%s: %s\n", pos, f.Desc())
		return
	}
	pos, msg := bustedErrorText(obj)
	if pos.File == "" {
		pos.File = path
	}
	fmt.Fprintf(w, "%s: %s\n", pos, msg)
}

// bustedErrorText takes an error value apart into the position its message
// names (zero if none) and the message without it.
func bustedErrorText(obj lua.LValue) (Pos, string) {
	if f := bustedFailureOf(obj); f != nil {
		return f.Pos, f.Desc()
	}
	if s, ok := obj.(lua.LString); ok {
		return SplitPos(string(s))
	}
	return Pos{}, bustedFormat(obj)
}

// ---- assertions ----

// bustedCheck tests the arguments of an assertion on the Lua stack and
// returns nil when it holds (negated with neg), else the failure without its
// position and message.
type bustedCheck func(L *lua.LState, neg bool) *bustedFailure

// assertion wraps a check into a Lua function; msgArg is the index of the
// optional message argument.
func (r *bustedRun) assertion(check bustedCheck, neg bool, msgArg int) *lua.LFunction {
	return r.vm.L.NewFunction(func(L *lua.LState) int {
		f := check(L, neg)
		if f == nil {
			return 0
		}
		if m := L.Get(msgArg); m != lua.LNil {
			f.Msg = L.ToStringMeta(m).String()
		}
		r.raise(L, f)
		return 0
	})
}

func (r *bustedRun) raise(L *lua.LState, f *bustedFailure) {
	f.Pos = bustedWhere(L)
	ud := L.NewUserData()
	ud.Value = f
	ud.Metatable = r.failMT
	L.Error(ud, 0)
}

func (r *bustedRun) newAssert() *lua.LTable {
	L := r.vm.L
	type kind struct {
		check  bustedCheck
		msgArg int
	}
	var (
		equal  = kind{checkEqual, 3}
		same   = kind{checkSame, 3}
		isTrue = kind{checkIs(lua.LTrue), 2}
		isFals = kind{checkIs(lua.LFalse), 2}
		isNil  = kind{checkIs(lua.LNil), 2}
		truthy = kind{checkTruthy(true), 2}
		falsy  = kind{checkTruthy(false), 2}
		near   = kind{checkNear, 4}
		hasErr = kind{r.checkError, 3}
	)
	mk := func(k kind, neg bool) *lua.LFunction { return r.assertion(k.check, neg, k.msgArg) }
	set := func(t *lua.LTable, k kind, neg bool, names ...string) {
		fn := mk(k, neg)
		for _, n := range names {
			t.RawSetString(n, fn)
		}
	}

	a := L.NewTable()
	set(a, equal, false, "equal", "equals", "are_equal", "is_equal")
	set(a, equal, true, "not_equal", "not_equals", "are_not_equal", "is_not_equal")
	set(a, same, false, "same", "are_same", "is_same")
	set(a, same, true, "not_same", "are_not_same", "is_not_same")
	set(a, isTrue, false, "is_true", "True")
	set(a, isTrue, true, "is_not_true")
	set(a, isFals, false, "is_false", "False")
	set(a, isFals, true, "is_not_false")
	set(a, isNil, false, "is_nil", "Nil")
	set(a, isNil, true, "is_not_nil", "not_nil")
	set(a, truthy, false, "is_truthy", "truthy")
	set(a, truthy, true, "is_not_truthy")
	set(a, falsy, false, "is_falsy", "falsy")
	set(a, falsy, true, "is_not_falsy")
	set(a, near, false, "near", "are_near", "is_near")
	set(a, near, true, "not_near", "are_not_near", "is_not_near")
	set(a, hasErr, false, "has_error", "has_errors", "error", "errors")
	set(a, hasErr, true, "has_no_error", "has_no_errors", "no_error", "no_errors")

	// Chained forms: assert.are.equal, assert.is.True, assert.has.error, ...
	chain := func(neg bool) *lua.LTable {
		t := L.NewTable()
		set(t, equal, neg, "equal", "equals")
		set(t, same, neg, "same")
		set(t, near, neg, "near")
		set(t, isTrue, neg, "True", "true")
		set(t, isFals, neg, "False", "false")
		set(t, isNil, neg, "Nil", "nil")
		set(t, truthy, neg, "truthy")
		set(t, falsy, neg, "falsy")
		set(t, hasErr, neg, "error", "errors")
		return t
	}
	pos, negT := chain(false), chain(true)
	for _, n := range []string{"are", "is", "has"} {
		a.RawSetString(n, pos)
	}
	for _, n := range []string{"are_not", "is_not", "has_no", "no"} {
		a.RawSetString(n, negT)
	}

	// assert(v, msg, ...) as plain Lua assert: returns its arguments when v is
	// truthy, else fails with msg (or "assertion failed!").
	mt := L.NewTable()
	mt.RawSetString("__call", L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop() - 1 // without the assert table itself
		if n >= 1 && lua.LVAsBool(L.Get(2)) {
			return n
		}
		msg := "assertion failed!"
		if m := L.Get(3); m != lua.LNil {
			msg = L.ToStringMeta(m).String()
		}
		r.raise(L, &bustedFailure{Msg: msg})
		return 0
	}))
	L.SetMetatable(a, mt)
	return a
}

func checkEqual(L *lua.LState, neg bool) *bustedFailure {
	exp, act := L.Get(1), L.Get(2)
	if L.RawEqual(exp, act) != neg {
		return nil
	}
	f := &bustedFailure{Expected: bustedFormat(exp), Actual: bustedFormat(act), values: true}
	if neg {
		f.Expected = "not " + f.Expected
		return f
	}
	if et, ok := exp.(*lua.LTable); ok {
		if at, ok := act.(*lua.LTable); ok {
			if same, _ := bustedSame(et, at, "", nil); same {
				f.Note = "note: different tables with the same contents (use assert.are.same to compare contents)"
			}
		}
	}
	return f
}

func checkSame(L *lua.LState, neg bool) *bustedFailure {
	exp, act := L.Get(1), L.Get(2)
	same, at := bustedSame(exp, act, "", nil)
	if same != neg {
		return nil
	}
	f := &bustedFailure{Expected: bustedFormat(exp), Actual: bustedFormat(act), values: true}
	if neg {
		f.Expected = "not the same as " + f.Expected
	} else if at != "" {
		f.Note = "differs at: " + at
	}
	return f
}

func checkIs(want lua.LValue) bustedCheck {
	return func(L *lua.LState, neg bool) *bustedFailure {
		v := L.Get(1)
		if (v == want) != neg {
			return nil
		}
		f := &bustedFailure{Expected: bustedFormat(want), Actual: bustedFormat(v), values: true}
		if neg {
			f.Expected = "not " + f.Expected
		}
		return f
	}
}

func checkTruthy(want bool) bustedCheck {
	return func(L *lua.LState, neg bool) *bustedFailure {
		v := L.Get(1)
		if (lua.LVAsBool(v) == want) != neg {
			return nil
		}
		exp := "a truthy value"
		if want == neg {
			exp = "a falsy value (nil or false)"
		}
		return &bustedFailure{Expected: exp, Actual: bustedFormat(v), values: true}
	}
}

func checkNear(L *lua.LState, neg bool) *bustedFailure {
	exp := float64(L.CheckNumber(1))
	eps := float64(L.CheckNumber(3))
	act := L.Get(2)
	ok := false
	if n, isNum := act.(lua.LNumber); isNum {
		ok = math.Abs(float64(n)-exp) <= eps
	}
	if ok != neg {
		return nil
	}
	f := &bustedFailure{
		Expected: bustedNumber(exp) + " ± " + bustedNumber(eps),
		Actual:   bustedFormat(act),
		values:   true,
	}
	if neg {
		f.Expected = "not " + f.Expected
	}
	return f
}

// checkError is has_error(fn [, pattern]): fn must raise, and with a pattern
// the message (without its "file:line: " prefix) must match it as a Lua
// pattern or contain it as plain text. A table compares its contents with a
// table error value.
func (r *bustedRun) checkError(L *lua.LState, neg bool) *bustedFailure {
	fn := L.CheckFunction(1)
	want := L.Get(2)
	switch want.(type) {
	case *lua.LNilType, lua.LString, lua.LNumber, *lua.LTable:
	default:
		L.ArgError(2, "a pattern string or an error value expected, got "+want.Type().String())
	}
	top := L.GetTop()
	L.Push(fn)
	err := r.vm.pcall(0, 0, false)
	L.SetTop(top)

	var obj lua.LValue
	errored := err != nil
	if errored {
		obj = bustedErrorObject(err)
	}
	matches := errored
	if errored && want != lua.LNil {
		matches = bustedErrorMatches(obj, want, r.vm.matcher())
	}
	if matches != neg {
		return nil
	}

	expected := "an error"
	if want != lua.LNil {
		if _, isTable := want.(*lua.LTable); isTable {
			expected = "an error with value " + bustedFormat(want)
		} else {
			expected = "an error matching " + bustedFormat(lua.LString(lua.LVAsString(want)))
		}
	}
	actual := "no error"
	if errored {
		actual = bustedErrorValue(obj)
	}
	if neg {
		expected = "no " + strings.TrimPrefix(expected, "an ")
	}
	return &bustedFailure{Expected: expected, Actual: actual, values: true}
}

// bustedErrorValue shows an error value: a message quoted without its
// position, anything else Lua-style.
func bustedErrorValue(obj lua.LValue) string {
	if f := bustedFailureOf(obj); f != nil {
		return bustedQuote(f.Desc())
	}
	if s, ok := obj.(lua.LString); ok {
		_, msg := SplitPos(string(s))
		return bustedQuote(msg)
	}
	return bustedFormat(obj)
}

// The pattern runs on the budgeted matcher: a pathological pattern is
// stopped with the test's budget like anything else the test does.
func bustedErrorMatches(obj, want lua.LValue, m *pattern.Matcher) bool {
	if wt, ok := want.(*lua.LTable); ok {
		same, _ := bustedSame(wt, obj, "", nil)
		return same
	}
	var msg string
	switch o := obj.(type) {
	case lua.LString:
		_, msg = SplitPos(string(o))
	case lua.LNumber:
		msg = bustedNumber(float64(o))
	default:
		if f := bustedFailureOf(obj); f != nil {
			msg = f.Desc()
		} else {
			return false
		}
	}
	pat := lua.LVAsString(want)
	if strings.Contains(msg, pat) {
		return true
	}
	_, ok, err := m.Find(msg, pat, 0)
	return err == nil && ok
}

// bustedSame compares deeply: tables by their contents (raw, recursively),
// anything else with raw ==. at is where the first difference is found
// (".key" or "[key]"), "" when the values themselves differ.
func bustedSame(a, b lua.LValue, path string, seen map[[2]*lua.LTable]bool) (same bool, at string) {
	ta, ok1 := a.(*lua.LTable)
	tb, ok2 := b.(*lua.LTable)
	if !ok1 || !ok2 {
		if a.Type() == b.Type() && bustedRawEqual(a, b) {
			return true, ""
		}
		return false, path
	}
	if ta == tb {
		return true, ""
	}
	pair := [2]*lua.LTable{ta, tb}
	if seen[pair] {
		return true, ""
	}
	if seen == nil {
		seen = map[[2]*lua.LTable]bool{}
	}
	seen[pair] = true
	keys := bustedKeys(ta)
	for _, k := range keys {
		if ok, at := bustedSame(ta.RawGet(k), tb.RawGet(k), path+bustedPathKey(k), seen); !ok {
			return false, at
		}
	}
	for _, k := range bustedKeys(tb) {
		if ta.RawGet(k) == lua.LNil {
			return false, path + bustedPathKey(k)
		}
	}
	return true, ""
}

// bustedRawEqual is Lua's raw == on values of the same type.
func bustedRawEqual(a, b lua.LValue) bool {
	switch av := a.(type) {
	case lua.LNumber:
		return av == b.(lua.LNumber)
	case lua.LString:
		return av == b.(lua.LString)
	case lua.LBool:
		return av == b.(lua.LBool)
	case *lua.LNilType:
		return true
	}
	return a == b
}

func bustedPathKey(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok && bustedIdent(string(s)) {
		return "." + string(s)
	}
	return "[" + bustedFormat(k) + "]"
}

// ---- showing values ----

const (
	bustedMaxDepth   = 4
	bustedMaxEntries = 50
)

// bustedFormat shows a value Lua-style: strings quoted, numbers with %.14g,
// tables as {1, 2, a = 1, b = {…}} with the sequence first and the other
// keys sorted.
func bustedFormat(v lua.LValue) string {
	var b strings.Builder
	bustedWrite(&b, v, 0, map[*lua.LTable]bool{})
	return b.String()
}

func bustedWrite(b *strings.Builder, v lua.LValue, depth int, open map[*lua.LTable]bool) {
	switch x := v.(type) {
	case *lua.LNilType:
		b.WriteString("nil")
	case lua.LBool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case lua.LNumber:
		b.WriteString(bustedNumber(float64(x)))
	case lua.LString:
		b.WriteString(bustedQuote(string(x)))
	case *lua.LTable:
		if open[x] || depth >= bustedMaxDepth {
			b.WriteString("{…}")
			return
		}
		open[x] = true
		defer delete(open, x)
		keys := bustedKeys(x)
		if len(keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		seq := 0
		for seq < len(keys) {
			if n, ok := keys[seq].(lua.LNumber); !ok || float64(n) != float64(seq+1) {
				break
			}
			seq++
		}
		// bustedKeys sorts numbers first, so 1..seq are the first keys.
		for i, k := range keys {
			if i == bustedMaxEntries {
				b.WriteString(", …")
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			if i >= seq {
				if s, ok := k.(lua.LString); ok && bustedIdent(string(s)) {
					b.WriteString(string(s))
				} else {
					b.WriteByte('[')
					bustedWrite(b, k, depth+1, open)
					b.WriteByte(']')
				}
				b.WriteString(" = ")
			}
			bustedWrite(b, x.RawGet(k), depth+1, open)
		}
		b.WriteByte('}')
	default:
		b.WriteString(v.String())
	}
}

func bustedNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// bustedQuote quotes a string the way Lua source would write it.
func bustedQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				if i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
					fmt.Fprintf(&b, `\%03d`, c)
				} else {
					fmt.Fprintf(&b, `\%d`, c)
				}
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

var bustedKeywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true,
	"false": true, "for": true, "function": true, "goto": true, "if": true, "in": true,
	"local": true, "nil": true, "not": true, "or": true, "repeat": true, "return": true,
	"then": true, "true": true, "until": true, "while": true,
}

func bustedIdent(s string) bool {
	if s == "" || bustedKeywords[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// bustedKeys is the keys of t in a stable order: numbers ascending, then
// strings, then booleans, then anything else by its string form.
func bustedKeys(t *lua.LTable) []lua.LValue {
	var keys []lua.LValue
	t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	rank := func(v lua.LValue) int {
		switch v.(type) {
		case lua.LNumber:
			return 0
		case lua.LString:
			return 1
		case lua.LBool:
			return 2
		}
		return 3
	}
	sort.SliceStable(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		switch a := keys[i].(type) {
		case lua.LNumber:
			return a < keys[j].(lua.LNumber)
		case lua.LString:
			return a < keys[j].(lua.LString)
		case lua.LBool:
			return !bool(a) && bool(keys[j].(lua.LBool))
		}
		return keys[i].String() < keys[j].String()
	})
	return keys
}
