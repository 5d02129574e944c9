package luabind

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/luaai/luaai/luabind/internal/dialect"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
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
	// MaxString is the longest string, in bytes, that string.rep,
	// string.format, string.char, string.gsub and table.concat build; longer
	// is a Lua error. The default (zero) value is DefaultMaxString, 16 MiB.
	// The `..` operator is not capped (gopher-lua has no hook for it): the
	// time budget stops a loop that grows a string.
	MaxString int
	// Seed seeds the generator math.random uses outside a tick (inside a
	// tick it uses the running agent's, Runner.Rand). The default (zero)
	// value is seed 0: runs replay either way.
	Seed uint64
	// Budget is how long one protected call (Call, CallHook, CallBool,
	// CallNumber, and the calls nested in it) may run, in wall time, before
	// it is stopped with a *BudgetError (errors.Is ErrBudget) naming the
	// file:line it was running; it is stopped between 1x and 1.25x the
	// budget after it started. Measured cost (BenchmarkBudget,
	// BenchmarkBudgetCall): gopher-lua polls the context before every
	// instruction, about 2 ns each (register moves 8.6 -> 10.7 ns, +25%;
	// arithmetic, which allocates, 41 -> 49 ns, +5-20%), and the
	// bookkeeping adds about 25 ns per call (an empty callback: 114 -> 138
	// ns); one watchdog goroutine per VM while calls run. See budget.go.
	// The default (zero) value is no budget and no cost.
	Budget time.Duration
	// MemoryLimit stops a protected call (or a script load) that makes the
	// heap grow by more than this many bytes while it runs, with a
	// *BudgetError wrapping ErrMemoryLimit. The watchdog of Budget samples
	// the heap every few milliseconds during a call, so a call overshoots
	// by what it allocates in that time. Growth is the process heap's, so it
	// is exact with one VM calling at a time and shared blame with several.
	// The default (zero) value is no limit.
	MemoryLimit int64
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

	// runner is the agent whose callback is running, or nil outside a tick.
	runner Runner
	// spawner creates agents for ai.spawn; nil means ai.spawn raises an error.
	spawner Spawner

	modules   map[moduleKey]lua.LValue // loaded modules by mod and absolute path
	loading   map[moduleKey]bool       // modules being loaded (require cycles)
	luaai     lua.LValue               // require("luaai"): the read-only module
	module    *lua.LTable              // the module itself
	readOnly  map[*lua.LTable]readOnlyTable
	pristine  map[string]lua.LValue // the globals a mod starts with (isolation.go)
	behaviour map[string]*State     // behaviours loaded by path (ai.spawn)
	started   time.Time

	ctxArgs [2]lua.LValue

	guard guard // sandbox state: budget, math.random, string cap (sandbox.go)
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
		L:         L,
		opts:      opts,
		modules:   map[moduleKey]lua.LValue{},
		loading:   map[moduleKey]bool{},
		behaviour: map[string]*State{},
		started:   time.Now(),
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

// SetSpawner installs what ai.spawn calls.
func (vm *VM) SetSpawner(s Spawner) { vm.spawner = s }

// SetRunner makes r the agent whose callbacks run next and returns the
// previous one, so nested ticks (an agent ticked from a test) restore it.
func (vm *VM) SetRunner(r Runner) Runner {
	old := vm.runner
	vm.runner = r
	return old
}

// Runner is the agent whose callbacks are running, nil outside a tick.
func (vm *VM) Runner() Runner { return vm.runner }

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
	g.RawSetString("os", osT)

	// package stays as a table so scripts that read package.loaded work, but
	// without loadlib, path searching or C loaders.
	pkg := L.NewTable()
	pkg.RawSetString("loaded", L.NewTable())
	pkg.RawSetString("preload", L.NewTable())
	g.RawSetString("package", pkg)

	vm.module = vm.newModule()
	vm.harden()  // string cap, pattern engine, math.random, budget: sandbox.go
	vm.isolate() // read-only libraries, a global table per mod: isolation.go
}

// moduleKey names a loaded module: the mod's global table it was loaded
// into, and its file.
type moduleKey struct {
	env  *lua.LTable
	path string
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

func (vm *VM) luaLoadString(L *lua.LState) int {
	src, ok := L.Get(1).(lua.LString)
	if !ok {
		L.ArgError(1, "only source text can be loaded here (not a "+L.Get(1).Type().String()+")")
	}
	name := chunkName(L.OptString(2, "(load)")) // never taken for a file: see sandbox.go
	if len(src) > MaxScriptSize {
		L.Push(lua.LNil)
		L.Push(lua.LString(fmt.Sprintf("%s: the chunk is %d bytes, more than the %d-byte limit on scripts", name, len(src), MaxScriptSize)))
		return 2
	}
	proto, err := vm.compileBudgeted(L, string(src), name)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	fn := L.NewFunctionFromProto(proto)
	fn.Env = callerEnv(L)
	L.Push(fn)
	return 1
}

// Compile parses and compiles a chunk. Every script, module and test file
// goes through here, so one pipeline serves them all.
func Compile(r io.Reader, name string) (*lua.FunctionProto, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	chunk, err := parse.Parse(bytes.NewReader(src), name)
	if err != nil {
		if pe, ok := err.(*parse.Error); ok {
			line := pe.Pos.Line
			if line <= 0 { // at EOF: the last line
				line = bytes.Count(bytes.TrimRight(src, "\n"), []byte("\n")) + 1
			}
			msg := strings.TrimSpace(pe.Message)
			if pe.Token != "" {
				msg = fmt.Sprintf("%s near '%s'", msg, pe.Token)
			}
			return nil, ErrorList{{Pos: Pos{File: name, Line: line}, Msg: msg}}
		}
		return nil, ErrorList{{Pos: Pos{File: name}, Msg: err.Error()}}
	}
	if err := checkSyntaxDepth(chunk, name); err != nil { // before anything recursive: see sandbox.go
		return nil, err
	}
	chunk = dialect.Rewrite(chunk) // Lua 5.1 semantics where gopher-lua differs; see internal/dialect
	chunk = rewriteConcat(chunk)   // `..` under the string cap; see concat.go
	proto, err := lua.Compile(chunk, name)
	if ce, ok := err.(*lua.CompileError); ok { // "compile error near line(3) ...": keep the line
		return nil, ErrorList{{Pos: Pos{File: name, Line: ce.Line}, Msg: ce.Message}}
	}
	if err != nil {
		p, msg := SplitPos(err.Error())
		if p.File == "" {
			p.File = name
		}
		return nil, ErrorList{{Pos: p, Msg: msg}}
	}
	return proto, nil
}

// CompileFile compiles a file; its chunk name is the path as given, so
// errors read "scripts/guard.lua:12: ...".
//
// The file must be a regular file of at most MaxScriptSize bytes (see
// ReadScript).
func CompileFile(path string) (*lua.FunctionProto, error) {
	src, err := ReadScript(path)
	if err != nil {
		return nil, err
	}
	return Compile(bytes.NewReader(src), path)
}

// callerFile is the chunk name of the Lua function that called the running Go
// function, or "" when there is none.
func callerFile(L *lua.LState) string {
	for level := 1; level < 8; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return ""
		}
		if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil {
			return ""
		}
		if dbg.What != "G" && dbg.Source != "" && !strings.HasPrefix(dbg.Source, "=") && !strings.HasPrefix(dbg.Source, "<") {
			return dbg.Source
		}
	}
	return ""
}

// callerPos is the file and line of the Lua code that called the running Go
// function.
func callerPos(L *lua.LState) Pos {
	p, _ := SplitPos(L.Where(1) + " ")
	return p
}

// Resolve turns a script-relative name into a path inside the allowed roots:
// the folder of the calling script, then each configured root. Absolute paths
// and ".." are refused.
func (vm *VM) Resolve(from, name string) (string, error) {
	if name == "" || filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) {
		return "", fmt.Errorf("%q: %w", name, ErrOutsideRoots)
	}
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return "", fmt.Errorf("%q: \"..\" is not allowed: %w", name, ErrOutsideRoots)
		}
	}
	var dirs []string
	if from != "" {
		dirs = append(dirs, filepath.Dir(from))
	}
	dirs = append(dirs, vm.roots...)
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			if !inside(d, p) {
				return "", fmt.Errorf("%q: a symbolic link leads out of %s: %w", name, d, ErrOutsideRoots)
			}
			if !st.Mode().IsRegular() {
				return "", fmt.Errorf("%q: %w (%s)", name, ErrNotRegular, kind(st.Mode()))
			}
			if st.Size() > MaxScriptSize {
				return "", fmt.Errorf("%q: %w", name, sizeError(MaxScriptSize, st.Size()))
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("%q not found next to %s or in the script roots: %w", name, displayDir(from), os.ErrNotExist)
}

// inside reports whether path, with symbolic links followed, is still
// inside dir (links followed too): a mod archive may carry links.
func inside(dir, path string) bool {
	realDir, err1 := filepath.EvalSymlinks(dir)
	realPath, err2 := filepath.EvalSymlinks(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(realDir, realPath)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func displayDir(from string) string {
	if from == "" {
		return "the script"
	}
	return filepath.Dir(from)
}

// AllowRoot adds the folder of a loaded script to the roots, so modules it
// requires from its own folder resolve for later callers too.
func (vm *VM) AllowRoot(dir string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	abs = filepath.Clean(abs)
	for _, r := range vm.roots {
		if r == abs {
			return
		}
	}
	vm.roots = append(vm.roots, abs)
}

func (vm *VM) luaRequire(L *lua.LState) int {
	name := L.CheckString(1)
	if name == "luaai" {
		L.Push(vm.luaai)
		return 1
	}
	rel := strings.ReplaceAll(name, ".", "/") + ".lua" // a module name: lib.util
	switch {
	case strings.HasSuffix(name, ".lua"):
		rel = name // a path: lib/util.lua (Resolve refuses ".." and absolute paths)
	case strings.HasPrefix(name, "."):
		L.RaiseError("require %q: a module name cannot start with \".\": %v", name, ErrOutsideRoots)
	case strings.ContainsAny(name, `/\`):
		rel = name + ".lua" // a path without .lua: sub/mod, ../x (refused)
	}
	path, err := vm.Resolve(callerFile(L), rel)
	if err != nil {
		L.RaiseError("require %q: %v", name, err)
	}
	abs, _ := filepath.Abs(path)
	env := callerEnv(L)
	key := moduleKey{env, abs}
	if v, ok := vm.modules[key]; ok {
		L.Push(v)
		return 1
	}
	if vm.loading[key] {
		L.RaiseError("require %q: circular require", name)
	}
	proto, err := vm.opts.Cache.CompileFile(path)
	if err != nil {
		L.RaiseError("require %q: %v", name, err)
	}
	vm.loading[key] = true
	defer delete(vm.loading, key)
	fn := L.NewFunctionFromProto(proto)
	fn.Env = env // a module runs with the globals of the mod that requires it
	L.Push(fn)
	L.Push(lua.LString(name))
	L.Call(1, 1)
	v := L.Get(-1)
	L.Pop(1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	vm.modules[key] = v
	L.Push(v)
	return 1
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
	p, rest := SplitPos(msg)
	if p.File == "" {
		p.File = file
	}
	return ErrorList{{Pos: p, Msg: rest}}
}

// osTimeTable implements os.time{year=…} deterministically from its argument.
func osTimeTable(L *lua.LState) int {
	t := L.CheckTable(1)
	get := func(k string, def int) int {
		if v, ok := t.RawGetString(k).(lua.LNumber); ok {
			return int(v)
		}
		return def
	}
	tm := time.Date(get("year", 1970), time.Month(get("month", 1)), get("day", 1), get("hour", 12), get("min", 0), get("sec", 0), 0, time.Local)
	L.Push(lua.LNumber(tm.Unix()))
	return 1
}

// osDate is os.date; its result is capped like any string, and a long
// format checks the budget as it goes.
func (vm *VM) osDate(L *lua.LState, now time.Time) int {
	format := L.OptString(1, "%c")
	if L.GetTop() >= 2 {
		now = time.Unix(int64(L.CheckNumber(2)), 0)
	}
	if strings.HasPrefix(format, "!") {
		now = now.UTC()
		format = format[1:]
	}
	if strings.HasPrefix(format, "*t") {
		t := L.NewTable()
		t.RawSetString("year", lua.LNumber(now.Year()))
		t.RawSetString("month", lua.LNumber(now.Month()))
		t.RawSetString("day", lua.LNumber(now.Day()))
		t.RawSetString("hour", lua.LNumber(now.Hour()))
		t.RawSetString("min", lua.LNumber(now.Minute()))
		t.RawSetString("sec", lua.LNumber(now.Second()))
		t.RawSetString("wday", lua.LNumber(now.Weekday()+1))
		t.RawSetString("yday", lua.LNumber(now.YearDay()))
		t.RawSetString("isdst", lua.LFalse)
		L.Push(t)
		return 1
	}
	// At most 24 bytes a conversion (%c): refuse a result over the cap
	// before building any of it.
	if size := float64(len(format)) + 24*float64(strings.Count(format, "%")); size > float64(vm.guard.maxString) {
		vm.tooLong(L, "os.date", size)
	}
	var b strings.Builder
	for i, n := 0, 0; i < len(format); i, n = i+1, n+1 {
		if n&1023 == 1023 {
			vm.checkBudget(L)
			if b.Len() > vm.guard.maxString {
				vm.tooLong(L, "os.date", float64(b.Len()))
			}
		}
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'Y':
			fmt.Fprintf(&b, "%d", now.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", now.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(now.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", now.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", now.Hour())
		case 'M':
			fmt.Fprintf(&b, "%02d", now.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", now.Second())
		case 'c':
			b.WriteString(now.Format("Mon Jan  2 15:04:05 2006"))
		case 'x':
			b.WriteString(now.Format("01/02/06"))
		case 'X':
			b.WriteString(now.Format("15:04:05"))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	if b.Len() > vm.guard.maxString {
		vm.tooLong(L, "os.date", float64(b.Len()))
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// number reads a Lua value as a float64; ok is false for non-numbers.
func number(v lua.LValue) (float64, bool) {
	n, ok := v.(lua.LNumber)
	if !ok {
		return 0, false
	}
	return float64(n), !math.IsNaN(float64(n))
}
