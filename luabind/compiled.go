package luabind

// Compiled callbacks: a short Lua function — a transition condition, a
// utility scorer, an update or hook — whose bytecode internal/lcomp
// accepts is run in Go by the Call helpers, with the VM's result; anything
// the compiled form cannot run exactly is handed to the VM (see
// internal/lcomp's package comment, and docs/performance-compiled.md).
//
// A compiled run executes each instruction at most once, so it cannot run
// away and needs no budget poll. What it must keep of the budget:
//
//   - the instruction budget (Options.BudgetSteps): a function longer than
//     what is left of it runs in the VM, which stops it where it would;
//     a compiled run charges the instructions it executed, as the VM's
//     poll counts them (TestCompiledMatchesVM checks the counts);
//   - the work count the wall-clock watchdog reads (the same count);
//   - a stop already decided — StopOn's context ended, the agent's tick
//     past its budget, a call stopped by the watchdog: the VM runs the call
//     and raises the stop, as it would have;
//   - the agent's tick budget (Options.TickBudget): the watchdog follows a
//     tick through the state word its calls leave, so until a call of the
//     running tick has gone through the VM (and while the watchdog is not
//     running) callbacks run in the VM.
//
// A compiled run allocates nothing but the numbers it stores in tables, so
// the memory limit has nothing to stop. With RecordCalls every call runs in
// the VM (the recording is what the VM would run); TimeCalls (profiling)
// times compiled runs as it times the VM's calls.

import (
	"slices"
	"time"
	"unsafe"

	"github.com/luaai/luaai/luabind/internal/lcomp"
	lua "github.com/yuin/gopher-lua"
)

// maxPrograms bounds a VM's cache of compiled functions.
const maxPrograms = 1 << 14

// compiledState is a VM's compiled functions and the math functions they
// may call.
type compiledState struct {
	off    bool
	progs  map[*lua.FunctionProto]*lcomp.Program // nil: refused
	recent [64]recentProgram                     // progs' entries last used, by the prototype's address
	m      *lcomp.Machine                        // with the sandbox's math functions
}

// recentProgram is one entry of the cache in front of the map: a
// prototype's program never changes, so an entry is never stale.
type recentProgram struct {
	proto *lua.FunctionProto
	prog  *lcomp.Program
}

// SetCompiled turns the compiled path on (the default) or off; off, every
// callback runs in the VM (benchmarks compare the two).
func (vm *VM) SetCompiled(on bool) { vm.comp.off = !on }

// program is fn's compiled form, or nil.
func (vm *VM) program(fn *lua.LFunction) *lcomp.Program {
	if vm.comp.off || fn.IsG || fn.Proto == nil {
		return nil
	}
	slot := &vm.comp.recent[uintptr(unsafe.Pointer(fn.Proto))>>6%uintptr(len(vm.comp.recent))]
	if slot.proto == fn.Proto {
		return slot.prog
	}
	p, ok := vm.comp.progs[fn.Proto]
	if !ok {
		p, _ = lcomp.Compile(fn.Proto)
		if vm.comp.progs == nil || len(vm.comp.progs) >= maxPrograms {
			// A reload brings new functions: the old ones' entries go, a
			// map at a time, instead of piling up (the live ones are
			// compiled again when they next run).
			vm.comp.progs = map[*lua.FunctionProto]*lcomp.Program{}
			clear(vm.comp.recent[:])
		}
		vm.comp.progs[fn.Proto] = p
	}
	*slot = recentProgram{fn.Proto, p}
	return p
}

// machine runs the VM's compiled functions; the math functions they may
// call are the sandbox's.
func (vm *VM) machine() *lcomp.Machine {
	if vm.comp.m == nil {
		m := &lcomp.Machine{Math: &lcomp.Math{}}
		if proxy, ok := vm.L.G.Global.RawGetString(lua.MathLibName).(*lua.LTable); ok {
			if ro, ok := vm.readOnly[proxy]; ok {
				m.Math = lcomp.MathOf(ro.real)
			}
		}
		vm.comp.m = m
	}
	return vm.comp.m
}

// runCompiled runs fn(a0, a1) compiled when it can; ok is false when the
// caller must call it through the VM (nothing was changed then).
func (vm *VM) runCompiled(fn *lua.LFunction, nargs int, a0, a1 lua.LValue) (res lcomp.Result, ok bool) {
	p := vm.program(fn)
	if p == nil || !vm.mayRunCompiled(p) {
		return res, false
	}
	return vm.runProgram(p, fn, nargs, a0, a1)
}

// runDiscard is runCompiled for a call whose result nobody reads (an
// update or a hook), with one layer less: ok as runCompiled's.
func (vm *VM) runDiscard(fn *lua.LFunction, nargs int, a0, a1 lua.LValue) bool {
	p := vm.program(fn)
	if p == nil || !vm.mayRunCompiled(p) {
		return false
	}
	if vm.timer != nil {
		_, ok := vm.runProgram(p, fn, nargs, a0, a1)
		return ok
	}
	steps, ok := p.RunDiscard(vm.machine(), fn, nargs, a0, a1)
	if ok {
		vm.chargeCompiled(steps)
	}
	return ok
}

// mayRunCompiled says whether p may run compiled now (see the file's
// comment): no recording, no stop decided, the budgets leave room for it.
func (vm *VM) mayRunCompiled(p *lcomp.Program) bool { return vm.mayRunCompiledSteps(p.Steps()) }

// mayRunCompiledSteps is mayRunCompiled for a program of at most steps
// instructions.
//
// It is long because it is every check of the budget, in one place.
func (vm *VM) mayRunCompiledSteps(steps int) bool {
	if vm.recorder != nil {
		return false
	}
	if vm.stopCtx != nil && vm.stopCtx.Err() != nil {
		return false
	}
	b := vm.guard.bud
	if b != nil {
		if b.closed || b.cancel.Load() != nil {
			return false
		}
		if b.tickDepth > 0 {
			// The agent's tick budget: the watchdog watches the tick through
			// the state word the last call left. Before the tick's first
			// call, and after the watchdog went idle, a call that begins
			// and ends at once shows it this tick (where the thread must be
			// looked up for that, the VM runs the call); once the tick is
			// over, the VM raises it.
			if b.firedTick.Load() == b.tickSeq {
				return false
			}
			if !b.active && (b.state.Load()>>budgetTickShift&budgetTickMask != b.tickSeq || !b.running.Load()) {
				if b.cpu && b.pins == 0 {
					return false
				}
				if _, fired := b.end(b.begin(false)); fired {
					return false
				}
			}
		}
		if b.active {
			// Nested in a budgeted call: its steps and its stop.
			c := &b.ctx
			if c.over || (c.stepLimit > 0 && c.steps+int64(steps) > c.stepLimit) {
				return false
			}
			select {
			case <-*c.done.Load():
				return false
			default:
			}
		} else if b.steps > 0 && int64(steps) > b.steps {
			return false
		}
	}
	return true
}

// runProgram runs p as fn(a0, a1), timed when profiling, and charges the
// budget its steps; p may run (mayRunCompiled).
func (vm *VM) runProgram(p *lcomp.Program, fn *lua.LFunction, nargs int, a0, a1 lua.LValue) (res lcomp.Result, ok bool) {
	if vm.timer != nil {
		// Profiling: the compiled run is timed as the VM's calls are.
		t0 := time.Now()
		res, ok = p.Run(vm.machine(), fn, nargs, a0, a1)
		if ok {
			vm.timer(fn, time.Since(t0))
		}
	} else {
		res, ok = p.Run(vm.machine(), fn, nargs, a0, a1)
	}
	if ok {
		vm.chargeCompiled(res.Steps)
	}
	return res, ok
}

// chargeCompiled counts the steps of a compiled run as the VM's budget
// and Done count them.
func (vm *VM) chargeCompiled(steps int) {
	b := vm.guard.bud
	if b == nil {
		return
	}
	c := &b.ctx
	// As Done counts them: the watchdog's copy is published every 256.
	old := c.work
	if c.work += uint64(steps); c.work>>8 != old>>8 {
		c.published.Store(c.work)
	}
	if b.active && c.stepLimit > 0 {
		c.steps += int64(steps)
	}
}

// ProtoCompiled says whether a function of this prototype runs compiled
// as a callback (when the values it meets allow): what the profile marks.
func ProtoCompiled(p *lua.FunctionProto) bool {
	_, err := lcomp.Compile(p)
	return err == nil
}

// compiled says whether fn runs compiled (when the values it meets allow),
// and if not why: the first construct the compiler refuses, with its line.
func compiled(fn *lua.LFunction) (bool, string) {
	if fn == nil || fn.IsG || fn.Proto == nil {
		return false, "a Go function"
	}
	if _, err := lcomp.Compile(fn.Proto); err != nil {
		return false, err.Error()
	}
	return true, ""
}

// CompiledFunc is one function of a chunk as the compiled path sees it.
type CompiledFunc struct {
	Line     int    // where the function is defined
	Compiled bool   // runs compiled when the values it meets allow
	Why      string // why not: the first construct refused, "line N: …"
}

// CompiledFuncs lists every function defined in a compiled chunk (not the
// chunk itself), in the order they appear, with whether each would run
// compiled as a callback.
func CompiledFuncs(chunk *lua.FunctionProto) []CompiledFunc {
	var out []CompiledFunc
	var walk func(p *lua.FunctionProto)
	walk = func(p *lua.FunctionProto) {
		for _, sub := range p.FunctionPrototypes {
			f := CompiledFunc{Line: sub.LineDefined, Compiled: true}
			if _, err := lcomp.Compile(sub); err != nil {
				f.Compiled, f.Why = false, err.Error()
			}
			out = append(out, f)
			walk(sub)
		}
	}
	walk(chunk)
	slices.SortStableFunc(out, func(a, b CompiledFunc) int { return a.Line - b.Line })
	return out
}

// FieldNumber is a utility scorer compiled for a decision's shared reads:
// a number expression over context fields that the decision reads once
// for all its scorers (see CompileFieldNumber).
type FieldNumber struct {
	lcomp.FieldNumber
}

// CompileFieldNumber compiles fn, a scorer, for shared reads when CallNumber
// would run it as one expression over numbers read from its context's
// fields: slots gives each field read and each constant its place in the
// decision's values. It is nil when fn is not such a function, slots has
// no room, or compiling is off.
func (vm *VM) CompileFieldNumber(fn *lua.LFunction, slots lcomp.Slots) *FieldNumber {
	p := vm.program(fn)
	if p == nil {
		return nil
	}
	f, ok := p.OverFields(slots)
	if !ok {
		return nil
	}
	return &FieldNumber{*f}
}

// TakeFieldNumber says whether f's value, computed over the decision's
// reads, may stand for a call of its function now, as CallNumber would run
// it compiled (compiling on, not profiled, the budgets leave room), and if
// so charges its steps as that run would. When it is false the caller
// calls the function (CallNumber), which runs it as it must.
func (vm *VM) TakeFieldNumber(f *FieldNumber) bool {
	if vm.comp.off || vm.timer != nil || !vm.mayRunCompiledSteps(f.MaxSteps) {
		return false
	}
	vm.chargeCompiled(f.Steps)
	return true
}

// TakeFieldNumbers is TakeFieldNumber asked once for the scorers of one
// run of a decision's score plan, maxSteps their instructions together:
// when it is true, each scorer taken is charged with ChargeFieldNumber;
// when false, the caller asks TakeFieldNumber of each. The scorers run
// in Go one after the other without a look at the budget between them, as
// the instructions of one compiled call do: a stop that comes meanwhile is
// raised by the next call that goes through the VM.
func (vm *VM) TakeFieldNumbers(maxSteps int) bool {
	return !vm.comp.off && vm.timer == nil && vm.mayRunCompiledSteps(maxSteps)
}

// ChargeFieldNumber charges f's steps as its call would, after
// TakeFieldNumbers allowed it.
func (vm *VM) ChargeFieldNumber(f *FieldNumber) { vm.chargeCompiled(f.Steps) }

// Work is the work the VM has counted since it was made: its instructions
// and the sandbox's Go work, as its time budget sees the progress of a
// call; a compiled callback counts the instructions the VM would have run.
// 0 for a VM without a budget.
func (vm *VM) Work() uint64 {
	if b := vm.guard.bud; b != nil {
		return b.ctx.work
	}
	return 0
}
