package luabind

// The sandbox, beyond the library whitelist of openLibs (vm.go).
//
// What a script can reach, and what it cannot (sandbox_test.go has a test
// for each):
//
//   - No io, no debug but debug.traceback, no os beyond os.time, os.clock,
//     os.date and os.difftime, no dofile, loadfile, getfenv, setfenv,
//     collectgarbage, module, newproxy, string.dump, package.loadlib: each
//     of those is nil, and a call of one (or an index of io) raises
//     "os.execute is not available to luaai scripts" at the caller's line
//     (refuseUnavailable, astpass.Absent); package has only the (unused)
//     loaded and preload tables and path and cpath strings a script may
//     change to no effect (newPackage).
//   - load and loadstring compile source text only: a reader function or
//     any other value is refused with an error. Chunk names a script gives
//     are shown with a "=" prefix so a loaded chunk cannot pose as a file
//     elsewhere on disk (require and ai.spawn resolve names next to the
//     calling file).
//   - require resolves names inside the folder of the calling script and
//     the configured roots only (VM.Resolve): no absolute paths, no "..".
//   - setmetatable takes a table as its first argument, as in Lua 5.1.
//     gopher-lua would otherwise let setmetatable(0, mt) or
//     setmetatable("", mt) replace the metatable of every number or string
//     in the VM.
//   - The string metatable is its own table, {__index = string,
//     __metatable = "string"}: getmetatable("") returns the string "string",
//     and methods ("x"):rep(3) still find the string table. The string
//     table, like the other libraries and luaai, is read-only to scripts,
//     and every behaviour file has globals of its own (isolation.go).
//   - Strings are capped at Options.MaxString bytes (16 MiB by default):
//     string.rep, string.format, string.char, string.gsub and table.concat
//     refuse, with a Lua error, to build a longer one. string.rep and
//     string.format know the size before they build anything;
//     string.gsub and table.concat build into a buffer that stops at the
//     limit. The `..` operator is a VM instruction gopher-lua gives no hook
//     for: a loop doubling a string (s = s .. s) is stopped by the time
//     budget (budget.go), not by the cap, and one expression can still
//     join a few hundred capped strings.
//   - Pattern matching (string.find, match, gmatch, gsub) runs on luaai's
//     own Lua 5.1 matcher (internal/pattern, used by patterns.go), which
//     counts its steps and stops when the running call's budget is over:
//     gopher-lua's engine can run for minutes on a short pattern out of
//     the budget's reach. gsub builds its result in one pass and gmatch
//     finds its matches one at a time.
//   - math.random uses the running agent's generator during a tick
//     (Runner.Rand) and a VM-level PCG seeded from Options.Seed outside a
//     tick; math.randomseed does nothing (the host seeds the generators;
//     a script reseeding would break replays). os.time, os.date and
//     os.clock read Options.Now when it is set (os.clock: seconds since its
//     first call). So runs replay.
//   - Compile refuses chunks nested more than 1000 levels deep
//     (internal/astpass): gopher-lua's compiler would overflow the Go stack,
//     a fatal error, on a few megabytes of "not not not ...".
//   - coroutine.resume pads its arguments so that a yield never hands
//     its caller a Go nil (fixYieldResults, a gopher-lua bug).
//
// The limits of the Lua state itself (NewVM): 512 nested calls (deeper
// recursion is a "stack overflow" error) and a value stack of up to 1M
// slots (beyond: "registry overflow"), grown in large steps so that
// reaching the limit takes milliseconds rather than the minutes gopher-lua's
// default step of 32 slots would take.

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/luaai/luaai/luabind/internal/astpass"
	lua "github.com/yuin/gopher-lua"
)

// DefaultMaxString is the string size cap when Options.MaxString is zero.
const DefaultMaxString = 16 << 20

// guard is a VM's sandbox state.
type guard struct {
	bud       *budget    // nil when neither Budget nor LoadBudget is set
	rng       *rand.Rand // math.random outside a tick
	maxString int
	coDepth   int         // coroutines being resumed inside each other
	compiling atomic.Bool // a load() compile abandoned by a stop is running
	closed    bool        // VM.Close ran
}

// harden finishes the sandbox openLibs starts: it is called once, at the
// end of openLibs.
//
// It is long because it installs every guard of the sandbox (string limits,
// random numbers, the budget, the library entries it replaces or removes) in
// one place, so that the whole surface can be read at once.
func (vm *VM) harden() {
	L := vm.L
	g := &vm.guard
	g.maxString = vm.opts.MaxString
	if g.maxString <= 0 {
		g.maxString = DefaultMaxString
	}
	seed := vm.opts.Seed
	g.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g.bud = newBudget(vm.opts.Budget, vm.opts.LoadBudget, vm.opts.MemoryLimit, vm.opts.BudgetSteps, vm.opts.TickBudget)
	if g.bud != nil {
		L.SetContext(&g.bud.ctx)
	}

	G := L.G.Global
	vm.refuseUnavailable(G)
	G.RawSetString("setmetatable", L.NewFunction(sbSetMetatable(G.RawGetString("setmetatable"))))
	G.RawSetString("unpack", L.NewFunction(vm.unpack))
	next := L.NewFunction(vm.luaNext) // next.go
	G.RawSetString("next", next)
	G.RawSetString("pairs", L.NewClosure(luaPairs, next))
	// error() with no value raises nil, as Lua 5.1 does (gopher-lua asks
	// for a value): pcall(error) is false, nil.
	G.RawSetString("error", L.NewFunction(func(L *lua.LState) int {
		L.Error(L.Get(1), L.OptInt(2, 1))
		return 0
	}))

	str, _ := G.RawGetString(lua.StringLibName).(*lua.LTable)
	if str != nil {
		str.RawSetString("__index", lua.LNil)
		for name, fn := range map[string]lua.LGFunction{
			"rep":    vm.strRep,
			"byte":   vm.strByte,
			"char":   vm.strChar,
			"format": vm.strFormat(str.RawGetString("format")),
			"find":   vm.strFind,
			"match":  vm.strMatch,
			"gmatch": vm.strGmatch,
			"gfind":  vm.strGmatch,
			"gsub":   vm.strGsub,
			"upper":  vm.strUpper,
			"lower":  vm.strLower,
		} {
			str.RawSetString(name, L.NewFunction(fn))
		}
		mt := L.NewTable()
		mt.RawSetString("__index", str)
		mt.RawSetString("__metatable", lua.LString("string"))
		L.SetMetatable(lua.LString(""), mt)
	}
	if tab, ok := G.RawGetString(lua.TabLibName).(*lua.LTable); ok {
		tab.RawSetString("concat", L.NewFunction(vm.tableConcat))
		tab.RawSetString("sort", L.NewFunction(vm.tableSort))
		tab.RawSetString("insert", L.NewFunction(vm.tableInsert)) // arrays.go
	}
	if m, ok := G.RawGetString(lua.MathLibName).(*lua.LTable); ok {
		m.RawSetString("random", L.NewFunction(vm.mathRandom))
		m.RawSetString("min", L.NewFunction(mathMin))
		m.RawSetString("max", L.NewFunction(mathMax))
		m.RawSetString("abs", L.NewFunction(mathAbs))
		m.RawSetString("randomseed", L.NewFunction(func(*lua.LState) int { return 0 }))
	}
	if vm.opts.Now != nil {
		if osT, ok := G.RawGetString("os").(*lua.LTable); ok {
			var start time.Time // the first call: Now may not be ready while NewVM runs
			osT.RawSetString("clock", L.NewFunction(func(L *lua.LState) int {
				now := vm.now()
				if start.IsZero() {
					start = now
				}
				L.Push(lua.LNumber(now.Sub(start).Seconds()))
				return 1
			}))
		}
	}
	if co, ok := G.RawGetString(lua.CoroutineLibName).(*lua.LTable); ok {
		vm.fixYieldResults(co)
	}
	if co, ok := G.RawGetString(lua.CoroutineLibName).(*lua.LTable); ok && g.bud != nil {
		ctx := &g.bud.ctx
		if create, ok := co.RawGetString("create").(*lua.LFunction); ok && create.IsG {
			gf := create.GFunction
			co.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
				n := gf(L)
				if th, ok := L.Get(-1).(*lua.LState); ok {
					th.SetContext(ctx)
				}
				return n
			}))
		}
		if wrap, ok := co.RawGetString("wrap").(*lua.LFunction); ok && wrap.IsG {
			gf := wrap.GFunction
			co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
				n := gf(L)
				if fn, ok := L.Get(-1).(*lua.LFunction); ok && len(fn.Upvalues) > 0 && fn.Upvalues[0] != nil {
					if th, ok := fn.Upvalues[0].Value().(*lua.LState); ok {
						th.SetContext(ctx)
					}
				}
				return n
			}))
		}
	}
}

// sbSetMetatable is setmetatable restricted to tables.
func sbSetMetatable(orig lua.LValue) lua.LGFunction {
	fn, _ := orig.(*lua.LFunction)
	return func(L *lua.LState) int {
		if L.Get(1).Type() != lua.LTTable {
			L.ArgError(1, "table expected, got "+L.Get(1).Type().String())
		}
		if fn == nil || !fn.IsG {
			L.RaiseError("setmetatable is not available")
		}
		return fn.GFunction(L)
	}
}

// checkBudget raises the budget error when the running call has been
// stopped; Go loops that may run long call it now and then.
func (vm *VM) checkBudget(L *lua.LState) {
	b := vm.guard.bud
	if b != nil {
		b.ctx.addWork(checkWork)
		b.selfCheck()
	}
	if b.expired() {
		L.RaiseError("%s", b.stopMessage())
	}
}

// What scripts do not get, by library ("" for globals): absent (nil), so
// that feature tests (`if setfenv then`, `io and io.write or print`) work
// as under any Lua without them. A use of one (a call, an index of io)
// raises "os.execute is not available to luaai scripts" at the caller's
// line: the compile step routes such uses through absentGlobal.
var unavailable = map[string][]string{
	"":        {"dofile", "loadfile", "getfenv", "setfenv", "collectgarbage", "module", "newproxy", "gcinfo"},
	"os":      {"execute", "exit", "remove", "rename", "getenv", "setenv", "tmpname", "setlocale"},
	"string":  {"dump"},
	"package": {"loadlib"},
}

// unavailableLibs are whole libraries scripts do not get (debug is then
// given traceback alone).
var unavailableLibs = []string{"io", "debug"}

func unavailableMessage(name string) string { return name + " is not available to luaai scripts" }

func (vm *VM) refuseUnavailable(G *lua.LTable) {
	L := vm.L
	for lib, names := range unavailable {
		t := G
		if lib != "" {
			var ok bool
			if t, ok = G.RawGetString(lib).(*lua.LTable); !ok {
				continue
			}
		}
		for _, n := range names {
			t.RawSetString(n, lua.LNil)
		}
	}
	for _, lib := range unavailableLibs {
		G.RawSetString(lib, lua.LNil)
	}
	// debug keeps traceback alone, so that xpcall(f, debug.traceback)
	// works; the rest of debug is absent.
	L.Pop(lua.OpenDebug(L)) // it leaves the library on the stack
	full, _ := G.RawGetString("debug").(*lua.LTable)
	debug := L.NewTable()
	if full != nil {
		debug.RawSetString("traceback", full.RawGetString("traceback"))
	}
	G.RawSetString("debug", debug)
	G.RawSetString(absentGlobal, L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("%s", unavailableMessage(L.CheckString(1)))
		return 0
	}))
}

// What the compile step needs to name a missing name when a script uses
// it (astpass.Absent): the refused globals and library fields above, io
// whole, and debug but for traceback.
const (
	absentLocal  = "(luaai absent)"
	absentGlobal = "luaai absent"
)

var missing = astpass.Missing{
	Global: func(name string) bool { return slices.Contains(unavailable[""], name) },
	Field: func(lib, name string) bool {
		if lib == "debug" {
			return name != "traceback"
		}
		return slices.Contains(unavailable[lib], name)
	},
	Lib: func(lib string) bool { return lib == "io" },
}
