package luatest

import (
	"math"
	"strings"

	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// checker tests the arguments of an assertion on the Lua stack and
// returns nil when it holds (negated with neg), else the failure without its
// position and message.
type checker func(L *lua.LState, neg bool) *failure

// assertion wraps a check into a Lua function; msgArg is the index of the
// optional message argument.
func (r *runner) assertion(check checker, neg bool, msgArg int) *lua.LFunction {
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

func (r *runner) raise(L *lua.LState, f *failure) {
	f.Pos = callerPos(L)
	ud := L.NewUserData()
	ud.Value = f
	ud.Metatable = r.failMT
	L.Error(ud, 0)
}

func (r *runner) newAssert() *lua.LTable {
	L := r.vm.L
	type kind struct {
		check  checker
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
		r.raise(L, &failure{Msg: msg})
		return 0
	}))
	L.SetMetatable(a, mt)
	return a
}

func checkEqual(L *lua.LState, neg bool) *failure {
	exp, act := L.Get(1), L.Get(2)
	if L.RawEqual(exp, act) != neg {
		return nil
	}
	f := &failure{Expected: formatValue(exp), Actual: formatValue(act), values: true}
	if neg {
		f.Expected = "not " + f.Expected
		return f
	}
	if et, ok := exp.(*lua.LTable); ok {
		if at, ok := act.(*lua.LTable); ok {
			if same, _ := deepSame(et, at, "", nil); same {
				f.Note = "note: different tables with the same contents (use assert.are.same to compare contents)"
			}
		}
	}
	return f
}

func checkSame(L *lua.LState, neg bool) *failure {
	exp, act := L.Get(1), L.Get(2)
	same, at := deepSame(exp, act, "", nil)
	if same != neg {
		return nil
	}
	f := &failure{Expected: formatValue(exp), Actual: formatValue(act), values: true}
	if neg {
		f.Expected = "not the same as " + f.Expected
	} else if at != "" {
		f.Note = "differs at: " + at
	}
	return f
}

func checkIs(want lua.LValue) checker {
	return func(L *lua.LState, neg bool) *failure {
		v := L.Get(1)
		if (v == want) != neg {
			return nil
		}
		f := &failure{Expected: formatValue(want), Actual: formatValue(v), values: true}
		if neg {
			f.Expected = "not " + f.Expected
		}
		return f
	}
}

func checkTruthy(want bool) checker {
	return func(L *lua.LState, neg bool) *failure {
		v := L.Get(1)
		if (lua.LVAsBool(v) == want) != neg {
			return nil
		}
		exp := "a truthy value"
		if want == neg {
			exp = "a falsy value (nil or false)"
		}
		return &failure{Expected: exp, Actual: formatValue(v), values: true}
	}
}

func checkNear(L *lua.LState, neg bool) *failure {
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
	f := &failure{
		Expected: formatNumber(exp) + " ± " + formatNumber(eps),
		Actual:   formatValue(act),
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
func (r *runner) checkError(L *lua.LState, neg bool) *failure {
	fn := L.CheckFunction(1)
	want := L.Get(2)
	switch want.(type) {
	case *lua.LNilType, lua.LString, lua.LNumber, *lua.LTable:
	default:
		L.ArgError(2, "a pattern string or an error value expected, got "+want.Type().String())
	}
	top := L.GetTop()
	L.Push(fn)
	err := r.vm.PCall(0, 0)
	L.SetTop(top)

	var obj lua.LValue
	errored := err != nil
	if errored {
		obj = errorObject(err)
	}
	matches := errored
	if errored && want != lua.LNil {
		matches = errorMatches(obj, want, r.vm)
	}
	if matches != neg {
		return nil
	}

	expected := "an error"
	if want != lua.LNil {
		if _, isTable := want.(*lua.LTable); isTable {
			expected = "an error with value " + formatValue(want)
		} else {
			expected = "an error matching " + formatValue(lua.LString(lua.LVAsString(want)))
		}
	}
	actual := "no error"
	if errored {
		actual = errorValue(obj)
	}
	if neg {
		expected = "no " + strings.TrimPrefix(expected, "an ")
	}
	return &failure{Expected: expected, Actual: actual, values: true}
}

// errorValue shows an error value: a message quoted without its
// position, anything else Lua-style.
func errorValue(obj lua.LValue) string {
	if f := failureOf(obj); f != nil {
		return quote(f.Desc())
	}
	if s, ok := obj.(lua.LString); ok {
		_, msg := luabind.SplitPos(string(s))
		return quote(msg)
	}
	return formatValue(obj)
}

// The pattern runs on the budgeted matcher: a pathological pattern is
// stopped with the test's budget like anything else the test does.
func errorMatches(obj, want lua.LValue, vm *luabind.VM) bool {
	if wt, ok := want.(*lua.LTable); ok {
		same, _ := deepSame(wt, obj, "", nil)
		return same
	}
	var msg string
	switch o := obj.(type) {
	case lua.LString:
		_, msg = luabind.SplitPos(string(o))
	case lua.LNumber:
		msg = formatNumber(float64(o))
	default:
		if f := failureOf(obj); f != nil {
			msg = f.Desc()
		} else {
			return false
		}
	}
	pat := lua.LVAsString(want)
	if strings.Contains(msg, pat) {
		return true
	}
	ok, err := vm.Find(msg, pat)
	return err == nil && ok
}

// deepSame compares deeply: tables by their contents (raw, recursively),
// anything else with raw ==. at is where the first difference is found
// (".key" or "[key]"), "" when the values themselves differ.
func deepSame(a, b lua.LValue, path string, seen map[[2]*lua.LTable]bool) (same bool, at string) {
	ta, ok1 := a.(*lua.LTable)
	tb, ok2 := b.(*lua.LTable)
	if !ok1 || !ok2 {
		if a.Type() == b.Type() && rawEqual(a, b) {
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
	keys := sortedKeys(ta)
	for _, k := range keys {
		if ok, at := deepSame(ta.RawGet(k), tb.RawGet(k), path+pathKey(k), seen); !ok {
			return false, at
		}
	}
	for _, k := range sortedKeys(tb) {
		if ta.RawGet(k) == lua.LNil {
			return false, path + pathKey(k)
		}
	}
	return true, ""
}

// rawEqual is Lua's raw == on values of the same type.
func rawEqual(a, b lua.LValue) bool {
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

func pathKey(k lua.LValue) string {
	if s, ok := k.(lua.LString); ok && isIdent(string(s)) {
		return "." + string(s)
	}
	return "[" + formatValue(k) + "]"
}
