package luatest

import (
	"fmt"
	"math"
	"strings"

	"github.com/luaai/luaai/internal/suggest"
	lua "github.com/yuin/gopher-lua"
)

// The assert table follows luassert's naming: a key is split at "_" and
// ".", lowercased, into words; the words "is", "are", "was", "has", "does",
// "to" and "be" are fillers, "not" and "no" negate, and the rest name one
// assertion. So assert.is_not.equal, assert.are_not_equal and
// assert.Not.Equal are the same check, and assert.has_no.errors negates
// errors. assert.spy(s) and assert.stub(s) start a chain about a spy:
// assert.spy(s).was.called_with(1, 2).

// args are the arguments of an assertion call.
type args []lua.LValue

// at is argument i (1-based), nil past the end.
func (a args) at(i int) lua.LValue {
	if i < 1 || i > len(a) {
		return lua.LNil
	}
	return a[i-1]
}

// checker tests an assertion's arguments and returns nil when it holds
// (negated with neg), else the failure without its position and message.
type checker func(r *runner, L *lua.LState, a args, neg bool, st *chain) *failure

// assertDef is one assertion.
type assertDef struct {
	check  checker
	msg    func(a args) lua.LValue // the optional message argument
	actual int                     // where the value under test goes, for a matcher
	spy    bool                    // about the chain's spy
}

// msgAt takes the message from argument i.
func msgAt(i int) func(args) lua.LValue { return func(a args) lua.LValue { return a.at(i) } }

// msgAfter takes the message from the first string argument at i or later
// (for assertions with optional arguments before it).
func msgAfter(i int) func(args) lua.LValue {
	return func(a args) lua.LValue {
		for j := i; j <= len(a); j++ {
			if s, ok := a.at(j).(lua.LString); ok {
				return s
			}
		}
		return lua.LNil
	}
}

var fillerWords = map[string]bool{"is": true, "are": true, "was": true, "has": true, "does": true, "to": true, "be": true}

// assertions are luassert's assertions by name (and their aliases).
var assertions = func() map[string]*assertDef {
	m := map[string]*assertDef{}
	add := func(d *assertDef, names ...string) {
		for _, n := range names {
			m[n] = d
		}
	}
	add(&assertDef{check: checkEqual, msg: msgAt(3), actual: 2}, "equal", "equals")
	add(&assertDef{check: checkSame, msg: msgAt(3), actual: 2}, "same")
	add(&assertDef{check: checkNear, msg: msgAt(4), actual: 2}, "near")
	add(&assertDef{check: checkUnique, msg: msgAfter(2), actual: 1}, "unique")
	add(&assertDef{check: checkMatches, msg: msgAfter(3), actual: 2}, "matches", "match")
	add(&assertDef{check: checkError, msg: msgAt(3)}, "error", "errors")
	add(&assertDef{check: checkErrorMatches, msg: msgAfter(3)}, "error_matches", "error_match", "matches_error", "match_error")
	add(&assertDef{check: checkIs(lua.LTrue), msg: msgAt(2), actual: 1}, "true")
	add(&assertDef{check: checkIs(lua.LFalse), msg: msgAt(2), actual: 1}, "false")
	add(&assertDef{check: checkIs(lua.LNil), msg: msgAt(2), actual: 1}, "nil")
	add(&assertDef{check: checkTruthy(true), msg: msgAt(2), actual: 1}, "truthy")
	add(&assertDef{check: checkTruthy(false), msg: msgAt(2), actual: 1}, "falsy")
	for _, t := range []lua.LValueType{lua.LTBool, lua.LTNumber, lua.LTString, lua.LTTable, lua.LTFunction, lua.LTUserData, lua.LTThread} {
		add(&assertDef{check: checkType(t), msg: msgAt(2), actual: 1}, t.String())
	}
	add(&assertDef{check: checkReturnedArguments}, "returned_arguments")
	add(&assertDef{check: checkCalled, msg: msgAfter(1), spy: true}, "called")
	add(&assertDef{check: checkCalledWith(false), spy: true}, "called_with")
	add(&assertDef{check: checkCalledWith(true), spy: true}, "returned_with")
	for name, cmp := range map[string]func(n, want int) bool{
		"called_at_least":  func(n, w int) bool { return n >= w },
		"called_at_most":   func(n, w int) bool { return n <= w },
		"called_more_than": func(n, w int) bool { return n > w },
		"called_less_than": func(n, w int) bool { return n < w },
	} {
		add(&assertDef{check: checkCallCount(strings.ReplaceAll(strings.TrimPrefix(name, "called_"), "_", " "), cmp), msg: msgAt(2), spy: true}, name)
	}
	return m
}()

// chain is the state of an assert expression being read: assert.is_not
// has neg set; assert.is_not.equal has def too, and is called.
type chain struct {
	path    string         // what was read so far, for messages: "assert.is_not"
	neg     bool           // negated (an odd number of "not"/"no")
	def     *assertDef     // the assertion, once named
	name    string         // its name
	custom  *lua.LFunction // an assertion registered with assert:register
	spy     *spyState      // the spy of assert.spy(s) / assert.stub(s)
	matcher bool           // building a matcher (match.is_string), not asserting
}

// read reads key into a copy of c: its words are fillers, negations or an
// assertion's name (the longest that fits, "called_with" before "called").
func (r *runner) read(L *lua.LState, c chain, key string) chain {
	c.path += "." + key
	words := strings.FieldsFunc(strings.ToLower(key), func(r rune) bool { return r == '_' })
	longest := 3 // words in the longest name: called_at_least
	for name := range r.custom {
		longest = max(longest, strings.Count(name, "_")+1)
	}
	for name := range r.customMatchers {
		longest = max(longest, strings.Count(name, "_")+1)
	}
	for i := 0; i < len(words); {
		j := min(len(words), i+longest)
		for ; j > i; j-- {
			name := strings.Join(words[i:j], "_")
			def, ok := assertions[name]
			custom := r.custom[name]
			if c.matcher && r.customMatchers[name] != nil {
				custom = r.customMatchers[name]
			}
			if !ok && custom == nil {
				continue
			}
			if c.def != nil || c.custom != nil {
				L.RaiseError("%s: two assertions named (%s and %s)", c.path, c.name, name)
			}
			c.def, c.custom, c.name = def, custom, name
			break
		}
		if j > i {
			i = j
			continue
		}
		switch w := words[i]; {
		case w == "not" || w == "no":
			c.neg = !c.neg
		case fillerWords[w]:
		default:
			names := []string{"not", "no", "is", "are", "was", "has"}
			for n := range assertions {
				names = append(names, n)
			}
			msg := fmt.Sprintf("%s: no assertion or modifier %q", c.path, w)
			if best := suggest.Closest(w, names); best != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", best)
			}
			L.RaiseError("%s", msg)
		}
		i++
	}
	return c
}

// newChain wraps c as a Lua value: indexing it reads on, calling it runs
// the assertion (or makes the matcher).
func (r *runner) newChain(L *lua.LState, c chain) lua.LValue {
	ud := L.NewUserData()
	ud.Value = &c
	ud.Metatable = r.chainMT
	return ud
}

func (r *runner) chainIndex(L *lua.LState) int {
	c := L.CheckUserData(1).Value.(*chain)
	L.Push(r.newChain(L, r.read(L, *c, L.CheckString(2))))
	return 1
}

func (r *runner) chainCall(L *lua.LState) int {
	c := L.CheckUserData(1).Value.(*chain)
	a := make(args, 0, L.GetTop()-1)
	for i := 2; i <= L.GetTop(); i++ {
		a = append(a, L.Get(i))
	}
	if c.def == nil && c.custom == nil {
		L.RaiseError("%s is not an assertion: name one (%s.equal, %s.truthy, ...)", c.path, c.path, c.path)
	}
	if c.matcher {
		L.Push(r.newMatcher(L, c, a))
		return 1
	}
	if c.def != nil && c.def.spy && c.spy == nil {
		L.RaiseError("%s: say which spy: assert.spy(s).%s(...)", c.path, c.name)
	}
	f := r.check(L, c, a)
	if f == nil {
		return 0
	}
	if c.def != nil && c.def.msg != nil {
		if m := c.def.msg(a); m != lua.LNil {
			f.Msg = L.ToStringMeta(m).String()
		}
	}
	r.raise(L, f)
	return 0
}

// check runs the chain's assertion on a.
func (r *runner) check(L *lua.LState, c *chain, a args) *failure {
	if c.custom != nil {
		return r.checkCustom(L, c, a)
	}
	return c.def.check(r, L, a, c.neg, c)
}

func (r *runner) raise(L *lua.LState, f *failure) {
	f.Pos = callerPos(L)
	ud := L.NewUserData()
	ud.Value = f
	ud.Metatable = r.failMT
	L.Error(ud, 0)
}

// newAssert makes the assert table: callable as Lua's assert, every other
// key read as above, and assert.spy, assert.stub, assert:register,
// assert:set_parameter as functions.
func (r *runner) newAssert() *lua.LTable {
	L := r.vm.L
	r.chainMT = L.NewTable()
	r.chainMT.RawSetString("__index", L.NewFunction(r.chainIndex))
	r.chainMT.RawSetString("__call", L.NewFunction(r.chainCall))
	r.chainMT.RawSetString("__metatable", lua.LFalse)

	a := L.NewTable()
	aboutSpy := L.NewFunction(func(L *lua.LState) int {
		s := r.spyOf(L.Get(1))
		if s == nil {
			L.ArgError(1, "a spy or stub expected (made with spy.new, spy.on, stub or mock), got "+formatValue(L.Get(1)))
		}
		L.Push(r.newChain(L, chain{path: "assert.spy(s)", spy: s}))
		return 1
	})
	a.RawSetString("spy", aboutSpy)
	a.RawSetString("stub", aboutSpy)
	a.RawSetString("register", L.NewFunction(r.luaRegister))
	params := map[string]lua.LValue{"TableFormatLevel": lua.LNumber(bustedMaxDepth)}
	a.RawSetString("set_parameter", L.NewFunction(func(L *lua.LState) int {
		params[L.CheckString(2)] = L.Get(3)
		return 0
	}))
	a.RawSetString("get_parameter", L.NewFunction(func(L *lua.LState) int {
		L.Push(params[L.CheckString(2)])
		return 1
	}))

	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.Push(r.newChain(L, r.read(L, chain{path: "assert"}, L.CheckString(2))))
		return 1
	}))
	// assert(v, msg, ...) as plain Lua assert: returns its arguments when v is
	// truthy, else fails with msg (or "assertion failed!").
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

// luaRegister is assert:register("assertion" | "matcher", name, fn
// [, positive message, negative message]): fn(state, arguments) returns
// whether the assertion holds; arguments has n. The messages are keys of
// the say module (require("say")), formatted with the arguments shown. A matcher's fn gets the
// matcher's arguments and returns a function testing a value.
func (r *runner) luaRegister(L *lua.LState) int {
	kind := L.CheckString(2)
	name := strings.ToLower(L.CheckString(3))
	fn := L.CheckFunction(4)
	if r.customMsgs == nil {
		r.customMsgs = map[string][2]string{}
	}
	r.customMsgs[name] = [2]string{L.OptString(5, ""), L.OptString(6, "")}
	switch kind {
	case "assertion":
		r.custom[name] = fn
	case "matcher":
		r.customMatchers[name] = fn
	default:
		L.ArgError(2, fmt.Sprintf("luaai test registers assertions and matchers, not %q", kind))
	}
	return 0
}

// checkCustom runs a registered assertion.
func (r *runner) checkCustom(L *lua.LState, c *chain, a args) *failure {
	t := L.CreateTable(len(a), 1)
	for i, v := range a {
		t.RawSetInt(i+1, v)
	}
	t.RawSetString("n", lua.LNumber(len(a)))
	state := L.NewTable()
	state.RawSetString("mod", lua.LBool(!c.neg))
	L.Push(c.custom)
	L.Push(state)
	L.Push(t)
	L.Call(2, 1)
	ok := lua.LVAsBool(L.Get(-1))
	L.Pop(1)
	if ok != c.neg {
		return nil
	}
	parts := make([]string, len(a))
	vars := make([]lua.LValue, len(a))
	for i, v := range a {
		parts[i] = formatValue(v)
		if _, ok := v.(*lua.LUserData); ok && L.GetMetaField(v, "__tostring") != lua.LNil {
			parts[i] = L.ToStringMeta(v).String() // an agent: agent(off)
		}
		vars[i] = lua.LString(parts[i])
	}
	if keys, ok := r.customMsgs[c.name]; ok && r.say != nil {
		key := keys[0]
		if c.neg {
			key = keys[1]
		}
		if msg, ok := r.say.format(L, lua.LString(key), vars); ok && key != "" {
			return &failure{Msg: msg}
		}
	}
	return &failure{Msg: fmt.Sprintf("%s(%s) failed", c.path, strings.Join(parts, ", "))}
}

func checkEqual(_ *runner, L *lua.LState, a args, neg bool, _ *chain) *failure {
	exp, act := a.at(1), a.at(2)
	if L.Equal(exp, act) != neg { // Lua's ==, so __eq counts, as in luassert
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

func checkSame(_ *runner, _ *lua.LState, a args, neg bool, _ *chain) *failure {
	exp, act := a.at(1), a.at(2)
	d := deepDiff(exp, act, "", nil)
	if (d == nil) != neg {
		return nil
	}
	f := &failure{Expected: formatValue(exp), Actual: formatValue(act), values: true}
	if neg {
		f.Expected = "not the same as " + f.Expected
	} else if d.path != "" {
		f.Note = fmt.Sprintf("differs at %s: expected %s, actual %s", d.path, formatValue(d.a), formatValue(d.b))
	}
	return f
}

func checkIs(want lua.LValue) checker {
	return func(_ *runner, _ *lua.LState, a args, neg bool, _ *chain) *failure {
		v := a.at(1)
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

func checkType(t lua.LValueType) checker {
	return func(_ *runner, _ *lua.LState, a args, neg bool, _ *chain) *failure {
		v := a.at(1)
		if (v.Type() == t) != neg {
			return nil
		}
		exp := "a " + t.String()
		if neg {
			exp = "not " + exp
		}
		return &failure{Expected: exp, Actual: formatValue(v) + " (a " + v.Type().String() + ")", values: true}
	}
}

func checkTruthy(want bool) checker {
	return func(_ *runner, _ *lua.LState, a args, neg bool, _ *chain) *failure {
		v := a.at(1)
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

func checkNear(_ *runner, L *lua.LState, a args, neg bool, _ *chain) *failure {
	exp, ok1 := a.at(1).(lua.LNumber)
	eps, ok2 := a.at(3).(lua.LNumber)
	if !ok1 || !ok2 {
		L.RaiseError("near(expected, actual, tolerance): expected and tolerance must be numbers, got %s and %s", a.at(1).Type(), a.at(3).Type())
	}
	act := a.at(2)
	ok := false
	if n, isNum := act.(lua.LNumber); isNum {
		ok = math.Abs(float64(n)-float64(exp)) <= float64(eps)
	}
	if ok != neg {
		return nil
	}
	f := &failure{
		Expected: formatNumber(float64(exp)) + " ± " + formatNumber(float64(eps)),
		Actual:   formatValue(act),
		values:   true,
	}
	if neg {
		f.Expected = "not " + f.Expected
	}
	return f
}

// checkUnique is unique(list [, deep]): no two values of list are equal
// (==), or, with deep, the same (deeply).
func checkUnique(_ *runner, L *lua.LState, a args, neg bool, _ *chain) *failure {
	list, ok := a.at(1).(*lua.LTable)
	if !ok {
		L.ArgError(1, "a table expected, got "+a.at(1).Type().String())
	}
	deep := a.at(2) == lua.LTrue
	var vals, keys []lua.LValue
	list.ForEach(func(k, v lua.LValue) { keys, vals = append(keys, k), append(vals, v) })
	dup := ""
	for i := 0; i < len(vals) && dup == ""; i++ {
		for j := i + 1; j < len(vals); j++ {
			same := L.Equal(vals[i], vals[j])
			if !same && deep {
				same, _ = deepSame(vals[i], vals[j], "", nil)
			}
			if same {
				dup = fmt.Sprintf("%s and %s are both %s", pathKey(keys[i]), pathKey(keys[j]), formatValue(vals[i]))
				break
			}
		}
	}
	if (dup == "") != neg {
		return nil
	}
	f := &failure{Expected: "unique values", Actual: formatValue(list), values: true}
	if neg {
		f.Expected = "some values repeated"
	} else {
		f.Note = dup
	}
	return f
}

// findIn is string.find(s, pattern, init, plain) as luassert's matches
// uses it, on the budgeted matcher.
func findIn(r *runner, L *lua.LState, s string, pat lua.LValue, init, plain lua.LValue) bool {
	p := lua.LVAsString(pat)
	if n, ok := init.(lua.LNumber); ok {
		i := int(n)
		if i < 0 {
			i = max(len(s)+i+1, 1)
		}
		if i > len(s)+1 {
			return false
		}
		if i > 1 {
			s = s[i-1:]
		}
	}
	if lua.LVAsBool(plain) {
		return strings.Contains(s, p)
	}
	ok, err := r.vm.Find(s, p)
	if err != nil {
		L.RaiseError("%v", err)
	}
	return ok
}

// checkMatches is matches(pattern, actual [, init [, plain]]).
func checkMatches(r *runner, L *lua.LState, a args, neg bool, _ *chain) *failure {
	pat, act := a.at(1), a.at(2)
	if _, ok := pat.(lua.LString); !ok {
		L.ArgError(1, "a pattern string expected, got "+pat.Type().String())
	}
	ok := false
	switch act.(type) {
	case lua.LString, lua.LNumber:
		ok = findIn(r, L, lua.LVAsString(act), pat, a.at(3), a.at(4))
	}
	if ok != neg {
		return nil
	}
	f := &failure{Expected: "a string matching " + formatValue(pat), Actual: formatValue(act), values: true}
	if neg {
		f.Expected = "a string not matching " + formatValue(pat)
	}
	return f
}

// checkError is has_error(fn [, want]): fn must raise, and with want
// the message (without its "file:line: " prefix) must match it as a Lua
// pattern or contain it as plain text. A table compares its contents with a
// table error value.
func checkReturnedArguments(_ *runner, L *lua.LState, a args, neg bool, _ *chain) *failure {
	n, ok := a.at(1).(lua.LNumber)
	if !ok {
		L.ArgError(1, "a number expected, got "+a.at(1).Type().String())
	}
	got := len(a) - 1
	if (float64(got) == float64(n)) != neg {
		return nil
	}
	exp := formatNumber(float64(n)) + " values"
	if neg {
		exp = "not " + exp
	}
	return &failure{Expected: exp, Actual: fmt.Sprintf("%d values", got), values: true}
}

// deepSame compares deeply: tables by their contents (raw, recursively),
// a matcher by what it accepts, anything else with raw ==. at is where the
// first difference is found (".key" or "[key]"), "" when the values
// themselves differ.
