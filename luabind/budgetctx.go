package luabind

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	lua "github.com/yuin/gopher-lua"
)

// budgetCtx: the one context gopher-lua polls before each instruction,
// which counts the work a callback does and closes when the watchdog stops
// it; and the protected calls that run callbacks under the budget.

// budgetCtx is the one context a budgeted VM's LState (and every coroutine
// the sandbox creates) runs with. Its Done channel is nil (noStop) while
// the running call may go on, and the closed channel once the watchdog
// stops it, until the call returns: a receive from a nil channel in a
// select with a default is the cheapest poll Go has, and gopher-lua polls
// before every instruction. The context.Context contract does not foresee
// a Done that changes, but gopher-lua, which only polls Done and reads Err,
// is fine with it.
// noStop is what budgetCtx.done points to while no stop is published: a
// nil channel, never written.
var noStop chan struct{}

type budgetCtx struct {
	done atomic.Pointer[chan struct{}]
	err  error // written before done is closed, read after

	// The instruction budget (Options.BudgetSteps), VM goroutine only:
	// gopher-lua asks for Done before every instruction, so counting those
	// calls counts instructions, the same on every machine.
	stepLimit int64 // 0: not counting
	steps     int64
	over      bool          // the running call used up its steps
	closed    chan struct{} // closed at birth: what Done gives once over

	// work counts instructions and Go work (VM goroutine); published is
	// its value as of the last 256, for the watchdog.
	work      uint64
	published atomic.Uint64
	b         *budget // for selfCheck
}

// addWork counts n units of Go work done for the running call (VM
// goroutine).
func (c *budgetCtx) addWork(n uint64) {
	c.work += n
	c.published.Store(c.work)
}

func (c *budgetCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *budgetCtx) Value(any) any               { return nil }

func (c *budgetCtx) Done() <-chan struct{} {
	if c.work++; c.work&workPublish == 0 {
		c.published.Store(c.work)
		if c.work&selfCheckMask == 0 && c.b != nil {
			c.b.selfCheck()
		}
	}
	if c.stepLimit > 0 {
		if c.steps++; c.steps > c.stepLimit {
			c.over = true
			return c.closed
		}
	}
	return *c.done.Load()
}

func (c *budgetCtx) Err() error {
	if c.over {
		return errors.New(scripterr.StepsMessage(c.stepLimit))
	}
	select {
	case <-*c.done.Load():
		return c.err
	default:
		return nil
	}
}

// countSteps adds n steps of Go work (pattern matching) to the running
// call's instruction budget; true when it is used up.
func (c *budgetCtx) countSteps(n int64) bool {
	c.addWork(uint64(n))
	if c.stepLimit > 0 {
		if c.steps += n; c.steps > c.stepLimit {
			c.over = true
		}
	}
	return c.over
}

// AfterFunc keeps context.WithCancel(budgetCtx) — which LState.NewThread
// calls — from starting a goroutine per coroutine or keeping a list of
// children: those children are never cancelled through it. The sandbox's
// coroutine functions replace the child by the budgetCtx itself.
func (c *budgetCtx) AfterFunc(func()) func() bool { return func() bool { return true } }

// PCall calls the function below nargs arguments on the stack in protected
// mode, as lua_pcall does, under Options.Budget: a call stopped for running
// too long (or past the memory limit) returns a *BudgetError, and a call
// that caught its own stop is stopped all the same.
func (vm *VM) PCall(nargs, nret int) error { return vm.pcall(nargs, nret, false) }

// pcall is LState.PCall under the VM's budget: load selects
// Options.LoadBudget instead of Options.Budget. A call stopped by the
// watchdog, or by StopOn's context, returns a *BudgetError.
func (vm *VM) pcall(nargs, nret int, load bool) error {
	if vm.recorder != nil || vm.timer != nil {
		return vm.hookedPcall(nargs, nret, load)
	}
	b := vm.guard.bud
	if b == nil {
		err := vm.L.PCall(nargs, nret, nil)
		vm.stringifyError(err)
		if err != nil && vm.stopCtx != nil && vm.stopCtx.Err() != nil {
			return vm.canceledError(err, load, context.Cause(vm.stopCtx))
		}
		return err
	}
	s := b.begin(load)
	if s != 0 && b.locked {
		defer b.unlockThread()
	}
	err := vm.L.PCall(nargs, nret, nil)
	vm.stringifyError(err)
	if w, fired := b.end(s); fired && (err == nil || stoppedByBudget(err, w, b)) {
		// err == nil: the script caught its stop (pcall, coroutine.resume)
		// and returned; it was stopped all the same.
		be := vm.budgetError(err, w)
		if be.Memory > 0 {
			// What the stopped call allocated is garbage now; collect it
			// before the next call measures the heap it starts from.
			vm.L.SetTop(0)
			runtime.GC()
		}
		return be
	}
	return err
}

// stoppedByBudget tells a budget stop from an error that merely came while
// the budget was running out (a Go function failing on its own, a stack
// overflow unwinding slowly): the message of a stop ends with the budget's.
func stoppedByBudget(err error, word uint64, b *budget) bool {
	load := word&budgetLoad != 0
	if word&budgetCancel != 0 {
		return true // the game asked for the stop: whatever the call was doing
	}
	if word&budgetSteps != 0 {
		return strings.HasSuffix(scripterr.ErrorMessage(err), scripterr.StepsMessage(b.steps))
	}
	if word&budgetMem != 0 {
		return strings.HasSuffix(scripterr.ErrorMessage(err), scripterr.MemoryMessage(load, b.memLimit.Load()))
	}
	if word&budgetTick != 0 {
		return strings.HasSuffix(scripterr.ErrorMessage(err), scripterr.TickMessage(b.tick))
	}
	d := b.call
	if load {
		d = b.load
	}
	return strings.HasSuffix(scripterr.ErrorMessage(err), scripterr.BudgetMessage(load, d))
}

func (vm *VM) budgetError(err error, word uint64) *scripterr.BudgetError {
	b := vm.guard.bud
	e := &scripterr.BudgetError{Load: word&budgetLoad != 0, Budget: b.call}
	if e.Load {
		e.Budget = b.load
	}
	if word&budgetMem != 0 {
		e.Memory = b.memLimit.Load()
	}
	if word&budgetSteps != 0 {
		e.Steps = b.steps
	}
	if word&budgetTick != 0 {
		e.Tick, e.Budget = true, b.tick
	}
	if word&budgetCancel != 0 {
		if cause := b.cancel.Load(); cause != nil {
			e.Cause = *cause
		}
	}
	var api *lua.ApiError
	trace := ""
	if errors.As(err, &api) {
		trace = api.StackTrace
	}
	if err != nil {
		e.Pos, _ = scripterr.SplitPos(scripterr.ErrorMessage(err))
	}
	scripterr.SetAPI(e, &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(e.Error()), StackTrace: trace})
	return e
}

// StopOn makes ctx's end stop the VM's calls: the call running when ctx
// is cancelled (or passes its deadline) stops at its next instruction, as a
// runaway does, with a *BudgetError whose Cause is context.Cause(ctx); every
// later call stops at once, until the returned function is called (before
// the VM's next use without ctx). A ctx that cannot end (Done() == nil)
// costs nothing. StopOn and the returned function are called on the VM's
// goroutine; ctx may end on any.
func (vm *VM) StopOn(ctx context.Context) (release func()) {
	if ctx == nil || ctx.Done() == nil {
		return func() {}
	}
	b := vm.guard.bud
	if b == nil {
		// No watchdog: gopher-lua polls the context itself.
		vm.stopCtx = ctx
		vm.L.SetContext(ctx)
		return func() {
			vm.L.RemoveContext()
			vm.stopCtx = nil
		}
	}
	// The AfterFunc runs on a goroutine of its own, possibly after release
	// has returned: released keeps such a late run from stopping the VM's
	// next calls (a cut-short tick would otherwise spoil the next one).
	var mu sync.Mutex
	released := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if released {
			return
		}
		cause := context.Cause(ctx)
		b.cancel.Store(&cause)
		b.interrupt(b.state.Load())
	})
	return func() {
		mu.Lock()
		released = true
		mu.Unlock()
		stop()
		b.cancel.Store(nil)
	}
}

// canceledError is a call of a VM without a budget stopped by StopOn's ctx.
func (vm *VM) canceledError(err error, load bool, cause error) *scripterr.BudgetError {
	e := &scripterr.BudgetError{Load: load, Cause: cause}
	var api *lua.ApiError
	trace := ""
	if errors.As(err, &api) {
		trace = api.StackTrace
	}
	e.Pos, _ = scripterr.SplitPos(scripterr.ErrorMessage(err))
	scripterr.SetAPI(e, &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(e.Error()), StackTrace: trace})
	return e
}

// Idle tells the VM that no call will follow soon (the end of a worker's
// tick): its watchdog may then rest. Calls work without it; the watchdog
// only keeps watching the last finished call until the next one starts.
func (vm *VM) Idle() { vm.guard.bud.idle() }

// callRecorder and callTimer are RecordCalls' and TimeCalls' functions.
type (
	callRecorder = func(fn *lua.LFunction, args []lua.LValue)
	callTimer    = func(fn *lua.LFunction, d time.Duration)
)

// RecordCalls makes the VM report its outermost calls to r until it is
// called with nil: the function and its arguments (a copy of the slice;
// the values are the live ones). Calls made inside a call (a callback's
// ai.* functions reaching Lua) are not reported: the outer call does their
// work. A benchmark records a tick's calls and replays them bare to
// measure what the engine adds to the Lua work.
func (vm *VM) RecordCalls(r func(fn *lua.LFunction, args []lua.LValue)) { vm.recorder = r }

// TimeCalls makes the VM report each outermost call's function and how
// long it ran to t (a profile) until it is called with nil. Off, it costs
// the VM one check per call.
func (vm *VM) TimeCalls(t func(fn *lua.LFunction, d time.Duration)) { vm.timer = t }

// hookedPcall is pcall with a recorder or a timer: the outermost call is
// reported, the calls inside it take the plain path.
func (vm *VM) hookedPcall(nargs, nret int, load bool) error {
	L := vm.L
	fn, _ := L.Get(L.GetTop() - nargs).(*lua.LFunction)
	if vm.recorder != nil && fn != nil {
		top := L.GetTop()
		args := make([]lua.LValue, nargs)
		for i := range args {
			args[i] = L.Get(top - nargs + 1 + i)
		}
		vm.recorder(fn, args)
	}
	r, t := vm.recorder, vm.timer
	vm.recorder, vm.timer = nil, nil
	var t0 time.Time
	if t != nil {
		t0 = time.Now()
	}
	err := vm.pcall(nargs, nret, load)
	if t != nil && fn != nil {
		t(fn, time.Since(t0))
	}
	vm.recorder, vm.timer = r, t
	return err
}
