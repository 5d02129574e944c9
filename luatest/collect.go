package luatest

import (
	"strings"

	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// Collecting a test file: the busted-style globals (describe, it, pending,
// setup, teardown, finally, before_each, after_each) record blocks and
// tests while the file body runs.

// ---- collection ----

func (r *runner) notRunning(L *lua.LState, fn string) {
	if r.running {
		L.RaiseError("%s cannot be called while the tests run (only in the file body or a describe block)", fn)
	}
}

// luaDescribe records a describe block. As busted does, its body runs when
// the run reaches it, after the tests before it (expand): state that those
// tests' hooks set is visible to it.
func (r *runner) luaDescribe(L *lua.LState) int {
	r.notRunning(L, "describe")
	name := L.CheckString(1)
	fn := L.CheckFunction(2)
	b := &block{name: name, parent: r.cur, pos: callerPos(L)}
	r.add(&testCase{name: r.blockName(b), block: b, fn: fn, pos: b.pos, describe: true})
	return 0
}

// luaInsulate is insulate(name, fn): a describe block whose changes to the
// globals, and the modules it requires, are undone when it ends (expand,
// runTests), as busted's insulate does.
func (r *runner) luaInsulate(L *lua.LState) int {
	r.luaDescribe(L)
	(*r.sink)[len(*r.sink)-1].block.insulate = true
	return 0
}

// add records an item (a test, a pending test, a describe block) where the
// body running now collects.
func (r *runner) add(t *testCase) {
	if r.sink == nil {
		r.sink = &r.tests
	}
	*r.sink = append(*r.sink, t)
}

// expand runs describe item d's body and returns the items it recorded,
// in order; a body that raises is one failing item in their place.
func (r *runner) expand(d *testCase) (items []*testCase) {
	if b := d.block; b.insulate {
		b.saved = r.saveGlobals()
		// Where the block ends: its changes are undone there.
		defer func() { items = append(items, &testCase{name: d.name, block: b, pos: d.pos, endOf: true}) }()
	}
	outerSink, outerCur, outerRunning := r.sink, r.cur, r.running
	r.sink, r.cur, r.running = &items, d.block, false
	err := r.call(d.fn)
	r.sink, r.cur, r.running = outerSink, outerCur, outerRunning
	if err != nil {
		items = []*testCase{{name: d.name, block: d.block.parent, pos: d.pos, bodyErr: err}}
	}
	return items
}

// globalsSnapshot is what an insulate block undoes: the file's globals
// and the modules loaded when it began.
type globalsSnapshot struct {
	globals map[lua.LValue]lua.LValue
	modules luabind.LoadedModules
}

func (r *runner) saveGlobals() *globalsSnapshot {
	s := &globalsSnapshot{globals: map[lua.LValue]lua.LValue{}, modules: r.vm.SaveModules()}
	r.vm.L.G.Global.ForEach(func(k, v lua.LValue) { s.globals[k] = v })
	return s
}

func (r *runner) restoreGlobals(s *globalsSnapshot) {
	g := r.vm.L.G.Global
	var added []lua.LValue
	g.ForEach(func(k, _ lua.LValue) {
		if _, ok := s.globals[k]; !ok {
			added = append(added, k)
		}
	})
	for _, k := range added {
		g.RawSet(k, lua.LNil)
	}
	for k, v := range s.globals {
		g.RawSet(k, v)
	}
	r.vm.RestoreModules(s.modules)
}

func (r *runner) luaIt(L *lua.LState) int {
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
	pos := callerPos(L)
	r.add(&testCase{name: strings.Join(names, " "), block: r.cur, fn: fn, pos: pos})
	return 0
}

// luaPending is pending(name [, fn]): a test written down but not run.
func (r *runner) luaPending(L *lua.LState) int {
	r.notRunning(L, "pending")
	name := L.CheckString(1)
	full := name
	if r.cur != r.root {
		full = r.blockName(r.cur) + " " + name
	}
	r.add(&testCase{name: full, block: r.cur, pos: callerPos(L), pending: true})
	return 0
}

func (r *runner) luaSetup(L *lua.LState) int {
	r.notRunning(L, "setup")
	r.cur.setups = append(r.cur.setups, L.CheckFunction(1))
	return 0
}

func (r *runner) luaTeardown(L *lua.LState) int {
	r.notRunning(L, "teardown")
	r.cur.teardowns = append(r.cur.teardowns, L.CheckFunction(1))
	return 0
}

// luaFinally is finally(fn) inside a test: fn runs when the test body has
// ended, however it ended.
func (r *runner) luaFinally(L *lua.LState) int {
	if !r.running {
		L.RaiseError("finally can only be called inside a test")
	}
	r.finals = append(r.finals, L.CheckFunction(1))
	return 0
}

func (r *runner) luaBeforeEach(L *lua.LState) int {
	r.notRunning(L, "before_each")
	r.cur.befores = append(r.cur.befores, L.CheckFunction(1))
	return 0
}

func (r *runner) luaAfterEach(L *lua.LState) int {
	r.notRunning(L, "after_each")
	r.cur.afters = append(r.cur.afters, L.CheckFunction(1))
	return 0
}
