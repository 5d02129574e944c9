package luabind

// Runaway budgets.
//
// gopher-lua's only interrupt is LState.SetContext: once a context is set,
// the VM loop (mainLoopWithContext) polls ctx.Done() before every
// instruction and raises ctx.Err() as a Lua error at the current file:line
// when it is closed. A context.WithTimeout per callback would allocate a
// context and a timer on every call, so a VM with a budget instead keeps
// one context for its whole life (budgetCtx, installed once by NewVM) and a
// watchdog goroutine that makes that context's channel a closed one when
// the same protected call has been running for longer than its budget
// (until then Done is nil, which the VM loop's poll passes fastest):
//
//   - Before each outermost protected call (the Call* helpers and RunProto)
//     the VM stores a fresh call sequence number in an atomic word; after
//     it, it swaps the word back to zero. No clock is read on the call
//     path (with CPU-time charging and no VM.Pin, the thread is looked up:
//     one system call).
//   - The watchdog ticks every budget/8. When it sees the same sequence
//     number for longer than the budget allows (below), it marks that
//     number fired (a compare-and-swap, so a call that finished in the
//     meantime — or the next call, which has another number — is never
//     hit) and publishes the closed channel. The callback stops at its
//     next Lua instruction.
//   - The call that was stopped puts the nil channel back as it returns,
//     so the next call starts clean.
//   - The watchdog starts lazily with the first budgeted call, exits after
//     a second or so without calls (and restarts with the next one), and
//     stops for good in VM.Close.
//
// What a budget charges is the CPU time of the call: the work it makes the
// process do, whatever does it (Lua instructions, the sandbox's library
// functions, the game's module functions, the collector's work it causes
// by allocating), and never the time it waits (descheduled behind other
// workers or processes, blocked in a module function). On Linux
// (cpuclock_linux.go) every thread has a CPU clock another thread can
// read:
//
//   - While a budgeted outermost call runs, the VM's goroutine is locked
//     to its OS thread (runtime.LockOSThread; pcall unlocks it however the
//     call ends), and begin stores the thread's id for the watchdog. A
//     host's worker pins its goroutine for its whole tick instead
//     (VM.Pin): the thread is then looked up once per tick, not per call.
//   - The watchdog reads that thread's CPU clock when it first sees a call
//     and at each tick after; the call is stopped once the clock has
//     advanced by the budget. So a call is stopped between 1x and about
//     1.125x its budget of CPU time plus the step it is in (the watchdog's
//     first look comes up to a period after the call began, its next
//     look up to a period after the budget is used up) plus whatever delay
//     the watchdog has in being scheduled.
//   - The watchdog may wait to be scheduled while the call's thread runs
//     (more busy threads than cores, every P busy): the VM goroutine then
//     checks its own thread's clock against the watchdog's first reading
//     (selfCheck), every 4,096 instructions and at every poll of the
//     sandbox's Go loops, and stops itself.
//   - Work the call makes another thread do is charged too: a large chunk
//     compiled beside it (compile.go) adds its thread's CPU time to extra.
//   - Options.LoadBudget charges a script load the same way, and
//     Options.TickBudget an agent's whole tick: the CPU time of the thread
//     from the watchdog's first look at the tick's first call, across its
//     calls and the engine's work between them (summed over threads when
//     the goroutine moved between calls, which only happens without Pin).
//
// A step the VM cannot interrupt (one instruction, one library call) runs
// to its end: the sandbox bounds what such a step can cost (strings at the
// cap, table.sort polling the budget as it sorts, pattern matching and
// table.concat polling too), and TestSingleStepCost measures the worst at
// the largest sizes (a comparison of two 16 MiB strings, gopher-lua's own
// loop, about 16-30ms). Budgets must stay well above that.
//
// Elsewhere (cpuclock_other.go, or built with -tags luaai_wallclock), and
// whenever the clock cannot be read, the rule is wall time: the watchdog
// fires when the call has both run past its budget in wall time and done
// minWork units of work of its own since the watchdog first saw it — Lua
// instructions (counted in budgetCtx.Done, published every 256), Go loops
// of the sandbox that poll the budget, and calls of the game's module
// functions. A callback that was merely descheduled has done almost none,
// and is never blamed for the time it waited; but an instruction that
// costs milliseconds counts as one unit, so on those platforms a hostile
// script can make a call run far past its budget.
//
// Calls nested inside a budgeted call (a callback ticking a spawned agent,
// ai.spawn loading a behaviour, a native scorer reading a field through
// __index) share the outer call's budget.
//
// What a budget cannot stop: Go code that runs long without returning to
// the Lua VM loop. It is charged, but the call stops only when the code
// returns. The sandbox bounds what it can (string sizes, pattern matching,
// sorting, see sandbox.go), but a game's own Go functions bound into Lua
// must be quick.
//
// Coroutines: gopher-lua gives every coroutine a child context of the
// state's (context.WithCancel), which a cancel would kill for good and
// which would otherwise pile up in the parent. The sandbox's
// coroutine.create and coroutine.wrap point each new coroutine at the VM's
// budgetCtx itself, so a coroutine is stopped while it runs past the budget
// of the call resuming it and is unaffected otherwise.

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
)

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
	mu      sync.Mutex            // serialises publishing the closed channel and putting nil back
	running atomic.Bool           // a watchdog goroutine is running
	looks   atomic.Uint64         // the watchdog's looks so far (tests wait on it)
	stop    chan struct{}         // closed by close()
	wg      sync.WaitGroup

	seq    uint64 // VM goroutine: the last sequence number handed out
	active bool   // VM goroutine: a budgeted call is running (nested calls share it)
	closed bool   // VM goroutine

	// CPU time (threadClocks): tid is the thread the running budgeted call
	// (or the last one) runs on, stored before its state word; extra is CPU
	// time in nanoseconds the call made other threads spend (a compile
	// running beside it), added by the VM goroutine.
	cpu    bool // the time budgets are charged as CPU time
	tid    atomic.Int32
	extra  atomic.Int64
	locked bool  // VM goroutine: begin locked the goroutine to its thread
	pins   int   // VM goroutine: Pin depth
	pinTid int32 // VM goroutine: the thread Pin found
	lastID int32 // VM goroutine: the last tid stored
	// The watchdog's first reading of the running call's clock (plus
	// extra), and the state word it was taken for (stored after it), for
	// selfCheck.
	cpuBase atomic.Int64
	cpuSeen atomic.Uint64
	// selfCheck's own first reading in the running call, and its word.
	// VM goroutine.
	selfSeq  uint64
	selfBase time.Duration

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
	b.cpu = threadClocks && (call > 0 || load > 0 || tick > 0)
	b.ctx.b = b
	b.ctx.closed = make(chan struct{})
	close(b.ctx.closed)
	b.mem.Store(mem)
	b.memLimit.Store(mem)
	b.ctx.done.Store(&noStop)
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
	if b.cpu {
		// The watchdog reads the CPU clock of the thread the call runs on:
		// the goroutine stays on it until end (or Unpin).
		tid := b.pinTid
		if b.pins == 0 {
			runtime.LockOSThread()
			b.locked = true
			tid = threadID()
		}
		if tid != b.lastID {
			b.lastID = tid
			b.tid.Store(tid) // before the state word: the watchdog reads it after
		}
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

// selfCheckMask: the VM goroutine reads its own thread's clock every 4,096
// instructions and at each poll of the sandbox's Go loops (a system call,
// about a microsecond), so that a call is stopped on time even when the
// watchdog waits to be scheduled (more busy threads than cores).
const selfCheckMask = 1<<12 - 1

// selfCheck stops the running call if its thread has used up its budget
// since the watchdog first saw it. VM goroutine.
func (b *budget) selfCheck() {
	if !b.cpu || !b.active {
		return
	}
	s := b.state.Load()
	if s&budgetFired != 0 {
		return // stopped already
	}
	c, ok := threadCPU(b.lastID)
	if !ok {
		return
	}
	c += time.Duration(b.extra.Load())
	// The charge runs from the earlier of two readings: the watchdog's
	// first look at the call, and this goroutine's own first check in it
	// (a watchdog kept off the CPU by a loaded machine may not have looked
	// yet; the work before the first check, under 4,096 instructions or one
	// poll of a Go loop, is not charged).
	if b.selfSeq != s {
		b.selfSeq, b.selfBase = s, c
	}
	base := b.selfBase
	if b.cpuSeen.Load() == s {
		base = min(base, time.Duration(b.cpuBase.Load()))
	}
	limit := b.call
	if s&budgetLoad != 0 {
		limit = b.load
	}
	if limit > 0 && c-base >= limit {
		b.fire(s, 0)
	}
}

// unlockThread undoes the LockOSThread of begin: pcall defers it, so it
// runs however the call ends.
func (b *budget) unlockThread() {
	if b.locked {
		b.locked = false
		runtime.UnlockOSThread()
	}
}

// Pin locks the calling goroutine to its OS thread until the matching
// Unpin, for a run of calls on this VM (a worker's tick): where budgets are
// charged as CPU time, each outermost call otherwise locks the goroutine
// and looks its thread up itself (a system call). Pins nest. Pin and Unpin
// are called on the VM's goroutine, in pairs (defer Unpin); a goroutine
// must not end pinned. Without a time budget, or on platforms that charge
// wall time, they do nothing.
func (vm *VM) Pin() {
	b := vm.guard.bud
	if b == nil || !b.cpu {
		return
	}
	if b.pins++; b.pins == 1 {
		runtime.LockOSThread()
		b.pinTid = threadID()
	}
}

// Unpin ends what Pin began.
func (vm *VM) Unpin() {
	b := vm.guard.bud
	if b == nil || !b.cpu || b.pins == 0 {
		return
	}
	if b.pins--; b.pins == 0 {
		runtime.UnlockOSThread()
	}
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
	b.ctx.err = errors.New(scripterr.CancelMessage(s&budgetLoad != 0, *cause))
	b.ctx.done.Store(&b.ctx.closed)
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

// renew gives the next call the channel that never closes after a stop.
// The watchdog set the flag and published the closed channel under mu:
// taking mu here waits for it.
func (b *budget) renew() {
	b.mu.Lock()
	b.ctx.done.Store(&noStop)
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
		return scripterr.StepsMessage(b.ctx.stepLimit)
	}
	s := b.state.Load()
	if s&budgetCancel != 0 {
		if cause := b.cancel.Load(); cause != nil {
			return scripterr.CancelMessage(s&budgetLoad != 0, *cause)
		}
	}
	if s&budgetMem != 0 {
		return scripterr.MemoryMessage(s&budgetLoad != 0, b.memLimit.Load())
	}
	if s&budgetTick != 0 {
		return scripterr.TickMessage(b.tick)
	}
	if s&budgetLoad != 0 {
		return scripterr.BudgetMessage(true, b.load)
	}
	return scripterr.BudgetMessage(false, b.call)
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
		b.ctx.err = errors.New(scripterr.MemoryMessage(s&budgetLoad != 0, b.memLimit.Load()))
	} else if why == budgetTick {
		b.ctx.err = errors.New(scripterr.TickMessage(b.tick))
	} else if s&budgetLoad != 0 {
		b.ctx.err = errors.New(scripterr.BudgetMessage(true, b.load))
	} else {
		b.ctx.err = errors.New(scripterr.BudgetMessage(false, b.call))
	}
	b.ctx.done.Store(&b.ctx.closed)
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
