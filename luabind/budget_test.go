package luabind

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

const testBudget = 50 * time.Millisecond

// budgetVM is a VM with a 50ms callback budget, closed at the end of the test.
func budgetVM(t testing.TB) *VM {
	t.Helper()
	vm := NewVM(Options{Budget: testBudget})
	t.Cleanup(vm.Close)
	return vm
}

// hangLimit only tells a stopped call from a hung one: these tests make no
// claim about speed (a loaded CI machine may be slow), only that runaways end.
const hangLimit = 30 * time.Second

// requireBudget checks err is a budget stop at file:line, reported within a
// reasonable time of start.
func requireBudget(t *testing.T, err error, where string, start time.Time) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, scripterr.ErrBudget)
	require.Equal(t, where+": callback ran past its 50ms budget", err.Error())
	require.Equal(t, where+": callback ran past its 50ms budget", scripterr.ErrorMessage(err))
	var be *scripterr.BudgetError
	require.ErrorAs(t, err, &be)
	require.Equal(t, where, be.Pos.String())
	require.Contains(t, scripterr.Traceback(err), "stack traceback")
	elapsed := time.Since(start)
	require.GreaterOrEqual(t, elapsed, testBudget)
	require.Less(t, elapsed, hangLimit, "stopped, not hung")
}

func TestBudgetStopsRunaways(t *testing.T) {
	for _, tc := range []struct{ name, body, where string }{
		{"loop", "while true do end", "scripts/x.lua:2"},
		{"tail call", "local function f() return f() end\nreturn f()", "scripts/x.lua:2"},
		// Stopped in the inner loop, caught by pcall, stopped again at the
		// outer loop's jump back (line 3, its "end").
		{"pcall swallowing", "while true do pcall(function()\nwhile true do end end) end", "scripts/x.lua:3"},
		// Stopped in the function, then in the handler, then on the
		// callback's return (line 4).
		{"xpcall handler", "xpcall(function() while true do end end, function()\nwhile true do end end)", "scripts/x.lua:4"},
		{"coroutine", "local co = coroutine.wrap(function()\nwhile true do end end)\nco()", "scripts/x.lua:3"},
		{"coroutine resume", "local co = coroutine.create(function() while true do end end)\ncoroutine.resume(co)\nwhile true do end", "scripts/x.lua:4"},
		{"string doubling", "local s = 'x'\nwhile true do s = s .. 'x' end", "scripts/x.lua:3"},
		{"sort comparator", "local t = {} for i = 1, 100 do t[i] = i end\ntable.sort(t, function(a, b)\nwhile true do end end)", "scripts/x.lua:4"},
		{"gsub callback", "('abc'):gsub('.', function()\nwhile true do end end)", "scripts/x.lua:3"},
		{"metamethod", "local t = setmetatable({}, {__index = function()\nwhile true do end end})\nreturn t.x", "scripts/x.lua:3"},
		{"tostring", "print(setmetatable({}, {__tostring = function()\nwhile true do end end}))", "scripts/x.lua:3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := budgetVM(t)
			fn := compileFn(t, vm, "scripts/x.lua", "return function(ctx)\n"+tc.body+"\nend")
			start := time.Now()
			err := vm.CallHook(fn, vm.L.NewTable(), false, 0)
			if tc.name == "string doubling" {
				// Stopped at the loop, or by the cap on the way (a "string
				// too long" can come first on a fast machine): either way quick.
				require.Error(t, err)
				require.Less(t, time.Since(start), hangLimit, "stopped, not hung")
				return
			}
			requireBudget(t, err, tc.where, start)

			// The VM goes on: the next call runs with a fresh budget.
			ok := compileFn(t, vm, "scripts/ok.lua", "return function() local n = 0 for i = 1, 1000 do n = n + i end return n end")
			v, err := vm.Call(ok)
			require.NoError(t, err)
			require.Equal(t, lua.LNumber(500500), v)
		})
	}
}

func TestBudgetEveryHelper(t *testing.T) {
	vm := budgetVM(t)
	fn := compileFn(t, vm, "scripts/h.lua", "return function()\nwhile true do end\nend")
	ctx := vm.L.NewTable()
	checks := map[string]func() error{
		"Call":       func() error { _, err := vm.Call(fn); return err },
		"CallHook":   func() error { return vm.CallHook(fn, ctx, true, 0.1) },
		"CallBool":   func() error { _, err := vm.CallBool(fn, ctx, lua.LNil); return err },
		"CallNumber": func() error { _, err := vm.CallNumber(fn, ctx); return err },
	}
	for name, call := range checks {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			requireBudget(t, call(), "scripts/h.lua:2", start)
			require.Equal(t, 0, vm.L.GetTop(), "stack balanced")
		})
	}
}

func TestBudgetLoad(t *testing.T) {
	vm := NewVM(Options{Budget: time.Hour, LoadBudget: 40 * time.Millisecond})
	defer vm.Close()
	start := time.Now()
	_, err := vm.RunString("scripts/slow.lua", "local ai = require('luaai')\nwhile true do end")
	require.ErrorIs(t, err, scripterr.ErrBudget)
	require.Equal(t, "scripts/slow.lua:2: script ran past its 40ms load budget", err.Error())
	var list scripterr.ErrorList
	require.ErrorAs(t, err, &list, "loaders see an ErrorList")
	require.Equal(t, scripterr.Pos{File: "scripts/slow.lua", Line: 2}, list[0].Pos)
	require.Less(t, time.Since(start), hangLimit, "stopped, not hung")

	// RunMod too, and a script that loads in time is fine.
	proto, err := Compile(strings.NewReader("while true do end"), "scripts/def.lua")
	require.NoError(t, err)
	_, _, err = vm.RunMod(proto)
	require.ErrorIs(t, err, scripterr.ErrBudget)
	v, err := vm.RunString("scripts/fast.lua", "return 1")
	require.NoError(t, err)
	require.Equal(t, lua.LNumber(1), v)

	// Without a load budget, a callback budget does not apply to loading.
	vm2 := NewVM(Options{Budget: time.Millisecond})
	defer vm2.Close()
	v, err = vm2.RunString("scripts/busy.lua", "local n = 0 for i = 1, 3e6 do n = n + 1 end return n")
	require.NoError(t, err)
	require.Equal(t, lua.LNumber(3e6), v)
}

func TestBudgetNested(t *testing.T) {
	// A callback calls Go, which calls back into Lua through the helpers (as
	// agent:tick does): the inner call shares the outer budget, and both
	// report the stop.
	vm := budgetVM(t)
	inner := compileFn(t, vm, "scripts/inner.lua", "return function()\nwhile true do end\nend")
	var innerErr error
	vm.L.SetGlobal("tick_other", vm.L.NewFunction(func(L *lua.LState) int {
		innerErr = vm.CallHook(inner, L.NewTable(), false, 0)
		if innerErr != nil {
			L.RaiseError("agent:tick: %v", innerErr)
		}
		return 0
	}))
	outer := compileFn(t, vm, "scripts/outer.lua", "return function()\ntick_other()\nend")
	start := time.Now()
	err := vm.CallHook(outer, vm.L.NewTable(), false, 0)
	require.ErrorIs(t, innerErr, scripterr.ErrBudget)
	require.ErrorIs(t, err, scripterr.ErrBudget)
	require.Equal(t, "scripts/inner.lua:2: callback ran past its 50ms budget", innerErr.Error())
	require.Equal(t, "scripts/outer.lua:2: callback ran past its 50ms budget", err.Error())
	require.Less(t, time.Since(start), hangLimit, "stopped, not hung")

	// Nested calls that finish leave the outer call's budget alone.
	quick := compileFn(t, vm, "scripts/quick.lua", "return function() return 1 end")
	vm.L.SetGlobal("quick", vm.L.NewFunction(func(L *lua.LState) int {
		v, err := vm.Call(quick)
		if err != nil {
			L.RaiseError("%v", err)
		}
		L.Push(v)
		return 1
	}))
	sum := compileFn(t, vm, "scripts/sum.lua", "return function() local n = 0 for i = 1, 1000 do n = n + quick() end return n end")
	v, err := vm.Call(sum)
	require.NoError(t, err)
	require.Equal(t, lua.LNumber(1000), v)
}

func TestBudgetCoroutinesSurviveOtherStops(t *testing.T) {
	// One agent's suspended coroutine is not killed when another agent's
	// callback in the same VM runs past its budget.
	vm := budgetVM(t)
	fns, err := vm.RunString("scripts/co.lua", `
		local co
		return {
			start = function() co = coroutine.create(function() for i = 1, 10 do coroutine.yield(i) end end) return select(2, coroutine.resume(co)) end,
			step = function() return select(2, coroutine.resume(co)) end,
			wrapped = function() local f = coroutine.wrap(function() coroutine.yield(1) return 2 end) return f() + f() end,
			spin = function() while true do end end,
		}`)
	require.NoError(t, err)
	get := func(name string) *lua.LFunction { return fns.(*lua.LTable).RawGetString(name).(*lua.LFunction) }
	v, err := vm.Call(get("start"))
	require.NoError(t, err)
	require.Equal(t, lua.LNumber(1), v)
	_, err = vm.Call(get("spin"))
	require.ErrorIs(t, err, scripterr.ErrBudget)
	v, err = vm.Call(get("step"))
	require.NoError(t, err)
	require.Equal(t, lua.LNumber(2), v)
	v, err = vm.Call(get("wrapped"))
	require.NoError(t, err)
	require.Equal(t, lua.LNumber(3), v)
}

func TestBudgetStaleStopMissesNextCall(t *testing.T) {
	// The watchdog decides to stop call s, but s has finished and call s+1
	// runs: the compare-and-swap on the sequence number makes the stop miss.
	vm := budgetVM(t)
	b := vm.guard.bud
	ok := compileFn(t, vm, "scripts/ok.lua", "return function() return 1 end")
	_, err := vm.Call(ok)
	require.NoError(t, err)
	finished := b.seq << budgetSeqShift
	var hit atomic.Bool
	vm.L.SetGlobal("stale", vm.L.NewFunction(func(L *lua.LState) int {
		b.fire(finished, 0) // too late for the call it was meant for
		if b.expired() {
			hit.Store(true)
		}
		return 0
	}))
	next := compileFn(t, vm, "scripts/next.lua", "return function() stale() local n = 0 for i = 1, 1000 do n = n + 1 end return n end")
	v, err := vm.Call(next)
	require.NoError(t, err)
	require.Equal(t, lua.LNumber(1000), v)
	require.False(t, hit.Load())
}

func TestBudgetStress(t *testing.T) {
	// Calls around the budget, back to back: no call is stopped before it
	// has run for its budget (the watchdog measures from when it first sees
	// a call, never before its start, and a stop meant for a finished call
	// misses the next one). The budget is wall time: a call the OS
	// preempts for longer than the budget is stopped, so the check is on
	// the time each call took, not on how long it meant to spin.
	if testing.Short() {
		t.Skip("stress")
	}
	const budget = 4 * time.Millisecond
	vm := NewVM(Options{Budget: budget})
	defer vm.Close()
	fn := compileFn(t, vm, "scripts/s.lua", `return function(ctx)
		local stop = ctx.stop
		while os.clock() < stop do end
	end`)
	clock := func() float64 {
		v, err := vm.RunString("c.lua", "return os.clock()")
		require.NoError(t, err)
		return float64(v.(lua.LNumber))
	}
	stopped, ran := 0, 0
	for i := 0; i < 400; i++ {
		d := []float64{0, 0.0005, 0.001, 0.003, 0.006, 0.012}[i%6]
		ctx := vm.L.NewTable()
		ctx.RawSetString("stop", lua.LNumber(clock()+d))
		start := time.Now()
		err := vm.CallHook(fn, ctx, false, 0)
		took := time.Since(start)
		if err != nil {
			require.ErrorIs(t, err, scripterr.ErrBudget)
			require.GreaterOrEqual(t, took, budget, "a call was stopped %v after it started", took)
			stopped++
		} else {
			ran++
		}
	}
	// How many of the longer calls are stopped depends on how promptly the
	// watchdog is scheduled on a loaded machine; that some are is enough.
	require.Positive(t, stopped)
	require.Positive(t, ran)
}

func TestBudgetWatchdogLifecycle(t *testing.T) {
	vm := NewVM(Options{Budget: 4 * time.Millisecond})
	b := vm.guard.bud
	require.False(t, b.running.Load(), "no goroutine before the first call")
	fn := compileFn(t, vm, "scripts/w.lua", "return function() end")
	_, err := vm.Call(fn)
	require.NoError(t, err)
	require.True(t, b.running.Load(), "started by the first budgeted call")

	// A finished call's word stays until Idle: the watchdog, which stops
	// that call once it is past its budget, must not break the next call:
	// the watchdog looks at it well past the budget (20 looks of 1 ms
	// against 4 ms), however long those take on a busy machine.
	for seen := b.looks.Load(); b.looks.Load() < seen+20; {
		runtime.Gosched()
	}
	_, err = vm.Call(fn)
	require.NoError(t, err, "a stale stop does not reach the next call")

	// Idle: it exits by itself (64 ticks of 1ms) ...
	vm.Idle()
	require.Eventually(t, func() bool { return !b.running.Load() }, 2*time.Second, 5*time.Millisecond)
	// ... and comes back with the next call, which it still stops.
	spin := compileFn(t, vm, "scripts/spin.lua", "return function() while true do end end")
	_, err = vm.Call(spin)
	require.ErrorIs(t, err, scripterr.ErrBudget)
	require.True(t, b.running.Load())

	vm.Close() // stops and waits for it
	require.False(t, b.running.Load())
	require.Equal(t, 0, watchdogs(), "the watchdog goroutine is gone")
	vm.Close() // twice is fine
}

// watchdogs counts the goroutines running budget.watch.
func watchdogs() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "luabind.(*budget).watch(")
}

func TestBudgetOffByDefault(t *testing.T) {
	vm := NewVM(Options{})
	defer vm.Close()
	require.Nil(t, vm.guard.bud)
	require.Nil(t, vm.L.Context(), "no context: the VM loop runs without the per-instruction poll")
}

func TestRecursionAndStackLimits(t *testing.T) {
	vm := NewVM(Options{Budget: 10 * time.Second}) // these must end by themselves
	defer vm.Close()
	t.Run("ordinary", func(t *testing.T) {
		v, err := vm.RunString("scripts/ok.lua", `
			local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
			local t = {}
			for i = 1, 100000 do t[i] = {i} end
			local s = ""
			for i = 1, 10000 do s = s .. "x" end
			local parts = {}
			for i = 1, 10000 do parts[#parts + 1] = tostring(i) end
			return depth(150) + #t + #s + #table.concat(parts) + select("#", unpack(t, 1, 5000))`)
		require.NoError(t, err)
		require.Equal(t, lua.LNumber(150+100000+10000+38894+5000), v)
	})
	for _, tc := range []struct{ name, src, want string }{
		{"recursion", "local function f() return f() + 1 end\nf()", "stack overflow"},
		{"recursion with args", "local function f(a, b, c) return f(a, b, c) + 1 end\nf(1, 2, 3)", "stack overflow"},
		{"recursion through pcall", "local function f() local ok, e = pcall(f) error(e, 0) end\nf()", "stack overflow"},
		{"metamethod recursion", "local t = setmetatable({}, {})\ngetmetatable(t).__index = function(t, k) return t[k] end\nreturn t.x", "stack overflow"},
		{"unpack", "return unpack({}, 1, 1e7)", "too many results to unpack"},
		{"string.byte", "local s = ('x'):rep(2^22) return s:byte(1, -1)", "string slice too long"},
		{"many results", "return select('#', unpack({}, 1, 2^31))", "too many results to unpack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn := compileFn(t, vm, "scripts/deep.lua", "return function()\n"+tc.src+"\nend")
			start := time.Now()
			_, err := vm.Call(fn)
			require.Error(t, err)
			require.NotErrorIs(t, err, scripterr.ErrBudget)
			require.Contains(t, err.Error(), tc.want)
			require.Contains(t, scripterr.ErrorMessage(err), "scripts/deep.lua:")
			require.Less(t, time.Since(start), hangLimit, "stopped, not hung")
			require.Equal(t, 0, vm.L.GetTop())
		})
	}
}

// panicker is a Go value whose bound method panics.
type panicker struct{}

func (panicker) Boom()            { panic("boom from Go") }
func (panicker) Nil() int         { var m map[string]int; m["x"]++; return 0 }
func (panicker) Err() error       { return errors.New("plain error") }
func (panicker) Deref(p *int) int { return *p }

func TestGoPanicsComeBackAsErrors(t *testing.T) {
	vm := budgetVM(t)
	vm.L.SetGlobal("obj", luar.New(vm.L, panicker{}))
	vm.L.SetGlobal("gopanic", vm.L.NewFunction(func(*lua.LState) int { panic(fmt.Errorf("raw panic")) }))
	for _, tc := range []struct{ call, want string }{
		{"obj:Boom()", "boom from Go"},
		{"obj:Nil()", "assignment to entry in nil map"},
		{"obj:Deref(nil)", "nil pointer dereference"},
		{"gopanic()", "raw panic"},
	} {
		t.Run(tc.call, func(t *testing.T) {
			fn := compileFn(t, vm, "scripts/p.lua", "return function(ctx)\n"+tc.call+"\nend")
			err := vm.CallHook(fn, vm.L.NewTable(), false, 0)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.NotErrorIs(t, err, scripterr.ErrBudget)
			require.Equal(t, 0, vm.L.GetTop())
			// And the VM is fine afterwards.
			ok := compileFn(t, vm, "scripts/ok.lua", "return function() return ('x'):rep(2) end")
			v, err := vm.Call(ok)
			require.NoError(t, err)
			require.Equal(t, "xx", v.String())
		})
	}
}

// BenchmarkBudget measures what the budget costs a Lua loop: off runs
// without a context (gopher-lua's plain VM loop), on with the budget's
// context polled before every instruction. ns/instr is per VM instruction.
// arith is `x = x + i` (2 instructions an iteration, ADD and FORLOOP, each
// allocating a number), moves is ten register moves and FORLOOP (11, one
// allocation): the poll costs the same absolute time in both, a larger
// share of the cheaper instructions.
//
//	go test ./luabind -run XXX -bench BenchmarkBudget -count 5
func BenchmarkBudget(b *testing.B) {
	const n = 1_000_000
	for _, loop := range []struct {
		name  string
		body  string
		instr int
	}{
		{"arith", "x = x + i", 2},
		{"moves", strings.Repeat("x = y y = x ", 5), 11},
	} {
		src := fmt.Sprintf("return function() local x, y = 0, 1 for i = 1, %d do %s end return x end", n, loop.body)
		for _, mode := range []struct {
			name   string
			budget time.Duration
		}{{"off", 0}, {"on", time.Minute}} {
			b.Run(loop.name+"/"+mode.name, func(b *testing.B) {
				vm := NewVM(Options{Budget: mode.budget})
				defer vm.Close()
				fn := compileFn(b, vm, "bench.lua", src)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := vm.Call(fn); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(loop.instr*n), "ns/instr")
			})
		}
	}
}

// BenchmarkBudgetCall measures the per-call bookkeeping on an empty
// callback: /off without a budget, /on with one, /pinned with one under
// VM.Pin (as a host's worker calls). Where budgets are charged as CPU
// time, /on locks the goroutine to its thread and looks the thread up on
// every call, /pinned once.
func BenchmarkBudgetCall(b *testing.B) {
	for _, mode := range []struct {
		name   string
		budget time.Duration
		pin    bool
	}{{"off", 0, false}, {"on", time.Minute, false}, {"pinned", time.Minute, true}} {
		b.Run(mode.name, func(b *testing.B) {
			vm := NewVM(Options{Budget: mode.budget})
			defer vm.Close()
			if mode.pin {
				vm.Pin()
				defer vm.Unpin()
			}
			fn := compileFn(b, vm, "bench.lua", "return function(ctx) end")
			ctx := vm.L.NewTable()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := vm.CallHook(fn, ctx, false, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
