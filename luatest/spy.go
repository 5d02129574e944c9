package luatest

// Spies, stubs, mocks and matchers, as luassert names them: spy.new(fn),
// spy.on(t, key), stub(t, key, ...), mock(t [, stubbed]), match._ and
// match.is_string() and the like, checked with assert.spy(s).was.called(n),
// .called_with(...), .returned_with(...).

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// maxCalls bounds what a spy records: a spy called in a long loop keeps
// counting, but not every argument list.
const maxCalls = 10_000

// spyState is the Go side of a spy (a Lua table, so s.calls reads).
type spyState struct {
	self    *lua.LTable
	fn      lua.LValue   // what a call runs: the spied function, a stub's invokes, or nil
	rets    []lua.LValue // a stub's return values, when fn is nil
	stub    bool
	count   int         // calls, also past maxCalls
	calls   *lua.LTable // s.calls: {vals = {...}, refs = {...}} each, vals deep-copied
	returns *lua.LTable // s.returnvals: the same for what each call returned

	// spy.on, stub(t, key), mock: where it was put, and what was there.
	target *lua.LTable
	key    lua.LValue
	orig   lua.LValue
}

func (r *runner) spyOf(v lua.LValue) *spyState {
	if t, ok := v.(*lua.LTable); ok {
		return r.spies[t]
	}
	return nil
}

// newSpy makes a spy running fn (nil: nothing) and records it so that it
// is reverted when the test (or, made outside a test, the file) ends.
func (r *runner) newSpy(L *lua.LState, fn lua.LValue, stub bool) *spyState {
	s := &spyState{self: L.NewTable(), fn: fn, stub: stub, calls: L.NewTable(), returns: L.NewTable()}
	s.self.RawSetString("calls", s.calls)
	s.self.RawSetString("returnvals", s.returns)
	s.self.RawSetString("callback", fn)
	L.SetMetatable(s.self, r.spyMT)
	r.spies[s.self] = s
	r.made = append(r.made, s)
	return s
}

// place puts the spy at t[key], remembering what it replaces.
func (s *spyState) place(t *lua.LTable, key lua.LValue) {
	s.target, s.key, s.orig = t, key, t.RawGet(key)
	t.RawSet(key, s.self)
}

// revert puts back what the spy replaced.
func (s *spyState) revert() {
	if s.target != nil && s.target.RawGet(s.key) == s.self {
		s.target.RawSet(s.key, s.orig)
	}
	s.target = nil
}

// revertMade reverts the spies made since mark, newest first.
func (r *runner) revertMade(mark int) {
	for i := len(r.made) - 1; i >= mark; i-- {
		r.made[i].revert()
	}
	r.made = r.made[:mark]
}

// It is long because it is one table of the spy methods busted has
// (called_with, returned_with, clear, revert, …), each a few lines, kept
// together so that the list reads as busted documents it.
func (r *runner) spyMetatable(L *lua.LState) *lua.LTable {
	methods := L.NewTable()
	self := func(L *lua.LState) *spyState {
		s := r.spyOf(L.Get(1))
		if s == nil {
			L.ArgError(1, "a spy expected (call it as s:method())")
		}
		return s
	}
	methods.RawSetString("clear", L.NewFunction(func(L *lua.LState) int {
		s := self(L)
		s.count = 0
		s.calls = L.NewTable()
		s.returns = L.NewTable()
		s.self.RawSetString("calls", s.calls)
		s.self.RawSetString("returnvals", s.returns)
		L.Push(s.self)
		return 1
	}))
	methods.RawSetString("revert", L.NewFunction(func(L *lua.LState) int {
		s := self(L)
		s.revert()
		L.Push(s.orig)
		return 1
	}))
	methods.RawSetString("returns", L.NewFunction(func(L *lua.LState) int {
		s := self(L)
		s.fn, s.rets = lua.LNil, nil
		for i := 2; i <= L.GetTop(); i++ {
			s.rets = append(s.rets, L.Get(i))
		}
		L.Push(s.self)
		return 1
	}))
	methods.RawSetString("invokes", L.NewFunction(func(L *lua.LState) int {
		s := self(L)
		s.fn = L.CheckFunction(2)
		L.Push(s.self)
		return 1
	}))
	methods.RawSetString("called", L.NewFunction(func(L *lua.LState) int {
		s := self(L)
		n := s.count
		if want, ok := L.Get(2).(lua.LNumber); ok {
			L.Push(lua.LBool(float64(n) == float64(want)))
		} else {
			L.Push(lua.LBool(n > 0))
		}
		L.Push(lua.LNumber(n))
		return 2
	}))
	with := func(returns bool) *lua.LFunction {
		return L.NewFunction(func(L *lua.LState) int {
			s := self(L)
			want := L.Get(2)
			t, ok := want.(*lua.LTable)
			if !ok {
				L.ArgError(2, "a table of arguments expected")
			}
			var a args
			for i := 1; i <= t.Len(); i++ {
				a = append(a, t.RawGetInt(i))
			}
			L.Push(lua.LBool(s.matchingCall(a, returns) != nil))
			return 1
		})
	}
	methods.RawSetString("called_with", with(false))
	methods.RawSetString("returned_with", with(true))

	mt := L.NewTable()
	mt.RawSetString("__metatable", lua.LFalse)
	mt.RawSetString("__index", methods)
	mt.RawSetString("__call", L.NewFunction(func(L *lua.LState) int {
		s := self(L)
		n := L.GetTop() - 1
		in := make([]lua.LValue, n)
		for i := range in {
			in[i] = L.Get(i + 2)
		}
		s.count++
		if s.count <= maxCalls {
			s.calls.Append(callRecord(L, in))
		}
		var out []lua.LValue
		switch fn := s.fn.(type) {
		case *lua.LFunction:
			top := L.GetTop()
			L.Push(fn)
			for _, v := range in {
				L.Push(v)
			}
			L.Call(n, lua.MultRet)
			for i := top + 1; i <= L.GetTop(); i++ {
				out = append(out, L.Get(i))
			}
			L.SetTop(top)
		case *lua.LNilType:
			out = s.rets
		default:
			L.RaiseError("the spied value is a %s, not a function", fn.Type())
		}
		if s.count <= maxCalls {
			s.returns.Append(callRecord(L, out))
		}
		for _, v := range out {
			L.Push(v)
		}
		return len(out)
	}))
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		s := r.spyOf(L.Get(1))
		kind := "spy"
		if s != nil && s.stub {
			kind = "stub"
		}
		L.Push(lua.LString(kind))
		return 1
	}))
	return mt
}

// callRecord is {vals = {...}, refs = {...}, n = N}: vals deep-copied (what
// the arguments were at the call, as luassert keeps them), refs as given.
func callRecord(L *lua.LState, vals []lua.LValue) *lua.LTable {
	rec := L.CreateTable(0, 3)
	v := L.CreateTable(len(vals), 0)
	rf := L.CreateTable(len(vals), 0)
	copies := map[*lua.LTable]*lua.LTable{}
	for i, x := range vals {
		v.RawSetInt(i+1, deepCopy(L, x, copies))
		rf.RawSetInt(i+1, x)
	}
	rec.RawSetString("vals", v)
	rec.RawSetString("refs", rf)
	rec.RawSetString("n", lua.LNumber(len(vals)))
	return rec
}

// deepCopy copies tables (keeping their metatables and shared parts
// shared); anything else is itself.
func deepCopy(L *lua.LState, v lua.LValue, copies map[*lua.LTable]*lua.LTable) lua.LValue {
	t, ok := v.(*lua.LTable)
	if !ok {
		return v
	}
	if c, ok := copies[t]; ok {
		return c
	}
	c := L.CreateTable(t.Len(), 0)
	copies[t] = c
	t.ForEach(func(k, x lua.LValue) { c.RawSet(deepCopy(L, k, copies), deepCopy(L, x, copies)) })
	if mt, ok := t.Metatable.(*lua.LTable); ok {
		c.Metatable = mt
	}
	return c
}

// matchingCall is the first recorded call (or return) whose values match
// want: as many values, each the same (deeply) or accepted by a matcher.
func (s *spyState) matchingCall(want args, returns bool) *lua.LTable {
	list := s.calls
	if returns {
		list = s.returns
	}
	for i := 1; i <= list.Len(); i++ {
		rec, _ := list.RawGetInt(i).(*lua.LTable)
		if rec == nil {
			continue
		}
		vals, _ := rec.RawGetString("vals").(*lua.LTable)
		refs, _ := rec.RawGetString("refs").(*lua.LTable)
		n, _ := rec.RawGetString("n").(lua.LNumber)
		if vals == nil || refs == nil || int(n) != len(want) {
			continue
		}
		ok := true
		for j, w := range want {
			got := vals.RawGetInt(j + 1)
			if matcherOf(w) != nil {
				got = refs.RawGetInt(j + 1) // a matcher sees the value itself (match.is_ref)
			}
			if same, _ := deepSame(w, got, "", nil); !same {
				ok = false
				break
			}
		}
		if ok {
			return rec
		}
	}
	return nil
}

// describeCalls shows a spy's recorded calls (or returns), at most five.
func (s *spyState) describeCalls(returns bool) string {
	list := s.calls
	what := "calls"
	if returns {
		list, what = s.returns, "returns"
	}
	if list.Len() == 0 {
		return "no " + what
	}
	var parts []string
	for i := 1; i <= list.Len(); i++ {
		if i > 5 {
			parts = append(parts, fmt.Sprintf("… %d more", list.Len()-5))
			break
		}
		rec, _ := list.RawGetInt(i).(*lua.LTable)
		parts = append(parts, formatArgs(rec))
	}
	return what + ": " + strings.Join(parts, ", ")
}

func formatArgs(rec *lua.LTable) string {
	if rec == nil {
		return "()"
	}
	vals, _ := rec.RawGetString("vals").(*lua.LTable)
	n, _ := rec.RawGetString("n").(lua.LNumber)
	parts := make([]string, int(n))
	for i := range parts {
		var v lua.LValue = lua.LNil
		if vals != nil {
			v = vals.RawGetInt(i + 1)
		}
		parts[i] = formatValue(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func checkCalled(_ *runner, _ *lua.LState, a args, neg bool, c *chain) *failure {
	s := c.spy
	want, counted := a.at(1).(lua.LNumber)
	ok := s.count > 0
	exp := "called"
	if counted {
		ok = float64(s.count) == float64(want)
		exp = fmt.Sprintf("called %s times", formatNumber(float64(want)))
	}
	if ok != neg {
		return nil
	}
	if neg {
		exp = "not " + exp
	}
	return &failure{Expected: exp, Actual: fmt.Sprintf("called %d times", s.count), values: true}
}

func checkCallCount(what string, cmp func(n, want int) bool) checker {
	return func(_ *runner, L *lua.LState, a args, neg bool, c *chain) *failure {
		want, ok := a.at(1).(lua.LNumber)
		if !ok {
			L.ArgError(1, "a number of calls expected")
		}
		if cmp(c.spy.count, int(want)) != neg {
			return nil
		}
		exp := fmt.Sprintf("called %s %s times", what, formatNumber(float64(want)))
		if neg {
			exp = "not " + exp
		}
		return &failure{Expected: exp, Actual: fmt.Sprintf("called %d times", c.spy.count), values: true}
	}
}

func checkCalledWith(returns bool) checker {
	return func(_ *runner, _ *lua.LState, a args, neg bool, c *chain) *failure {
		if (c.spy.matchingCall(a, returns) != nil) != neg {
			return nil
		}
		parts := make([]string, len(a))
		for i, v := range a {
			parts[i] = formatValue(v)
		}
		exp := "a call with (" + strings.Join(parts, ", ") + ")"
		if returns {
			exp = "a return of (" + strings.Join(parts, ", ") + ")"
		}
		if neg {
			exp = "no " + strings.TrimPrefix(exp, "a ")
		}
		return &failure{Expected: exp, Actual: c.spy.describeCalls(returns), values: true}
	}
}

// ---- the spy, stub, mock and match globals ----

func (r *runner) spyGlobal(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	newSpy := func(L *lua.LState, at int) int {
		fn := L.Get(at)
		if fn == lua.LNil {
			fn = L.NewFunction(func(*lua.LState) int { return 0 })
		} else if !callable(fn) {
			L.ArgError(at, "a function expected, got "+fn.Type().String())
		}
		L.Push(r.newSpy(L, fn, false).self)
		return 1
	}
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int { return newSpy(L, 1) }))
	t.RawSetString("on", L.NewFunction(func(L *lua.LState) int {
		target := L.CheckTable(1)
		key := L.CheckAny(2)
		fn := L.GetTable(target, key)
		if !callable(fn) {
			L.ArgError(2, fmt.Sprintf("spy.on: %s is %s, not a function", pathKey(key), formatValue(fn)))
		}
		s := r.newSpy(L, fn, false)
		s.place(target, key)
		L.Push(s.self)
		return 1
	}))
	t.RawSetString("is_spy", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LBool(r.spyOf(L.Get(1)) != nil))
		return 1
	}))
	mt := L.NewTable()
	mt.RawSetString("__call", L.NewFunction(func(L *lua.LState) int { return newSpy(L, 2) })) // spy(fn)
	L.SetMetatable(t, mt)
	return t
}

// luaStub is stub(t, key, ...) or stub.new(t, key, ...): t[key] becomes a
// spy returning the given values (nothing by default); with no t, a stub
// of its own.
func (r *runner) luaStub(L *lua.LState, first int) int {
	target, _ := L.Get(first).(*lua.LTable)
	s := r.newSpy(L, lua.LNil, true)
	for i := first + 2; i <= L.GetTop(); i++ {
		s.rets = append(s.rets, L.Get(i))
	}
	if target != nil {
		s.place(target, L.CheckAny(first+1))
	}
	L.Push(s.self)
	return 1
}

func (r *runner) stubGlobal(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int { return r.luaStub(L, 1) }))
	t.RawSetString("is_stub", L.NewFunction(func(L *lua.LState) int {
		s := r.spyOf(L.Get(1))
		L.Push(lua.LBool(s != nil && s.stub))
		return 1
	}))
	mt := L.NewTable()
	mt.RawSetString("__call", L.NewFunction(func(L *lua.LState) int { return r.luaStub(L, 2) }))
	L.SetMetatable(t, mt)
	return t
}

// luaMock is mock(t [, stubbed]): every function in t (and in the tables
// in it) becomes a spy, or a stub returning nothing when stubbed.
func (r *runner) luaMock(L *lua.LState) int {
	t := L.CheckTable(1)
	stubbed := lua.LVAsBool(L.Get(2))
	seen := map[*lua.LTable]bool{}
	var walk func(t *lua.LTable)
	walk = func(t *lua.LTable) {
		if seen[t] || r.spies[t] != nil {
			return
		}
		seen[t] = true
		var keys []lua.LValue
		t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
		for _, k := range keys {
			switch v := t.RawGet(k).(type) {
			case *lua.LFunction:
				var fn lua.LValue = v
				if stubbed {
					fn = lua.LNil
				}
				r.newSpy(L, fn, stubbed).place(t, k)
			case *lua.LTable:
				walk(v)
			}
		}
	}
	walk(t)
	L.Push(t)
	return 1
}

func callable(v lua.LValue) bool {
	switch x := v.(type) {
	case *lua.LFunction:
		return true
	case *lua.LTable:
		if mt, ok := x.Metatable.(*lua.LTable); ok {
			return mt.RawGetString("__call") != lua.LNil
		}
	case *lua.LUserData:
		if mt, ok := x.Metatable.(*lua.LTable); ok {
			return mt.RawGetString("__call") != lua.LNil
		}
	}
	return false
}

// matcher is a value of the match namespace: in called_with, returned_with
// and same it stands for any value it accepts.
type matcher struct {
	desc    string
	accepts func(v lua.LValue) bool
}

func matcherOf(v lua.LValue) *matcher {
	if ud, ok := v.(*lua.LUserData); ok {
		if m, ok := ud.Value.(*matcher); ok {
			return m
		}
	}
	return nil
}

func (r *runner) wrapMatcher(L *lua.LState, m *matcher) lua.LValue {
	ud := L.NewUserData()
	ud.Value = m
	ud.Metatable = r.matcherMT
	return ud
}

// newMatcher makes the matcher of an assertion read through match:
// match.is_string() accepts what assert.is_string would, with the value put
// where the assertion takes the value under test.
func (r *runner) newMatcher(L *lua.LState, c *chain, given args) lua.LValue {
	parts := make([]string, len(given))
	for i, v := range given {
		parts[i] = formatValue(v)
	}
	desc := c.path + "(" + strings.Join(parts, ", ") + ")"
	if custom := r.customMatchers[c.name]; custom != nil {
		L.Push(custom)
		L.Push(L.NewTable())
		t := L.CreateTable(len(given), 1)
		for i, v := range given {
			t.RawSetInt(i+1, v)
		}
		t.RawSetString("n", lua.LNumber(len(given)))
		L.Push(t)
		L.Call(2, 1)
		test := L.Get(-1)
		L.Pop(1)
		neg := c.neg
		return r.wrapMatcher(L, &matcher{desc: desc, accepts: func(v lua.LValue) bool {
			L.Push(test)
			L.Push(v)
			L.Call(1, 1)
			ok := lua.LVAsBool(L.Get(-1))
			L.Pop(1)
			return ok != neg
		}})
	}
	def := c.def
	if def.actual == 0 {
		L.RaiseError("%s cannot be a matcher", desc)
	}
	cc := *c
	cc.matcher = false
	return r.wrapMatcher(L, &matcher{desc: desc, accepts: func(v lua.LValue) bool {
		a := make(args, 0, len(given)+1)
		a = append(a, given[:min(def.actual-1, len(given))]...)
		for len(a) < def.actual-1 {
			a = append(a, lua.LNil)
		}
		a = append(a, v)
		if def.actual-1 < len(given) {
			a = append(a, given[def.actual-1:]...)
		}
		return r.check(L, &cc, a) == nil
	}})
}

func (r *runner) matchGlobal(L *lua.LState) *lua.LTable {
	r.matcherMT = L.NewTable()
	r.matcherMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(matcherOf(L.Get(1)).desc))
		return 1
	}))
	r.matcherMT.RawSetString("__metatable", lua.LFalse)
	t := L.NewTable()
	any := r.wrapMatcher(L, &matcher{desc: "match._", accepts: func(lua.LValue) bool { return true }})
	t.RawSetString("_", any)
	ref := func(L *lua.LState) int {
		want := L.Get(1)
		L.Push(r.wrapMatcher(L, &matcher{desc: "match.is_ref(" + formatValue(want) + ")", accepts: func(v lua.LValue) bool { return v == want }}))
		return 1
	}
	t.RawSetString("is_ref", L.NewFunction(ref))
	t.RawSetString("ref", L.NewFunction(ref))
	t.RawSetString("is_matcher", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LBool(matcherOf(L.Get(1)) != nil))
		return 1
	}))
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		c := r.read(L, chain{path: "match", matcher: true}, L.CheckString(2))
		L.Push(r.newChain(L, c))
		return 1
	}))
	L.SetMetatable(t, mt)
	return t
}
