package lcomp_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/internal/lcomp"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// The generator's tree actions and updates: branches (if/elseif/else,
// and, or, not, comparisons) around several field writes of numbers,
// booleans and constants, ending in a constant status, what the branch
// tree runs (branch.go).

// numField is a field games keep numbers in (in the tame contexts).
func (g *gen) numField() string {
	if g.r.IntN(8) == 0 {
		return "ctx.t." + g.pick([]string{"x", "y", "z"})
	}
	return "ctx." + g.pick([]string{"a", "b", "c", "d", "n"})
}

// cond is a test an action branches on.
func (g *gen) cond(depth int) string {
	if depth < 2 && g.r.IntN(4) == 0 {
		switch g.r.IntN(3) {
		case 0:
			return "not " + g.cond(depth+1)
		case 1:
			return "(" + g.cond(depth+1) + " and " + g.cond(depth+1) + ")"
		default:
			return "(" + g.cond(depth+1) + " or " + g.cond(depth+1) + ")"
		}
	}
	switch g.r.IntN(8) {
	case 0:
		return g.numField() + " " + g.pick([]string{"<", "<=", ">", ">=", "==", "~="}) + " " + g.numField()
	case 1:
		return g.numField() + " " + g.pick([]string{"<", "<=", ">", ">="}) + " " + g.pick([]string{"0", "1", "10", "(0/0)", "K", "dt"})
	case 2:
		return "ctx.s == " + g.pick(strLits)
	case 3:
		return g.field() + " ~= nil"
	case 4:
		return g.field() // a truth test
	case 5:
		if len(g.locals) > 0 {
			return g.pick(g.locals)
		}
		return g.numField() + " == " + g.pick([]string{"true", "false", "0"})
	case 6:
		return "(" + g.numExpr(1) + ") > 0"
	default:
		return g.numField() + " >= " + g.numField()
	}
}

// value is what an action stores: a number, a boolean, a constant, nil,
// another field, an arithmetic.
func (g *gen) value() string {
	switch g.r.IntN(8) {
	case 0:
		return g.pick([]string{"true", "false"})
	case 1:
		return g.pick([]string{`"idle"`, `"running"`, "0", "1", "-1", "(-0)", "nil"})
	case 2:
		return g.field()
	case 3:
		return "not " + g.field()
	case 4:
		return g.cond(1)
	default:
		return g.numExpr(1)
	}
}

func (g *gen) actionBlock(n, depth int) {
	for i := 0; i < n; i++ {
		switch g.r.IntN(9) {
		case 0, 1: // the usual update: a field moved by a number
			f := g.numField()
			if g.r.IntN(6) == 0 {
				f = "ctx.w" // a field no context holds
			}
			g.line(f + " = " + f + " " + g.pick([]string{"+", "-", "*", "/"}) + " " + g.numExpr(1))
		case 2:
			g.line(g.numField() + ", " + g.field() + " = " + g.value() + ", " + g.value())
		case 3:
			g.line(g.field() + " = " + g.value())
		case 4:
			name := fmt.Sprintf("l%d", len(g.locals))
			g.line("local " + name + " = " + g.pick([]string{g.numExpr(1), g.cond(1), g.field()}))
			g.locals = append(g.locals, name)
		case 5:
			if depth < 2 {
				g.line("if " + g.cond(0) + " then return " + g.status() + " end")
			}
		default:
			if depth >= 2 {
				continue
			}
			saved := len(g.locals)
			g.line("if " + g.cond(0) + " then")
			g.actionBlock(1+g.r.IntN(3), depth+1)
			g.locals = g.locals[:saved]
			for g.r.IntN(3) == 0 {
				g.line("elseif " + g.cond(0) + " then")
				g.actionBlock(1+g.r.IntN(2), depth+1)
				g.locals = g.locals[:saved]
			}
			if g.r.IntN(2) == 0 {
				g.line("else")
				g.actionBlock(1+g.r.IntN(2), depth+1)
				g.locals = g.locals[:saved]
			}
			g.line("end")
		}
	}
}

// status is what a tree action returns: a constant, mostly.
func (g *gen) status() string {
	switch g.r.IntN(6) {
	case 0:
		return g.pick([]string{"true", "false", "nil", "0", "1"})
	case 1:
		if len(g.locals) > 0 {
			return g.pick(g.locals)
		}
		return g.field()
	case 2:
		return g.cond(1)
	}
	return g.pick([]string{`"running"`, `"success"`, `"failure"`})
}

// genAction returns a chunk that returns one generated tree action or
// update.
func genAction(r *rand.Rand) string {
	g := &gen{r: r, second: "dt"}
	if r.IntN(3) == 0 {
		g.second = "payload"
	}
	g.line("local K, S = 3, \"10\"")
	g.line("return function(ctx, " + g.second + ")")
	g.actionBlock(1+r.IntN(3), 0)
	if r.IntN(4) > 0 {
		g.line("return " + g.status())
	}
	g.line("end")
	return g.sb.String()
}

// TestBranchMatchesVM is the differential test on tree actions and
// updates: run compiled (the branch tree first) and through the VM, they
// must return, raise, write and count alike; a good share of runs must
// go through the branch tree to the end, with every instruction kind it
// runs among them.
func TestBranchMatchesVM(t *testing.T) {
	h := newHarness()
	defer h.w.L.Close()
	r := rand.New(rand.NewPCG(38, 7))
	funcs := 3000
	if testing.Short() {
		funcs = 500
	}
	for i := 0; i < funcs; i++ {
		h.check(t, genAction(r), r, 12)
	}
	t.Logf("%d functions, %d compiled; %d runs: %d ran compiled to the end (%d as a branch tree), %d fell back", h.stats.funcs, h.stats.compiled, h.stats.runs, h.stats.ran, h.stats.branch, h.stats.fellBack)
	t.Logf("refused: %v", h.refused)
	if h.stats.compiled*10 < h.stats.funcs*9 || h.stats.branch*6 < h.stats.runs {
		t.Fatalf("too few branch tree runs to compare: %+v", h.stats)
	}
	var missing []string
	for _, op := range []string{"MOVE", "LOADK", "LOADBOOL", "LOADNIL", "GETUPVAL", "GETTABLEKS", "SETTABLEKS",
		"ADD", "SUB", "MUL", "DIV", "MOD", "POW", "UNM", "NOT", "JMP", "EQ", "LT", "LE", "TEST", "TESTSET", "RETURN"} {
		if h.branchOps[op] == 0 {
			missing = append(missing, op)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("never run by a branch tree to the end: %v (%v)", missing, h.branchOps)
	}
}

// The scouts' walk runs as a branch tree: the write of ctx.x, the test,
// the two writes of its then-branch, the constant status; a context the
// tree cannot run exactly (a goal Lua would convert) leaves it as it was.
func TestBranchWalk(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	proto, err := luabind.Compile(strings.NewReader(`return function(ctx, dt)
  ctx.x = ctx.x + 3 * dt
  if ctx.x >= ctx.goal then ctx.x, ctx.tired = 0, true end
  return "running"
end`), "walk.lua")
	require.NoError(t, err)
	L.Push(L.NewFunctionFromProto(proto))
	L.Call(0, 1)
	fn := L.Get(-1).(*lua.LFunction)
	prog, err := lcomp.Compile(fn.Proto)
	require.NoError(t, err)
	require.True(t, prog.HasBranch())
	m := &lcomp.Machine{}
	ctx := L.NewTable()
	ctx.RawSetString("x", lua.LNumber(0))
	ctx.RawSetString("goal", lua.LNumber(1))
	ctx.RawSetString("tired", lua.LFalse)
	for i, want := range []struct {
		x     float64
		tired bool
		steps int
	}{{0.75, false, 11}, {0, true, 15}} {
		r, ok := prog.Run(m, fn, 2, ctx, lua.LNumber(0.25*float64(1+2*i)))
		require.True(t, ok, i)
		require.Equal(t, lua.LNumber(want.x), ctx.RawGetString("x"), i)
		require.Equal(t, lua.LBool(want.tired), ctx.RawGetString("tired"), i)
		require.Equal(t, lua.LString("running"), r.Value())
		require.Equal(t, want.steps, r.Steps, i)
	}
	require.True(t, prog.BranchRuns(m, fn, 2, ctx, lua.LNumber(0)))
	ctx.RawSetString("goal", lua.LString("10"))
	require.False(t, prog.BranchRuns(m, fn, 2, ctx, lua.LNumber(1)))
	require.Equal(t, lua.LNumber(0), ctx.RawGetString("x")) // the write undone
}

// The shapes of tree actions, updates, hooks and conditions run as a
// branch tree; a scorer or one-write update keeps the straight tree.
func TestBranchShapes(t *testing.T) {
	for _, tc := range []struct {
		src    string
		branch bool
	}{
		{src: "function(ctx, dt) ctx.x = ctx.x + 3 * dt\n if ctx.x >= ctx.goal then ctx.x, ctx.tired = 0, true end\n return \"running\" end", branch: true},
		{src: "function(ctx) ctx.tired = false return \"success\" end", branch: true},
		{src: "function(ctx) ctx.reports = ctx.reports + 1 ctx.seen = 0 end", branch: true},
		{src: "function(ctx) return ctx.hp < 30 and ctx.enemy ~= nil end", branch: true},
		{src: "function(ctx) return not ctx.alert or ctx.hp <= 0 end", branch: true},
		{src: "function(ctx, p) if p.kind == \"noise\" then ctx.alert = true elseif not ctx.alert then return false end return #ctx.name > 0 end", branch: true},
		{src: "function(ctx) local a = ctx.a if a > 1 then return math.min(a, 3) end return nil end", branch: true},
		{src: "function(ctx, dt) ctx.x = ctx.x + ctx.vx * dt end"},
		{src: "function(ctx) return 1 - ctx.hunger / 100 end"},
	} {
		proto, err := luabind.Compile(strings.NewReader("return "+tc.src), "s.lua")
		require.NoError(t, err, tc.src)
		prog, err := lcomp.Compile(proto.FunctionPrototypes[0])
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.branch, prog.HasBranch(), tc.src)
	}
}
