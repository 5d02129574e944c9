package luabind

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	lua "github.com/yuin/gopher-lua"
)

// Options configure a VM. The zero value works: no extra roots, a fresh
// wall clock for os.time and os.clock.
type Options struct {
	// Roots are folders scripts may require from and spawn from, besides the
	// folder of the script being loaded. The default (zero) value is none.
	Roots []string
	// Now returns the time os.time and os.date see. The default (zero) value
	// is time.Now.
	Now func() time.Time
	// Cache shares compiled modules between VMs. The default (zero) value
	// compiles each require afresh.
	Cache *ProtoCache
	// Stdout receives what scripts print. The default (zero) value is
	// os.Stdout.
	Stdout io.Writer
	// Modules are Go functions offered to scripts as modules:
	// require("game") gives a read-only table of Modules["game"]'s
	// functions. They run inside the calling callback, under its budget
	// (which cannot interrupt Go code: keep them quick). The default (zero)
	// value is none.
	Modules map[string]map[string]lua.LGFunction
	// MaxString is the longest string, in bytes, that string.rep,
	// string.format, string.char, string.gsub and table.concat build; longer
	// is a Lua error. The default (zero) value is DefaultMaxString, 16 MiB.
	// The `..` operator is not capped (gopher-lua has no hook for it): the
	// time budget stops a loop that grows a string.
	MaxString int
	// Module builds the table require("luaai") returns, once, while the
	// VM opens; package defs sets it. The default (zero) value is an empty
	// module.
	Module func(*VM) *lua.LTable
	// Rand gives the generator math.random uses inside a tick (the running
	// agent's), nil outside one; package defs sets it. The default (zero)
	// value is none.
	Rand func() *rand.Rand
	// Seed seeds the generator math.random uses outside a tick (inside a
	// tick it uses the running agent's, Runner.Rand). The default (zero)
	// value is seed 0: runs replay either way.
	Seed uint64
	// Budget is how long one protected call (Call, CallHook, CallBool,
	// CallNumber, and the calls nested in it) may run, in CPU time of the
	// thread running it (Linux; wall time with work done elsewhere, see
	// budget.go), before it is stopped with a *BudgetError (errors.Is
	// ErrBudget) naming the file:line it was running; it is stopped between
	// 1x and about 1.125x its budget of CPU time plus the one step it was
	// in (plus the watchdog's scheduling delay). Time it waits (descheduled,
	// blocked) is not charged. gopher-lua polls the
	// context before every instruction, and each call has some bookkeeping;
	// one watchdog goroutine per VM runs while calls run. What that costs is
	// measured by BenchmarkBudget and BenchmarkBudgetCall and recorded in
	// the reference's performance section. See budget.go. The default (zero)
	// value is no budget and no cost.
	Budget time.Duration
	// BudgetSteps is a budget of Lua instructions for one protected call
	// (pattern matching counts its steps too): a call that runs more is
	// stopped with a *BudgetError wrapping ErrBudget. Unlike Budget it does
	// not depend on the machine or its load, so replays stop where the
	// recording stopped. It costs about a nanosecond per instruction. The
	// default (zero) value is none.
	BudgetSteps int64
	// MemoryLimit stops a protected call (or a script load) that makes the
	// heap grow by more than this many bytes while it runs, with a
	// *BudgetError wrapping ErrMemoryLimit. The watchdog of Budget samples
	// the heap every few milliseconds during a call, so a call overshoots
	// by what it allocates in that time. Growth is the process heap's, so it
	// is exact with one VM calling at a time and shared blame with several.
	// The default (zero) value is no limit.
	MemoryLimit int64
	// TickBudget bounds one agent's tick (VM.BeginTick to VM.EndTick):
	// every call in it and the Go work between them. Past it (and with
	// work done since it began, as for Budget) the running call is stopped
	// and every later call of that tick stops at once, with a *BudgetError
	// whose Tick is set; VM.TickOver turns true for the engine's own loops.
	// The default (zero) value is none.
	TickBudget time.Duration
	// LoadBudget is the same for running a script's main chunk (RunProto,
	// LoadProto, LoadBehaviour, RunFile, RunString). The default (zero)
	// value is no budget.
	LoadBudget time.Duration
}

// VM is one sandboxed Lua state with the luaai module preloaded.
//
// A VM is not safe for concurrent use: one goroutine owns it.
type VM struct {
	L     *lua.LState
	opts  Options
	roots []string // absolute, cleaned

	recorder CallRecorder // RecordCalls; nil almost always
	timer    CallTimer    // TimeCalls; nil unless profiling

	modules   map[moduleKey]lua.LValue // loaded modules by mod and absolute path
	loading   map[moduleKey]bool       // modules being loaded (require cycles)
	luaai     lua.LValue               // require("luaai"): the read-only module
	goModules map[string]lua.LValue    // Options.Modules, read-only
	module    *lua.LTable              // the module itself
	readOnly  map[*lua.LTable]readOnlyTable
	pristine  map[string]lua.LValue // the globals a mod starts with (isolation.go)
	started   time.Time

	ctxArgs [2]lua.LValue

	comp compiledState // compiled callbacks (compiled.go)

	guard guard // sandbox state: budget, math.random, string cap (sandbox.go)

	stopCtx context.Context // StopOn's context, on a VM without a budget
}

// NewVM opens a sandboxed Lua state: base (without dofile, loadfile, and
// module tricks), string, table, math, coroutine, os.time/clock/date, a
// require confined to the allowed roots, and require("luaai").
func NewVM(opts Options) *VM {
	// 512 nested calls; a value stack starting at 4K slots (every coroutine
	// gets one), growing by 64K slots up to 1M: gopher-lua's default step of
	// 32 makes an overflowing unpack take minutes of copying.
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: 512, RegistrySize: 1024 * 4, RegistryMaxSize: 1024 * 1024, RegistryGrowStep: 1024 * 64})
	vm := &VM{
		L:       L,
		opts:    opts,
		modules: map[moduleKey]lua.LValue{},
		loading: map[moduleKey]bool{},
		started: time.Now(),
	}
	for _, r := range opts.Roots {
		if abs, err := filepath.Abs(r); err == nil {
			vm.roots = append(vm.roots, filepath.Clean(abs))
		}
	}
	vm.openLibs()
	return vm
}

// Close releases the Lua state and stops the budget watchdog. Closing
// twice does nothing.
func (vm *VM) Close() {
	if vm.guard.closed {
		return
	}
	vm.guard.closed = true
	vm.guard.bud.close()
	vm.L.Close()
}

func (vm *VM) now() time.Time {
	if vm.opts.Now != nil {
		return vm.opts.Now()
	}
	return time.Now()
}

func (vm *VM) openLibs() {
	L := vm.L
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	for _, name := range []string{"dofile", "loadfile", "getfenv", "setfenv", "collectgarbage", "module", "newproxy", "_printregs", "print"} {
		g.RawSetString(name, lua.LNil)
	}
	// load/loadstring: source text only (gopher-lua has no bytecode loader,
	// but a reader function could still feed arbitrary chunks; text is enough).
	g.RawSetString("loadstring", L.NewFunction(vm.luaLoadString)) // into the caller's globals
	g.RawSetString("load", L.NewFunction(vm.luaLoadString))
	g.RawSetString("print", L.NewFunction(vm.luaPrint))
	g.RawSetString("require", L.NewFunction(vm.luaRequire))
	g.RawSetString(catGlobal, L.NewFunction(func(L *lua.LState) int { return cat(L, vm.guard.maxString) }))

	osT := L.NewTable()
	osT.RawSetString("time", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() >= 1 {
			return osTimeTable(L)
		}
		L.Push(lua.LNumber(vm.now().Unix()))
		return 1
	}))
	osT.RawSetString("clock", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(time.Since(vm.started).Seconds()))
		return 1
	}))
	osT.RawSetString("date", L.NewFunction(func(L *lua.LState) int {
		return vm.osDate(L, vm.now())
	}))
	osT.RawSetString("difftime", L.NewFunction(func(L *lua.LState) int {
		L.Push(L.CheckNumber(1) - L.OptNumber(2, 0)) // seconds from t1 to t2, as Lua 5.1
		return 1
	}))
	g.RawSetString("os", osT)

	g.RawSetString("package", newPackage(L))

	if vm.opts.Module != nil {
		vm.module = vm.opts.Module(vm)
	} else {
		vm.module = L.NewTable()
	}
	vm.harden()  // string cap, pattern engine, math.random, budget: sandbox.go
	vm.isolate() // read-only libraries, a global table per mod: isolation.go
}

// luaPrint writes to stdout with a prefix-free tab-joined line, as Lua does.
func (vm *VM) luaPrint(L *lua.LState) int {
	n := L.GetTop()
	parts := make([]string, n)
	for i := 1; i <= n; i++ {
		parts[i-1] = L.ToStringMeta(L.Get(i)).String()
	}
	out := vm.opts.Stdout
	if out == nil {
		out = os.Stdout
	}
	fmt.Fprintln(out, strings.Join(parts, "\t"))
	return 0
}

// RunFile compiles and runs a file, returning its single result. Errors carry
// "file:line".
func (vm *VM) RunFile(path string) (lua.LValue, error) {
	proto, err := CompileFile(path)
	if err != nil {
		return nil, err
	}
	return vm.RunProto(proto)
}

// RunString compiles and runs source text under a chunk name.
func (vm *VM) RunString(name, src string) (lua.LValue, error) {
	proto, err := Compile(strings.NewReader(src), name)
	if err != nil {
		return nil, err
	}
	return vm.RunProto(proto)
}

// RunProto runs a compiled chunk in this VM and returns its first result.
func (vm *VM) RunProto(proto *lua.FunctionProto) (lua.LValue, error) {
	return vm.runChunk(proto, nil)
}

// RunMod runs a compiled chunk with globals of its own, a new mod's
// (isolation.go), and returns its first result and those globals.
func (vm *VM) RunMod(proto *lua.FunctionProto) (lua.LValue, *lua.LTable, error) {
	env := vm.newEnv()
	v, err := vm.runChunk(proto, env)
	return v, env, err
}

// runChunk runs a compiled chunk with env as its global table (nil: the
// VM's globals).
func (vm *VM) runChunk(proto *lua.FunctionProto, env *lua.LTable) (lua.LValue, error) {
	L := vm.L
	top := L.GetTop()
	fn := L.NewFunctionFromProto(proto)
	if env != nil {
		fn.Env = env
	}
	L.Push(fn)
	if err := vm.pcall(0, 1, true); err != nil {
		L.SetTop(top)
		return nil, loadError(err, proto.SourceName)
	}
	v := L.Get(-1)
	L.SetTop(top)
	return v, nil
}

// luaError turns an error from a protected call into an ErrorList with the
// position the message names.
func luaError(err error, file string) error {
	msg := err.Error()
	if ae, ok := err.(*lua.ApiError); ok {
		msg = ae.Object.String()
	}
	p, rest := scripterr.SplitPos(msg)
	if p.File == "" {
		p.File = file
	}
	return scripterr.ErrorList{{Pos: p, Msg: rest}}
}

// NumberOf reads a Lua value as a float64; ok is false for non-numbers.
func NumberOf(v lua.LValue) (float64, bool) {
	n, ok := v.(lua.LNumber)
	if !ok {
		return 0, false
	}
	return float64(n), !math.IsNaN(float64(n))
}
