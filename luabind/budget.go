package luabind

// Runaway budgets.
//
// gopher-lua's only interrupt is LState.SetContext: once a context is set,
// the VM loop (mainLoopWithContext) polls ctx.Done() before every
// instruction and raises ctx.Err() as a Lua error at the current file:line
// when it is closed. A context.WithTimeout per callback would allocate a
// context and a timer on every call, so a VM with a budget instead keeps
// one context for its whole life (budgetCtx, installed once by NewVM) and a
// watchdog goroutine that closes that context's channel when the same
// protected call has been running for longer than its budget:
//
//   - Before each outermost protected call (the Call* helpers and RunProto)
//     the VM stores a fresh call sequence number in an atomic word; after
//     it, it swaps the word back to zero. No clock is read on the call path.
//   - The watchdog ticks every budget/8. When it sees the same sequence
//     number for longer than the budget, it marks that number fired (a
//     compare-and-swap, so a call that finished in the meantime — or the
//     next call, which has another number — is never hit) and closes the
//     channel. The callback stops at its next Lua instruction, between 1x
//     and 1.125x its budget after it started, plus the time the watchdog
//     waits to be scheduled.
//   - The call that was stopped installs a fresh channel as it returns, so
//     the next call starts clean.
//   - The watchdog starts lazily with the first budgeted call, exits after
//     a second or so without calls (and restarts with the next one), and
//     stops for good in VM.Close.
//
// Only work stops a call: the watchdog fires when the call has both run
// past its budget (wall time) and done minWork units of work of its own
// since the watchdog first saw it — Lua instructions (counted in
// budgetCtx.Done, published every 256), Go loops of the sandbox that poll
// the budget, and calls of the game's module functions. A callback that
// was merely descheduled (more workers than cores, the GC, another
// process) has done almost none, and is never blamed for the time it
// waited; a runaway keeps working, and is stopped at the first watchdog
// tick after its budget at which it did.
//
// Calls nested inside a budgeted call (a callback ticking a spawned agent,
// ai.spawn loading a behaviour, a native scorer reading a field through
// __index) share the outer call's budget.
//
// What a budget cannot stop: Go code that runs long without returning to
// the Lua VM loop. The sandbox bounds what it can (string sizes, pattern
// matching, see sandbox.go), but a game's own Go functions bound into Lua
// must be quick.
//
// Coroutines: gopher-lua gives every coroutine a child context of the
// state's (context.WithCancel), which a cancel would kill for good and
// which would otherwise pile up in the parent. The sandbox's
// coroutine.create and coroutine.wrap point each new coroutine at the VM's
// budgetCtx itself, so a coroutine is stopped while it runs past the budget
// of the call resuming it and is unaffected otherwise.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// ErrBudget is wrapped by the error of a callback, or of a script being
// loaded, that ran past its time budget (Options.Budget, Options.LoadBudget).
var ErrBudget = errors.New("ran past its time budget")

// BudgetError is a callback or a script load stopped for running past its
// time budget. It wraps ErrBudget, the *lua.ApiError of the protected call
// (so ErrorMessage and Traceback work as for any other failed callback), and
// an ErrorList of one entry (so a loader's errors.As(err, &list) finds it).
type BudgetError struct {
	// Pos is the file:line the script was running when it was stopped; the
	// zero Pos when it is not known.
	Pos Pos
	// Load is true for a script stopped while it was loading (RunProto,
	// LoadProto), false for a callback.
	Load bool
	// Budget is the budget it ran past.
	Budget time.Duration
	// Steps is set for a call stopped by the instruction budget instead
	// (Options.BudgetSteps): it ran more than Steps Lua instructions.
	Steps int64
	// Memory is set for a call stopped by the memory limit instead
	// (Options.MemoryLimit): it made the heap grow by more than Memory
	// bytes. Such an error wraps ErrMemoryLimit, not ErrBudget.
	Memory int64
	// Cause is set for a call stopped because the context given to StopOn
	// ended: the context's cause (context.Canceled, DeadlineExceeded…),
	// which the error wraps instead of ErrBudget.
	Cause error
	// Tick is set for a call stopped because the agent's whole tick ran
	// past Options.TickBudget (which Budget then holds).
	Tick bool

	api *lua.ApiError
}

// ErrMemoryLimit is wrapped by the error of a callback, or of a script being
// loaded, stopped for allocating past its memory limit.
var ErrMemoryLimit = errors.New("memory limit")

// Msg is the message without the position: "callback ran past its 50ms
// budget", "script ran past its 2s load budget" or "callback went past its
// memory limit (256 MiB)".
func (e *BudgetError) Msg() string {
	if e.Cause != nil {
		return cancelMessage(e.Load, e.Cause)
	}
	if e.Steps > 0 {
		return stepsMessage(e.Steps)
	}
	if e.Memory > 0 {
		return memoryMessage(e.Load, e.Memory)
	}
	if e.Tick {
		return tickMessage(e.Budget)
	}
	return budgetMessage(e.Load, e.Budget)
}

func tickMessage(d time.Duration) string {
	return "the agent's tick ran past its " + d.String() + " budget"
}

func cancelMessage(load bool, cause error) string {
	if load {
		return "script load stopped: " + cause.Error()
	}
	return "callback stopped: " + cause.Error()
}

func budgetMessage(load bool, d time.Duration) string {
	if load {
		return "script ran past its " + d.String() + " load budget"
	}
	return "callback ran past its " + d.String() + " budget"
}

// Error is "file:line: callback ran past its 50ms budget".
func (e *BudgetError) Error() string {
	if e.Pos.File == "" {
		return e.Msg()
	}
	return e.Pos.String() + ": " + e.Msg()
}

// Unwrap returns ErrBudget (or ErrMemoryLimit), the Lua error and the
// position as an ErrorList.
func (e *BudgetError) Unwrap() []error {
	sentinel := ErrBudget
	if e.Memory > 0 {
		sentinel = ErrMemoryLimit
	}
	if e.Cause != nil {
		sentinel = e.Cause
	}
	return []error{sentinel, e.api, ErrorList{{Pos: e.Pos, Msg: e.Msg()}}}
}

// Bits of budget.state: the low six bits flag the call, the next twenty
// are the agent's tick it runs in, the rest its sequence number. Zero
// means no budgeted call is running.
const (
	budgetFired     = 1  // the watchdog stopped this call
	budgetLoad      = 2  // the call is a script load (Options.LoadBudget)
	budgetMem       = 4  // it was stopped by the memory limit
	budgetSteps     = 8  // it was stopped by the instruction budget
	budgetCancel    = 16 // it was stopped by the context given to StopOn
	budgetTick      = 32 // it was stopped by the agent's tick budget
	budgetTickShift = 6  // then the agent's tick (BeginTick), 0 outside one
	budgetTickMask  = 1<<20 - 1
	budgetSeqShift  = 26 // then the call's sequence number
)

// budgetIdleTicks is how many watchdog ticks without a call let the
// watchdog goroutine exit (it restarts with the next call).
const budgetIdleTicks = 64

// The work a call must have done since the watchdog first saw it before
// its time budget can stop it, in Lua instructions (a one-line callback
// runs tens), and what Go work counts as.
const (
	minWork        = 4096
	workPublish    = 255 // publish the count every 256 instructions
	checkWork      = 1024
	moduleCallWork = 64
)

// budget is a VM's runaway guard. Fields marked "VM goroutine" are only
// touched by the goroutine that owns the VM.
type budget struct {
	call, load time.Duration // 0: that kind of call is not budgeted
	tick       time.Duration // an agent's tick (BeginTick…EndTick); 0: none
	steps      int64         // instructions a callback may run; 0: no such budget
	period     time.Duration // watchdog tick
	ctx        budgetCtx
	// mem is how much the heap may grow during one call (0: no limit);
	// memLimit is the limit the error names. The host updates mem as the
	// memory its agents hold changes (VM.SetMemoryAllowance).
	mem      atomic.Int64
	memLimit atomic.Int64
	heap     heapReader // watchdog goroutine

	state   atomic.Uint64         // seq<<budgetSeqShift | tick<<budgetTickShift | flags of the running call; 0 when none
	cancel  atomic.Pointer[error] // StopOn's context ended: stop every call until cleared
	mu      sync.Mutex            // serialises closing the channel and installing a new one
	running atomic.Bool           // a watchdog goroutine is running
	stop    chan struct{}         // closed by close()
	wg      sync.WaitGroup

	seq    uint64 // VM goroutine: the last sequence number handed out
	active bool   // VM goroutine: a budgeted call is running (nested calls share it)
	closed bool   // VM goroutine

	// The agent's tick: its number is in the state word of each call made
	// in it (no store of its own per tick); firedTick is the number of the
	// tick the watchdog found past its budget.
	firedTick atomic.Uint64
	tickSeq   uint64 // VM goroutine: the running tick's number, 1..budgetTickMask
	tickDepth int    // VM goroutine: nested ticks share the outer one
}

func newBudget(call, load time.Duration, mem, steps int64, tick time.Duration) *budget {
	if call < 0 {
		call = 0
	}
	if tick < 0 {
		tick = 0
	}
	if load < 0 {
		load = 0
	}
	if mem < 0 {
		mem = 0
	}
	if steps < 0 {
		steps = 0
	}
	if call == 0 && load == 0 && mem == 0 && steps == 0 && tick == 0 {
		return nil
	}
	p := call
	if p == 0 || (load > 0 && load < p) {
		p = load
	}
	if p == 0 || (tick > 0 && tick < p) {
		p = tick
	}
	p /= 8
	if mem > 0 && (p == 0 || p > memPeriod) {
		p = memPeriod // the heap is sampled at least this often
	}
	if p < time.Millisecond {
		p = time.Millisecond
	}
	b := &budget{call: call, load: load, tick: tick, steps: steps, period: p, stop: make(chan struct{})}
	b.ctx.closed = make(chan struct{})
	close(b.ctx.closed)
	b.mem.Store(mem)
	b.memLimit.Store(mem)
	ch := make(chan struct{})
	b.ctx.done.Store(&ch)
	return b
}

// begin marks the start of a protected call and returns the token end
// needs: 0 when this call is not budgeted itself (nested in a budgeted call,
// or a kind of call without a budget).
func (b *budget) begin(load bool) uint64 {
	if b.active || b.closed {
		return 0
	}
	limit, flags := b.call, uint64(0)
	if load {
		limit, flags = b.load, budgetLoad
	}
	if limit <= 0 && b.mem.Load() <= 0 && (load || b.steps <= 0) && b.cancel.Load() == nil && b.tickDepth == 0 {
		// Not budgeted, but the context is shared: clear a finished call's
		// word so a late stop of that call cannot reach this one.
		b.idle()
		return 0
	}
	b.active = true
	if !load && b.steps > 0 {
		b.ctx.steps, b.ctx.over, b.ctx.stepLimit = 0, false, b.steps
	}
	b.seq++
	tick := uint64(0)
	if b.tickDepth > 0 && !load {
		tick = b.tickSeq
	}
	s := b.seq<<budgetSeqShift | tick<<budgetTickShift | flags
	// One atomic per call: end leaves the finished call's word in place
	// (Idle clears it), so the watchdog may have stopped that call after it
	// ended; then the channel is renewed before this call runs.
	for {
		old := b.state.Load()
		if old&budgetFired != 0 {
			b.renew()
		}
		if b.state.CompareAndSwap(old, s) {
			break
		}
	}
	// After the store: either this sees the watchdog gone and starts one, or
	// the exiting watchdog sees the store and stays (see watch).
	if !b.running.Load() && b.running.CompareAndSwap(false, true) {
		b.wg.Add(1)
		go b.watch()
	}
	if b.cancel.Load() != nil {
		b.interrupt(s) // stopped before it starts
	} else if tick != 0 && b.firedTick.Load() == tick {
		b.fire(s, budgetTick) // the agent's tick is over: stopped before it starts
	}
	return s
}

// BeginTick marks the start of an agent's tick for Options.TickBudget;
// EndTick its end. A tick begun inside another (an agent ticked from a
// callback) belongs to the outer one. VM goroutine.
func (vm *VM) BeginTick() {
	b := vm.guard.bud
	if b == nil || b.tick <= 0 {
		return
	}
	if b.tickDepth++; b.tickDepth > 1 {
		return
	}
	if b.tickSeq++; b.tickSeq > budgetTickMask {
		b.tickSeq = 1
	}
}

// EndTick marks the end of the tick BeginTick began.
func (vm *VM) EndTick() {
	b := vm.guard.bud
	if b == nil || b.tick <= 0 || b.tickDepth == 0 {
		return
	}
	b.tickDepth--
}

// TickOver reports whether the running agent's tick has run past
// Options.TickBudget: the engine's own loops stop, and every call left in
// the tick is stopped as it starts. VM goroutine.
func (vm *VM) TickOver() bool {
	b := vm.guard.bud
	return b != nil && b.tickDepth > 0 && b.firedTick.Load() == b.tickSeq
}

// interrupt stops call s, if it is still running, because StopOn's context
// ended. Any goroutine.
func (b *budget) interrupt(s uint64) {
	cause := b.cancel.Load()
	if cause == nil || s == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.state.CompareAndSwap(s, s|budgetFired|budgetCancel) {
		return
	}
	b.ctx.err = errors.New(cancelMessage(s&budgetLoad != 0, *cause))
	close(*b.ctx.done.Load())
}

// end marks the end of the call begin returned s for. It returns the state
// word of the budgeted call the VM was in and whether the watchdog stopped
// it: for a nested call (s == 0), whether the outer call has been stopped.
func (b *budget) end(s uint64) (word uint64, fired bool) {
	if s == 0 {
		if !b.active {
			return 0, false
		}
		w := b.state.Load()
		return w, w&budgetFired != 0
	}
	b.active = false
	w := b.state.Load() // a plain load: the word stays until the next begin or Idle
	if b.ctx.stepLimit > 0 {
		over := b.ctx.over
		b.ctx.stepLimit, b.ctx.over = 0, false
		if over && w&budgetFired == 0 {
			return w | budgetFired | budgetSteps, true
		}
	}
	if w&budgetFired == 0 {
		return w, false
	}
	b.renew()
	b.state.Store(0)
	return w, true
}

// renew gives the next call an open channel after a stop. The watchdog set
// the flag and closed the channel under mu: taking mu here waits for the
// close.
func (b *budget) renew() {
	b.mu.Lock()
	ch := make(chan struct{})
	b.ctx.done.Store(&ch)
	b.mu.Unlock()
}

// idle clears the word of the last finished call, so the watchdog sees the
// VM idle (and, after a while, exits) instead of a call that never ends.
func (b *budget) idle() {
	if b == nil || b.active {
		return
	}
	for {
		old := b.state.Load()
		if old == 0 {
			return
		}
		if old&budgetFired != 0 {
			b.renew()
		}
		if b.state.CompareAndSwap(old, 0) {
			return
		}
	}
}

// expired reports whether the running call has been stopped. Long Go loops
// of the sandbox (pattern matching, table.concat) poll it.
func (b *budget) expired() bool {
	return b != nil && (b.state.Load()&budgetFired != 0 || b.ctx.over)
}

// stopMessage is the message of the running call's stop (the context's
// channel may not be closed yet when expired turns true).
func (b *budget) stopMessage() string {
	if b.ctx.over {
		return stepsMessage(b.ctx.stepLimit)
	}
	s := b.state.Load()
	if s&budgetCancel != 0 {
		if cause := b.cancel.Load(); cause != nil {
			return cancelMessage(s&budgetLoad != 0, *cause)
		}
	}
	if s&budgetMem != 0 {
		return memoryMessage(s&budgetLoad != 0, b.memLimit.Load())
	}
	if s&budgetTick != 0 {
		return tickMessage(b.tick)
	}
	if s&budgetLoad != 0 {
		return budgetMessage(true, b.load)
	}
	return budgetMessage(false, b.call)
}

func (b *budget) watch() {
	defer b.wg.Done()
	t := time.NewTicker(b.period)
	defer t.Stop()
	var seen uint64
	var since time.Time
	var heap0 int64  // the heap when the running call was first seen
	var work0 uint64 // the work counted then
	var tickSeen uint64
	var tickSince time.Time
	var tickWork0 uint64
	idle := 0
	for {
		select {
		case <-b.stop:
			b.running.Store(false)
			return
		case <-t.C:
		}
		// The time of this look, not the tick's: a tick read late would make
		// a call seem older than it is.
		now := time.Now()
		s := b.state.Load()
		// The agent's tick: the one of the running call, or of the last
		// call while the engine works between calls.
		if ts := s >> budgetTickShift & budgetTickMask; ts == 0 || b.tick <= 0 {
			tickSeen = 0
		} else if ts != tickSeen {
			tickSeen, tickSince, tickWork0 = ts, now, b.ctx.published.Load()
		} else if now.Sub(tickSince) >= b.tick && b.worked(tickWork0) && b.firedTick.Load() != ts {
			b.firedTick.Store(ts)
			if s&budgetFired == 0 {
				b.fire(s, budgetTick)
			}
			s = b.state.Load()
		}
		if s == 0 {
			seen = 0
			if idle++; idle < budgetIdleTicks {
				continue
			}
			// Exit, unless a call started meanwhile: begin stores the state
			// before it looks at running, this clears running before it looks
			// at the state, so one of the two sees the other.
			b.running.Store(false)
			if b.state.Load() == 0 || !b.running.CompareAndSwap(false, true) {
				return
			}
			idle = 0
			continue
		}
		idle = 0
		if s == 0 || s&budgetFired != 0 {
			continue // between calls of a tick, or stopped, unwinding
		}
		mem := b.mem.Load()
		if s != seen {
			seen, since, work0 = s, now, b.ctx.published.Load()
			if mem > 0 {
				heap0 = b.heap.read()
			}
			continue
		}
		if mem > 0 && b.heap.read()-heap0 > mem {
			b.fire(s, budgetMem)
			continue
		}
		limit := b.call
		if s&budgetLoad != 0 {
			limit = b.load
		}
		if limit > 0 && now.Sub(since) >= limit && b.worked(work0) {
			b.fire(s, 0)
		}
	}
}

// worked reports whether the VM has done minWork since its published
// work count stood at work0 (when the watchdog first saw the call or
// tick: work has to go on while the budget runs out, and a runaway's
// does).
func (b *budget) worked(work0 uint64) bool {
	return b.ctx.published.Load() >= work0+minWork
}

// fire stops call s if it is still the running one; why is 0 (its time
// budget), budgetMem or budgetTick.
func (b *budget) fire(s uint64, why uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.state.CompareAndSwap(s, s|budgetFired|why) {
		return // finished meanwhile; the next call has another number
	}
	if why == budgetMem {
		b.ctx.err = errors.New(memoryMessage(s&budgetLoad != 0, b.memLimit.Load()))
	} else if why == budgetTick {
		b.ctx.err = errors.New(tickMessage(b.tick))
	} else if s&budgetLoad != 0 {
		b.ctx.err = errors.New(budgetMessage(true, b.load))
	} else {
		b.ctx.err = errors.New(budgetMessage(false, b.call))
	}
	close(*b.ctx.done.Load())
}

// close stops the watchdog for good and waits for it to exit.
func (b *budget) close() {
	if b == nil || b.closed {
		return
	}
	b.closed = true
	close(b.stop)
	b.wg.Wait()
}

// budgetCtx is the one context a budgeted VM's LState (and every coroutine
// the sandbox creates) runs with. Its Done channel is replaced by a fresh
// one after each stopped call, which the context.Context contract does not
// foresee but gopher-lua, which only polls Done and reads Err, is fine with.
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
		return errors.New(stepsMessage(c.stepLimit))
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

func stepsMessage(n int64) string {
	return fmt.Sprintf("callback ran past its %d-instruction budget", n)
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
		return strings.HasSuffix(ErrorMessage(err), stepsMessage(b.steps))
	}
	if word&budgetMem != 0 {
		return strings.HasSuffix(ErrorMessage(err), memoryMessage(load, b.memLimit.Load()))
	}
	if word&budgetTick != 0 {
		return strings.HasSuffix(ErrorMessage(err), tickMessage(b.tick))
	}
	d := b.call
	if load {
		d = b.load
	}
	return strings.HasSuffix(ErrorMessage(err), budgetMessage(load, d))
}

func (vm *VM) budgetError(err error, word uint64) *BudgetError {
	b := vm.guard.bud
	e := &BudgetError{Load: word&budgetLoad != 0, Budget: b.call}
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
		e.Pos, _ = SplitPos(ErrorMessage(err))
	}
	e.api = &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(e.Error()), StackTrace: trace}
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
func (vm *VM) canceledError(err error, load bool, cause error) *BudgetError {
	e := &BudgetError{Load: load, Cause: cause}
	var api *lua.ApiError
	trace := ""
	if errors.As(err, &api) {
		trace = api.StackTrace
	}
	e.Pos, _ = SplitPos(ErrorMessage(err))
	e.api = &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(e.Error()), StackTrace: trace}
	return e
}

// Idle tells the VM that no call will follow soon (the end of a worker's
// tick): its watchdog may then rest. Calls work without it; the watchdog
// only keeps watching the last finished call until the next one starts.
func (vm *VM) Idle() { vm.guard.bud.idle() }
