package lcomp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/internal/lcomp"
	lua "github.com/yuin/gopher-lua"
)

// counter is the context the LState polls before every instruction: it
// counts them, as the engine's instruction budget does.
type counter struct{ n int }

func (c *counter) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *counter) Done() <-chan struct{}       { c.n++; return nil }
func (c *counter) Err() error                  { return nil }
func (c *counter) Value(any) any               { return nil }

// harness runs generated functions compiled (falling back to the VM as the
// engine does) and through the VM, on twin contexts.
type harness struct {
	w         *world
	cnt       *counter
	envs      []env
	stats     struct{ funcs, compiled, runs, ran, fellBack, straight, branch, overFields, overFieldsRan int }
	ops       map[string]int // instructions run compiled to the end, by name
	branchOps map[string]int // instructions of functions a branch tree ran to the end, by name
	refused   map[string]int // why functions were refused
}

func newHarness() *harness {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	for _, lib := range []lua.LGFunction{lua.OpenBase, lua.OpenMath} {
		L.Push(L.NewFunction(lib))
		L.Call(0, 0)
	}
	h := &harness{cnt: &counter{}, ops: map[string]int{}, branchOps: map[string]int{}, refused: map[string]int{}}
	h.w = &world{L: L, goFn: L.NewFunction(func(L *lua.LState) int { L.Push(lua.LString("meta")); return 1 })}
	L.SetContext(h.cnt)
	real := L.G.Global.RawGetString("math").(*lua.LTable)
	// The sandbox's math library: its min, max and abs are its own.
	vm := luabind.NewVM(luabind.Options{})
	sandboxed := L.NewTable()
	real.ForEach(func(k, v lua.LValue) { sandboxed.RawSet(k, v) })
	vmMath := vm.L.G.Global.RawGetString("math").(*lua.LTable).Metatable.(*lua.LTable).RawGetString("__index").(*lua.LTable)
	for _, name := range []string{"min", "max", "abs"} {
		sandboxed.RawSetString(name, vmMath.RawGetString(name))
	}
	vm.Close()
	// Three global tables: gopher-lua's math library; a read-only view of
	// it (an empty table whose __index is the library), as mods see it;
	// the sandbox's library.
	for i, lib := range []*lua.LTable{real, real, sandboxed} {
		e := L.NewTable()
		L.G.Global.ForEach(func(k, v lua.LValue) { e.RawSet(k, v) })
		e.RawSetString("G", lua.LNumber(7))
		e.RawSetString("math", lib)
		if i == 1 {
			view := L.NewTable()
			mt := L.NewTable()
			mt.RawSetString("__index", lib)
			L.SetMetatable(view, mt)
			e.RawSetString("math", view)
		}
		h.envs = append(h.envs, env{e, &lcomp.Machine{Math: lcomp.MathOf(lib)}})
	}
	return h
}

// env is a global table and the machine that knows its math functions.
type env struct {
	globals *lua.LTable
	m       *lcomp.Machine
}

// outcome is everything a caller can observe of one call.
type outcome struct {
	ret, err, ctx, second string
	steps                 int
}

// check compiles src's function, runs it on n generated contexts both
// ways, and returns the first difference.
func (h *harness) check(t testing.TB, src string, r *rand.Rand, n int) {
	t.Helper()
	proto, err := luabind.Compile(strings.NewReader(src), "gen.lua")
	if err != nil {
		t.Fatalf("generated source does not compile: %v\n%s", err, src)
	}
	L := h.w.L
	chunk := L.NewFunctionFromProto(proto)
	e := h.envs[r.IntN(len(h.envs))]
	chunk.Env = e.globals
	L.Push(chunk)
	if err := L.PCall(0, 1, nil); err != nil {
		t.Fatalf("chunk: %v", err)
	}
	fn := L.Get(-1).(*lua.LFunction)
	L.Pop(1)
	h.stats.funcs++
	prog, cerr := lcomp.Compile(fn.Proto)
	if cerr != nil {
		reason := cerr.Error()
		if i := strings.Index(reason, ": "); i >= 0 {
			reason = reason[i+2:]
		}
		h.refused[reason]++
		return
	}
	h.stats.compiled++
	for i := 0; i < n; i++ {
		seed := r.Uint64()
		nargs := 1 + r.IntN(2)
		build := func() (*lua.LTable, lua.LValue) {
			cr := rand.New(rand.NewPCG(seed, 1))
			return h.w.ctx(cr), h.w.second(cr)
		}
		c1, s1 := build()
		c2, s2 := build()
		if dump(c1) != dump(c2) || dump(s1) != dump(s2) {
			t.Fatal("twin contexts differ")
		}
		want := h.vm(fn, nargs, c1, s1)
		h.stats.runs++
		res, ok := prog.Run(e.m, fn, nargs, c2, s2)
		var got outcome
		if c3, s3 := build(); prog.StraightRuns(e.m, nargs, c3, s3) {
			h.stats.straight++ // the tree ran to the end
		}
		if c5, s5 := build(); prog.BranchRuns(e.m, fn, nargs, c5, s5) {
			h.stats.branch++ // the branch tree ran to the end
			for _, in := range fn.Proto.Code {
				h.branchOps[opName[int(in>>26)]]++
			}
		}
		if ok {
			h.stats.ran++
			got = outcome{ret: dump(res.Value()), ctx: dump(c2), second: dump(s2), steps: res.Steps}
			for _, in := range fn.Proto.Code {
				h.ops[opName[int(in>>26)]]++ // counted per function run compiled
			}
		} else {
			h.stats.fellBack++
			got = h.vm(fn, nargs, c2, s2)
		}
		if c4, s4 := build(); nargs == 1 {
			// The scorers' path: the tree's number, unboxed.
			if n, steps, ok := prog.RunNumber(c4); ok {
				num := outcome{ret: dump(lua.LNumber(n)), ctx: dump(c4), second: dump(s4), steps: steps}
				if num != want {
					t.Fatalf("RunNumber differs from the VM\n%s\ncontext: %s\nVM:        %+v\nRunNumber: %+v",
						src, dump(buildAgain(h, seed)), want, num)
				}
			}
		}
		if c5, _ := build(); nargs == 1 {
			h.checkOverFields(t, prog, c5, want, src, seed)
		}
		if got != want {
			t.Fatalf("compiled run differs from the VM (compiled=%v, nargs=%d)\n%s\ncontext: %s  second: %s\nVM:       %+v\ncompiled: %+v",
				ok, nargs, src, dump(buildAgain(h, seed)), "", want, got)
		}
	}
}

// fieldSlots gives fields and constants slots, as a decision's score
// plan does.
type fieldSlots struct {
	paths [][]string
	v     lcomp.Fields
}

func (s *fieldSlots) Field(path []string) (int, bool) {
	for i, p := range s.paths {
		if p != nil && slices.Equal(p, path) {
			return i, true
		}
	}
	s.paths = append(s.paths, append([]string{}, path...))
	return len(s.paths) - 1, len(s.paths) <= lcomp.MaxFields
}

func (s *fieldSlots) Const(k float64) (int, bool) {
	s.paths = append(s.paths, nil)
	s.v[len(s.paths)-1] = k
	return len(s.paths) - 1, len(s.paths) <= lcomp.MaxFields
}

// checkOverFields runs the scorer compiled over shared reads (when it
// compiles so) on ctx's fields read raw, when every one holds a number
// (reached through tables), as a score plan would: its number and steps
// must be the VM's, and then RunNumber must run too.
func (h *harness) checkOverFields(t testing.TB, prog *lcomp.Program, ctx *lua.LTable, want outcome, src string, seed uint64) {
	t.Helper()
	slots := &fieldSlots{}
	f, ok := prog.OverFields(slots)
	if !ok {
		return
	}
	h.stats.overFields++
	for i, path := range slots.paths {
		if path == nil || f.Reads&(1<<i) == 0 {
			continue
		}
		var x lua.LValue = ctx
		for _, k := range path {
			tb, isTab := x.(*lua.LTable)
			if !isTab {
				return // the plan hands such a call back
			}
			x = tb.RawGetString(k)
		}
		n, isNum := x.(lua.LNumber)
		if !isNum {
			return
		}
		slots.v[i] = float64(n)
	}
	got := f.Eval(&slots.v)
	if got != got {
		return // a NaN is handed back, to be reported
	}
	h.stats.overFieldsRan++
	if o := (outcome{ret: dump(lua.LNumber(got)), ctx: want.ctx, second: want.second, steps: f.Steps}); o != want {
		t.Fatalf("OverFields differs from the VM\n%s\ncontext: %s\nVM:         %+v\nOverFields: %+v",
			src, dump(buildAgain(h, seed)), want, o)
	}
	if _, _, ok := prog.RunNumber(ctx); !ok {
		t.Fatalf("OverFields ran where RunNumber does not\n%s\ncontext: %s", src, dump(buildAgain(h, seed)))
	}
}

func buildAgain(h *harness, seed uint64) lua.LValue {
	return h.w.ctx(rand.New(rand.NewPCG(seed, 1)))
}

// vm calls fn through gopher-lua and records what it did.
func (h *harness) vm(fn *lua.LFunction, nargs int, ctx *lua.LTable, second lua.LValue) outcome {
	L := h.w.L
	top := L.GetTop()
	L.Push(fn)
	L.Push(ctx)
	if nargs > 1 {
		L.Push(second)
	}
	before := h.cnt.n
	err := L.PCall(nargs, 1, nil)
	o := outcome{steps: h.cnt.n - before}
	if err != nil {
		o.err = err.Error()
		if ae, ok := err.(*lua.ApiError); ok {
			o.err += "\n" + ae.StackTrace
		}
	} else {
		o.ret = dump(L.Get(-1))
	}
	L.SetTop(top)
	o.ctx, o.second = dump(ctx), dump(second)
	return o
}

// dump writes a value deterministically: numbers with their sign and NaN,
// tables with their keys in iteration order (so a write that moved a key
// shows), functions and userdata by type.
func dump(v lua.LValue) string {
	var sb strings.Builder
	seen := map[*lua.LTable]bool{}
	var walk func(v lua.LValue, depth int)
	walk = func(v lua.LValue, depth int) {
		switch v := v.(type) {
		case lua.LNumber:
			f := float64(v)
			fmt.Fprintf(&sb, "%v", f)
			if f == 0 && math.Signbit(f) {
				sb.WriteString("(-0)")
			}
		case lua.LString:
			fmt.Fprintf(&sb, "%q", string(v))
		case *lua.LTable:
			if seen[v] || depth > 4 {
				sb.WriteString("<table>")
				return
			}
			seen[v] = true
			sb.WriteString("{")
			var keys []string
			for k, x := v.Next(lua.LNil); k != lua.LNil; k, x = v.Next(k) {
				var kb strings.Builder
				kb.WriteString(k.String() + "=")
				keys = append(keys, k.String())
				walk(x, depth+1)
				sb.WriteString(" ")
			}
			sb.WriteString("order:" + strings.Join(keys, ","))
			if v.Metatable != lua.LNil {
				sb.WriteString(" +meta")
			}
			sb.WriteString("}")
		default:
			sb.WriteString(v.Type().String())
			if b, ok := v.(lua.LBool); ok {
				fmt.Fprintf(&sb, ":%v", bool(b))
			}
		}
	}
	walk(v, 0)
	return sb.String()
}

// TestCompiledMatchesVM is the differential test: generated functions of
// every shape the compiler accepts, run compiled (with the engine's
// fallback) and through the VM on twin contexts of every Lua type, must
// return the same value, raise the same error (message, line, traceback),
// leave the context and payload the same (key order included) and count
// the same instructions.
func TestCompiledMatchesVM(t *testing.T) {
	h := newHarness()
	defer h.w.L.Close()
	r := rand.New(rand.NewPCG(38, 2026))
	funcs := 3000
	if testing.Short() {
		funcs = 500
	}
	for i := 0; i < funcs; i++ {
		h.check(t, genFunc(r), r, 12)
	}
	t.Logf("%d functions, %d compiled; %d runs: %d ran compiled to the end (%d ran as a tree, %d as a branch tree), %d fell back", h.stats.funcs, h.stats.compiled, h.stats.runs, h.stats.ran, h.stats.straight, h.stats.branch, h.stats.fellBack)
	t.Logf("refused: %v", h.refused)
	t.Logf("over shared reads: %d compiled, %d runs compared", h.stats.overFields, h.stats.overFieldsRan)
	if h.stats.overFieldsRan*20 < h.stats.straight {
		t.Fatalf("too few runs over shared reads to compare: %+v", h.stats)
	}
	// The comparison means something only where the compiled path ran:
	// most functions compile, a good share of runs finish compiled, and
	// every instruction kind the compiler accepts was among them.
	if h.stats.compiled*2 < h.stats.funcs || h.stats.ran*5 < h.stats.runs || h.stats.straight*10 < h.stats.ran {
		t.Fatalf("too few compiled runs to compare: %+v", h.stats)
	}
	var names []string
	for _, op := range []string{"MOVE", "LOADK", "LOADBOOL", "LOADNIL", "GETUPVAL", "GETGLOBAL", "GETTABLEKS", "SETTABLEKS",
		"ADD", "SUB", "MUL", "DIV", "MOD", "POW", "UNM", "NOT", "LEN", "JMP", "EQ", "LT", "LE", "TEST", "TESTSET", "CALL", "TAILCALL", "RETURN"} {
		if h.ops[op] == 0 {
			names = append(names, op)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		t.Fatalf("never run compiled to the end: %v (%v)", names, h.ops)
	}
}

// FuzzCompiledMatchesVM runs the differential test on functions and
// contexts generated from the fuzzer's seeds.
func FuzzCompiledMatchesVM(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 38} {
		f.Add(s, s*7)
	}
	h := newHarness()
	f.Fuzz(func(t *testing.T, a, b uint64) {
		r := rand.New(rand.NewPCG(a, b))
		h.check(t, genFunc(r), r, 8)
	})
}

var opName = map[int]string{lua.OP_MOVE: "MOVE", lua.OP_MOVEN: "MOVEN", lua.OP_LOADK: "LOADK", lua.OP_LOADBOOL: "LOADBOOL",
	lua.OP_LOADNIL: "LOADNIL", lua.OP_GETUPVAL: "GETUPVAL", lua.OP_GETGLOBAL: "GETGLOBAL", lua.OP_GETTABLEKS: "GETTABLEKS",
	lua.OP_SETTABLEKS: "SETTABLEKS", lua.OP_ADD: "ADD", lua.OP_SUB: "SUB", lua.OP_MUL: "MUL", lua.OP_DIV: "DIV", lua.OP_MOD: "MOD",
	lua.OP_POW: "POW", lua.OP_UNM: "UNM", lua.OP_NOT: "NOT", lua.OP_LEN: "LEN", lua.OP_JMP: "JMP", lua.OP_EQ: "EQ", lua.OP_LT: "LT",
	lua.OP_LE: "LE", lua.OP_TEST: "TEST", lua.OP_TESTSET: "TESTSET", lua.OP_CALL: "CALL", lua.OP_TAILCALL: "TAILCALL", lua.OP_RETURN: "RETURN"}
