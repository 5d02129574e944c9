package luatest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// RunFile runs one *_test.lua file with h, writing failures (and a line
// per file error) to w (docs/lua-reference.md: Agents from Lua, and tests).
//
// For the duration of the file the busted-style globals describe, it,
// before_each, after_each and assert are installed; whatever those globals
// held before is put back afterwards. As in busted, the file body records
// its tests and describe blocks; a describe's body runs when the run
// reaches it, after the tests before it; each `it` runs in order, with the
// before_each hooks of its enclosing blocks (outer to inner) before it and
// their after_each hooks (inner to outer) after it. A file that does not
// compile, or whose body raises an error, counts as one failure and none of
// its tests run; a describe body that raises fails that block.
//
// opts chooses the tests (by name pattern and #tags, as busted's --filter and
// --tags do) and where the ai.log lines of a failing test come from; its
// zero value runs every test. A malformed pattern in opts is an error
// (see Options.Check) and runs nothing.
//
// The Result counts the tests and holds each one's Case. The error is
// non-nil when the file's tests did not run (it wraps ErrFileNotRun, and
// the host's error when the host could not run Lua): that failure is also
// written to w and counted in the Result as one errored Case, so a caller
// that prints w and sums Results may ignore it.
//
// RunFile runs on the calling goroutine, in h's Lua state (Host.RunLua):
// call it where h is owned, never while h ticks on another goroutine.
func RunFile(h *host.Host, path string, w io.Writer, opts Options) (Result, error) {
	if opts.Filter != "" || opts.FilterOut != "" {
		if err := opts.Check(); err != nil {
			return Result{}, err
		}
	}
	var r Result
	var fileErr error
	var cases []Case
	user := opts.OnCase
	opts.OnCase = func(c Case) {
		cases = append(cases, c)
		if user != nil {
			user(c)
		}
	}
	opts.host = h
	err := hosttool.RunLua(h, func(vm *defs.VM) error {
		r, fileErr = runFile(vm, path, w, opts)
		return nil
	})
	if err != nil {
		writeFileFailure(w, opts.OnCase, path, scripterr.Pos{File: path}, scripterr.Pos{}, err.Error())
		r, fileErr = Result{Failed: 1}, fmt.Errorf("%s: %w: %w", path, ErrFileNotRun, err)
	}
	r.Cases = cases
	return r, fileErr
}

// Options are RunFile's choices. The zero value runs every test of the file.
type Options struct {
	// Filter runs only the tests whose full name (the describe names and
	// the it name, joined by spaces) matches this Lua pattern.
	Filter string
	// FilterOut skips the tests whose full name matches this Lua pattern.
	FilterOut string
	// Tags runs only the tests tagged with one of these: a tag is a word
	// after "#" in the name of the test or of a describe around it.
	Tags []string
	// ExcludeTags skips the tests tagged with one of these.
	ExcludeTags []string
	// Verbose prints a line for each passing test ("ok file:line: name").
	Verbose bool
	// OnCase, when set, is told each test's outcome as it is known, in
	// the order the tests ran.
	OnCase func(Case)
	host   *host.Host // RunFile's: the test's agents are removed when it ends
	// Log, when set, collects the ai.log lines of the host the file runs
	// in (give Log.Add as host.Options.OnLog): a failing test's lines are
	// printed under its failure.
	Log *Log
}

// Check reports a malformed pattern in Filter or FilterOut, naming the
// option; RunFile would report it at the first test.
func (o Options) Check() error {
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	for _, f := range []struct{ name, pat string }{{"filter", o.Filter}, {"filter-out", o.FilterOut}} {
		if f.pat == "" {
			continue
		}
		if _, err := vm.Find("", f.pat); err != nil {
			return fmt.Errorf("%s %q: %w", f.name, f.pat, err)
		}
	}
	return nil
}

// Log collects ai.log lines for RunFile, one test at a time.
type Log struct {
	lines   []string
	dropped int
}

// maxLogLines is how many lines of a test a Log keeps (the last ones).
const maxLogLines = 50

// Add takes one line; it is host.Options.OnLog.
func (l *Log) Add(e host.Log) {
	state := e.State
	if state == "" {
		state = "(root)"
	}
	l.lines = append(l.lines, fmt.Sprintf("agent %d tick %d %s: %s", e.Agent, e.Tick, state, e.Msg))
	if len(l.lines) > maxLogLines {
		l.dropped += len(l.lines) - maxLogLines
		l.lines = append(l.lines[:0], l.lines[len(l.lines)-maxLogLines:]...)
	}
}

func (l *Log) reset() {
	if l != nil {
		l.lines, l.dropped = l.lines[:0], 0
	}
}

// write prints the lines under a failure.
func (l *Log) write(w io.Writer) {
	if l == nil || len(l.lines) == 0 {
		return
	}
	fmt.Fprintln(w, "  ai.log:")
	if l.dropped > 0 {
		fmt.Fprintf(w, "    (%d earlier lines not kept)\n", l.dropped)
	}
	for _, line := range l.lines {
		fmt.Fprintf(w, "    %s\n", line)
	}
}

// selected reports whether opts runs the test t.
func (r *runner) selected(t *testCase, opts Options) (bool, error) {
	name := t.name
	if opts.Filter != "" {
		ok, err := r.vm.Find(name, opts.Filter)
		if err != nil || !ok {
			return false, err
		}
	}
	if opts.FilterOut != "" {
		ok, err := r.vm.Find(name, opts.FilterOut)
		if err != nil || ok {
			return false, err
		}
	}
	tags := tagsOf(name)
	if len(opts.Tags) > 0 && !slices.ContainsFunc(opts.Tags, func(t string) bool { return tags[t] }) {
		return false, nil
	}
	return !slices.ContainsFunc(opts.ExcludeTags, func(t string) bool { return tags[t] }), nil
}

// tagsOf is the #tags in a test's full name.
func tagsOf(name string) map[string]bool {
	tags := map[string]bool{}
	for _, f := range strings.Fields(name) {
		if tag, ok := strings.CutPrefix(f, "#"); ok && tag != "" {
			tags[tag] = true
		}
	}
	return tags
}

// runFile runs a test file in vm (RunFile's, or a bare VM in tests); its
// error is the file's when its tests did not run.
func runFile(vm *defs.VM, path string, w io.Writer, opts Options) (Result, error) {
	loaded := map[*defs.State]bool{}
	for _, b := range vm.Behaviours() {
		loaded[b] = true
	}
	defer func() {
		// What luaai run would say of the behaviours this file loaded: a
		// typo in a field name is legal Lua and would pass silently.
		for _, b := range vm.Behaviours() {
			if loaded[b] {
				continue
			}
			for _, warn := range defs.Warnings(b) {
				fmt.Fprintf(w, "%s: warning: %s\n", warn.Pos, warn.Msg)
			}
		}
	}()
	proto, err := luabind.CompileFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return Result{Failed: 1}, writeFileFailure(w, opts.OnCase, path, scripterr.Pos{File: path}, scripterr.Pos{}, pe.Err.Error())
		}
		pos, msg := scripterr.SplitPos(err.Error())
		at := scripterr.Pos{File: path}
		if pos.File == path {
			at = pos
		}
		return Result{Failed: 1}, writeFileFailure(w, opts.OnCase, path, at, pos, msg)
	}

	L := vm.L
	top := L.GetTop()
	defer L.SetTop(top)
	r := newRunner(vm)
	r.file, r.onCase, r.host = path, opts.OnCase, opts.host
	defer r.revertMade(0)
	if sp := vm.Spawner(); sp != nil {
		vm.SetSpawner(trackingSpawner{sp, r})
		defer vm.SetSpawner(sp)
	}
	defer r.installGlobals(L)()

	// Collect.
	L.Push(L.NewFunctionFromProto(proto))
	if err := vm.PCall(0, 0); err != nil {
		L.SetTop(top)
		return Result{Failed: 1}, r.writeFileError(w, path, err)
	}
	return r.runTests(w, opts, top), nil
}

// newRunner makes the runner of one test file in vm.
func newRunner(vm *defs.VM) *runner {
	L := vm.L
	r := &runner{
		vm: vm, root: &block{},
		spies:  map[*lua.LTable]*spyState{},
		custom: map[string]*lua.LFunction{}, customMatchers: map[string]*lua.LFunction{},
	}
	r.spyMT = r.spyMetatable(L)
	r.cur = r.root
	r.failMT = L.NewTable()
	r.failMT.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		if f := failureOf(L.Get(1)); f != nil {
			L.Push(lua.LString(f.String()))
		} else {
			L.Push(lua.LString("assertion failed"))
		}
		return 1
	}))
	r.failMT.RawSetString("__metatable", lua.LFalse)
	return r
}

// installGlobals sets the busted-style globals for the file; the returned
// function puts back what they held.
func (r *runner) installGlobals(L *lua.LState) (restore func()) {
	g := L.G.Global
	setup, teardown := L.NewFunction(r.luaSetup), L.NewFunction(r.luaTeardown)
	globals := map[string]lua.LValue{
		"describe":        L.NewFunction(r.luaDescribe),
		"context":         L.NewFunction(r.luaDescribe),
		"it":              L.NewFunction(r.luaIt),
		"pending":         L.NewFunction(r.luaPending),
		"before_each":     L.NewFunction(r.luaBeforeEach),
		"after_each":      L.NewFunction(r.luaAfterEach),
		"setup":           setup,
		"lazy_setup":      setup,
		"strict_setup":    setup,
		"teardown":        teardown,
		"lazy_teardown":   teardown,
		"strict_teardown": teardown,
		"finally":         L.NewFunction(r.luaFinally),
		"assert":          r.newAssert(),
		"spy":             r.spyGlobal(L),
		"stub":            r.stubGlobal(L),
		"mock":            L.NewFunction(r.luaMock),
		"match":           r.matchGlobal(L),
		"insulate":        L.NewFunction(r.luaInsulate),
		"expose":          L.NewFunction(r.luaDescribe),
		"reload":          L.NewFunction(r.luaReload),
		"spec":            nil,
		"test":            nil,
	}
	globals["spec"], globals["test"] = globals["it"], globals["it"]
	// busted's globals luaai test lacks: a call says so, rather than
	// "attempt to call a nil value".
	for _, name := range unsupportedGlobals {
		globals[name] = L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("%s is not supported by luaai test", name)
			return 0
		})
	}
	globals["require"] = requireWith(L, g.RawGetString("require"), bustedModules(L, globals, r.sayGlobal(L)))
	saved := make(map[string]lua.LValue, len(globals))
	for name, v := range globals {
		saved[name] = g.RawGetString(name)
		g.RawSetString(name, v)
	}
	return func() {
		for name, v := range saved {
			g.RawSetString(name, v)
		}
	}
}

// runTests runs the collected tests chosen by opts. A block's setup runs
// before the first of its tests, its teardown after the last; a failing
// setup fails the block's tests without running them.
//
// It is long because it is the run's one loop: describe bodies expanded in
// place, setups and teardowns as blocks are entered and left, and each
// test's outcome, all sharing the blocks entered so far.
func (r *runner) runTests(w io.Writer, opts Options, top int) Result {
	L := r.vm.L
	r.running = true
	var res Result
	var entered []*block // the blocks whose setup ran, outer first
	setupErr := map[*block]error{}
	leaveTo := func(keep int) {
		for len(entered) > keep {
			b := entered[len(entered)-1]
			entered = entered[:len(entered)-1]
			for _, fn := range b.teardowns {
				if err := r.call(fn); err != nil {
					res.Failed++
					r.writeFailure(w, &testCase{name: "teardown of " + r.blockName(b), pos: b.pos}, err, 0)
				}
			}
		}
	}
	for i := 0; i < len(r.tests); i++ {
		t := r.tests[i]
		if t.describe {
			// Its body runs now; what it records comes next.
			items := r.expand(t)
			r.tests = append(r.tests[:i+1], append(items, r.tests[i+1:]...)...)
			continue
		}
		if t.endOf {
			for k, b := range entered {
				if b == t.block {
					leaveTo(k)
					break
				}
			}
			r.restoreGlobals(t.block.saved)
			continue
		}
		if t.bodyErr != nil {
			res.Failed++
			r.writeFailure(w, t, t.bodyErr, 0)
			continue
		}
		if ok, err := r.selected(t, opts); err != nil {
			fmt.Fprintf(w, "luaai test: --filter: %v\n", err)
			return Result{Failed: 1}
		} else if !ok {
			continue
		}
		chain := t.chain()
		keep := 0
		for keep < len(entered) && keep < len(chain) && entered[keep] == chain[keep] {
			keep++
		}
		leaveTo(keep)
		var failed error
		for _, b := range chain[keep:] {
			entered = append(entered, b)
			if err := setupErr[b.parent]; err != nil {
				setupErr[b] = err
			}
			for _, fn := range b.setups {
				if setupErr[b] != nil {
					break
				}
				if err := r.call(fn); err != nil {
					setupErr[b] = err
				}
			}
		}
		for _, b := range chain {
			if setupErr[b] != nil {
				failed = setupErr[b]
				break
			}
		}
		switch {
		case t.pending:
			res.Pending++
			text := fmt.Sprintf("PENDING %s: %s\n", t.pos, t.name)
			io.WriteString(w, text)
			r.emit(t, Pending, text, 0)
		case failed != nil:
			res.Failed++
			r.writeFailure(w, t, failed, 0)
		default:
			opts.Log.reset()
			r.spawned = r.spawned[:0]
			began := time.Now()
			err := r.runTest(t)
			took := time.Since(began)
			if err != nil {
				res.Failed++
				var log strings.Builder
				opts.Log.write(&log)
				r.writeFailure(w, t, err, took)
				io.WriteString(w, log.String())
			} else {
				res.Passed++
				var text strings.Builder
				if opts.Verbose {
					fmt.Fprintf(&text, "ok %s: %s\n", t.pos, t.name)
				}
				r.reportUnread(&text, t)
				io.WriteString(w, text.String())
				r.emit(t, Passed, text.String(), took)
			}
			r.endTest()
		}
		L.SetTop(top)
	}
	leaveTo(0)
	return res
}

// chain is the test's blocks, outer first (the file's root block included).
func (t *testCase) chain() []*block {
	var out []*block
	for b := t.block; b != nil; b = b.parent {
		out = append(out, b)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func (r *runner) blockName(b *block) string {
	var names []string
	for ; b != nil; b = b.parent {
		if b.name != "" {
			names = append([]string{b.name}, names...)
		}
	}
	if len(names) == 0 {
		return "the file"
	}
	return strings.Join(names, " ")
}

// call runs fn protected under the VM's budget, leaving the stack as it was.
func (r *runner) call(fn *lua.LFunction) error {
	L := r.vm.L
	top := L.GetTop()
	L.Push(fn)
	err := r.vm.PCall(0, 0)
	L.SetTop(top)
	return err
}

// block is one describe block (the root block is the file itself).
type block struct {
	name      string
	parent    *block
	pos       scripterr.Pos    // where describe was called
	insulate  bool             // insulate: its changes to the globals are undone at its end
	saved     *globalsSnapshot // the globals when an insulate block began
	befores   []*lua.LFunction
	afters    []*lua.LFunction
	setups    []*lua.LFunction
	teardowns []*lua.LFunction
}

// testCase is one collected `it`.
type testCase struct {
	name    string // describe names and the it name, joined by spaces
	block   *block
	fn      *lua.LFunction
	pos     scripterr.Pos // where `it` was called
	pending bool          // pending(name): reported, not run
	// describe: a describe block whose body (fn) runs when the run
	// reaches it, recording the items that follow it.
	describe bool
	bodyErr  error // a describe body that raised: reported as a failure
	// endOf: where the insulate block ends (block): it is left, and the
	// globals it changed are put back.
	endOf bool
}

// runner is the state of one test file's run (runFile).
type runner struct {
	vm      *defs.VM
	root    *block
	cur     *block
	tests   []*testCase
	sink    *[]*testCase // where describe, it and pending record (nil: tests)
	running bool         // the collected tests are running
	host    *host.Host   // the host RunFile runs in; nil in a bare VM
	// reloaded: the behaviours reload swapped during the running test;
	// later tests spawn the scripts' versions from before it.
	reloaded []*host.Behaviour
	file     string     // the test file
	onCase   func(Case) // Options.OnCase
	failMT   *lua.LTable
	finals   []*lua.LFunction // finally() of the running test

	chainMT, spyMT, matcherMT *lua.LTable
	spies                     map[*lua.LTable]*spyState
	made                      []*spyState               // spies to revert, oldest first
	custom, customMatchers    map[string]*lua.LFunction // assert:register
	customMsgs                map[string][2]string      // their say keys: positive, negative
	say                       *say                      // require("say")

	// spawned: the agents ai.spawn made during the running test, whose
	// errors a passing test should have read (agent:errors()).
	spawned []defs.LuaAgent
}

// ---- running ----

// runTest runs the before_each hooks (outer to inner), the test, and the
// after_each hooks (inner to outer), and returns the first error. A failing
// before_each skips the rest of the before_each hooks and the test; the
// after_each hooks always run.
func (r *runner) runTest(t *testCase) error {
	chain := t.chain() // outer first
	var first error
	call := func(fn *lua.LFunction) {
		if err := r.call(fn); err != nil && first == nil {
			first = err
		}
	}
	mark := len(r.made) // the spies made from here on are the test's
	defer r.revertMade(mark)
	for i := 0; i < len(chain) && first == nil; i++ {
		for _, fn := range chain[i].befores {
			if call(fn); first != nil {
				break
			}
		}
	}
	if first == nil {
		r.finals = r.finals[:0]
		call(t.fn)
		finals := r.finals
		r.finals = nil
		for _, fn := range finals {
			call(fn)
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		for _, fn := range chain[i].afters {
			call(fn)
		}
	}
	return first
}
