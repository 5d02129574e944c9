package defs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// planGen generates scorers of every kind a score plan runs (and some it
// hands back) and contexts holding values of every type.
type planGen struct{ r *rand.Rand }

var planFields = []string{"a", "b", "c", "t.x", "t.y"}

func (g planGen) num() string {
	ks := []string{"0", "0", "1", "0.5", "-2", "3", "1e308", "-0.25", "100"}
	return ks[g.r.IntN(len(ks))]
}

// native is a native scorer expression, depth levels deep at most.
func (g planGen) native(depth int) string {
	if depth == 0 || g.r.IntN(4) == 0 {
		switch g.r.IntN(6) {
		case 0:
			return "ai.const(" + g.num() + ")"
		case 1:
			return g.num()
		default:
			return fmt.Sprintf("ai.field(%q)", planFields[g.r.IntN(len(planFields))])
		}
	}
	sub := func() string { return g.native(depth - 1) }
	switch g.r.IntN(10) {
	case 9: // the shape plans run without a call
		return fmt.Sprintf("ai.product(ai.field(%q), ai.inverse(ai.field(%q)))", planFields[g.r.IntN(len(planFields))], planFields[g.r.IntN(len(planFields))])
	case 0:
		return "ai.inverse(" + sub() + ")"
	case 1:
		return "ai.weight(" + sub() + ", " + g.num() + ")"
	case 2:
		return "ai.normalize(" + sub() + ", " + g.num() + ", " + g.num() + ")"
	case 3:
		kinds := []string{"linear", "polynomial", "logistic", "logit", "normal", "sine", "step"}
		return fmt.Sprintf("ai.curve(%s, {kind = %q, m = %s, b = 0.1})", sub(), kinds[g.r.IntN(len(kinds))], g.num())
	case 4:
		return "ai.cond(ai.gt(\"a\", 0))" // handed back: not pure field reads
	case 5:
		return "ai.product(" + sub() + ", " + g.lua(1) + ")" // a Lua factor: handed back
	default:
		ops := []string{"product", "sum", "min", "max", "compensated"}
		n := 1 + g.r.IntN(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = sub()
		}
		return "ai." + ops[g.r.IntN(len(ops))] + "(" + strings.Join(parts, ", ") + ")"
	}
}

// expr is a Lua expression over ctx's fields.
func (g planGen) expr(depth int) string {
	if depth == 0 || g.r.IntN(3) == 0 {
		if g.r.IntN(3) == 0 {
			return g.num()
		}
		return "ctx." + planFields[g.r.IntN(len(planFields))]
	}
	switch g.r.IntN(8) {
	case 0:
		return "-(" + g.expr(depth-1) + ")"
	case 1: // the shape plans run without a call
		return fmt.Sprintf("(ctx.%s * (%s - ctx.%s))", planFields[g.r.IntN(len(planFields))], g.num(), planFields[g.r.IntN(len(planFields))])
	}
	ops := []string{"+", "-", "*", "/", "%", "^"}
	return "(" + g.expr(depth-1) + " " + ops[g.r.IntN(len(ops))] + " " + g.expr(depth-1) + ")"
}

// lua is a Lua scorer: mostly one expression (the plan runs it), sometimes
// a shape the plan hands back.
func (g planGen) lua(depth int) string {
	switch g.r.IntN(8) {
	case 0:
		return "function(ctx) local y = " + g.expr(depth) + " if y > 0 then return y end return 0 end"
	case 1:
		return "function(ctx) return ctx." + planFields[g.r.IntN(len(planFields))] + " end"
	}
	return "function(ctx) return " + g.expr(depth) + " end"
}

type boundT struct {
	X float64 `luar:"x"`
	Y float64 `luar:"y"`
}

// value is a context value of any type, edge numbers included.
func (g planGen) value(L *lua.LState) lua.LValue {
	switch g.r.IntN(15) {
	case 0:
		return lua.LNil
	case 6:
		return lua.LNumber(math.Copysign(0, -1))
	case 1:
		return lua.LBool(g.r.IntN(2) == 0)
	case 2:
		return lua.LString([]string{"10", "x", "0x10", " 2 "}[g.r.IntN(4)])
	case 3:
		return lua.LNumber(math.NaN())
	case 4:
		return lua.LNumber([]float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 1e308, 1 << 53}[g.r.IntN(5)])
	case 5:
		return L.NewTable()
	}
	return lua.LNumber(float64(g.r.IntN(21)-10) / 4)
}

func (g planGen) context(L *lua.LState) *lua.LTable {
	ctx := L.NewTable()
	for _, k := range []string{"a", "b", "c"} {
		ctx.RawSetString(k, g.value(L))
	}
	switch g.r.IntN(6) {
	case 0:
		ctx.RawSetString("t", luar.New(L, &boundT{X: 0.5, Y: 2}))
	case 1:
		ctx.RawSetString("t", g.value(L))
	default:
		t := L.NewTable()
		t.RawSetString("x", g.value(L))
		t.RawSetString("y", g.value(L))
		ctx.RawSetString("t", t)
	}
	if g.r.IntN(5) == 0 {
		mt := L.NewTable()
		mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LNumber(7)); return 1 }))
		ctx.Metatable = mt
	}
	return ctx
}

// A score plan gives every candidate it scores the score Score gives, bit
// for bit, and hands back every one Score would refuse or score NaN; run
// from each hand-back on, it covers the rest (host's scoreAll loop).
func TestScorePlanMatchesScore(t *testing.T) {
	g := planGen{r: rand.New(rand.NewPCG(1, 38))}
	planned, handed, luaWork := 0, 0, 0
	for trial := 0; trial < 300; trial++ {
		// A time budget (never reached) makes the VM count its work.
		vm := newNativeVMWith(t, luabind.Options{Budget: time.Hour})
		n := 1 + g.r.IntN(8)
		srcs := make([]string, n)
		for i := range srcs {
			if g.r.IntN(2) == 0 {
				srcs[i] = g.native(3)
			} else {
				srcs[i] = g.lua(3)
			}
		}
		vals, err := runLua(t, vm, "return "+strings.Join(srcs, ", "))
		require.NoError(t, err, srcs)
		scorers := make([]Scorer, n)
		for i, v := range vals {
			s, ok := toScorer(v)
			require.True(t, ok, srcs[i])
			scorers[i] = s
		}
		p := PlanScores(vm, scorers)
		for c := 0; c < 8; c++ {
			ctx := g.context(vm.L)
			got := make([]float64, n)
			var byPlan []bool
			var planWork uint64
			for i := 0; i < n; {
				if p != nil {
					w0 := vm.Work()
					j := p.Run(vm, ctx, got, i)
					planWork += vm.Work() - w0
					for ; i < j; i++ {
						byPlan = append(byPlan, true)
					}
					if i == n {
						break
					}
				}
				got[i], _ = scorers[i].Score(vm, ctx)
				byPlan = append(byPlan, false)
				i++
			}
			var callWork uint64 // the planned Lua scorers', called one by one
			for i, s := range scorers {
				w0 := vm.Work()
				want, err := s.Score(vm, ctx)
				if !byPlan[i] {
					handed++
					continue
				}
				if p.cands[i].lua != nil {
					callWork += vm.Work() - w0
					luaWork++
				}
				planned++
				require.NoError(t, err, "%s: the plan scored a call that raises", srcs[i])
				require.False(t, math.IsNaN(want), "%s: the plan scored a NaN", srcs[i])
				require.Equal(t, math.Float64bits(want), math.Float64bits(got[i]), "%s: %v against %v", srcs[i], got[i], want)
			}
			// The instructions the budget counts: the plan's runs count
			// what the calls of the Lua scorers it scored count.
			require.Equal(t, callWork, planWork, "%v: work counted", srcs)
		}
	}
	require.Greater(t, luaWork, 500, "Lua scorers planned")
	require.Greater(t, planned, 1000)
	require.Greater(t, handed, 100)
}

// Turning compiling off leaves Lua scorers to the VM: a plan with only
// Lua scorers is nil, and one made before hands them back.
func TestScorePlanCompilingOff(t *testing.T) {
	vm := newNativeVM(t)
	vals, err := runLua(t, vm, `return function(ctx) return ctx.a * 2 end, ai.field("a")`)
	require.NoError(t, err)
	lua0, _ := toScorer(vals[0])
	native, _ := toScorer(vals[1])
	p := PlanScores(vm, []Scorer{lua0, native})
	require.NotNil(t, p)
	ctx := vm.L.NewTable()
	ctx.RawSetString("a", lua.LNumber(3))
	scores := make([]float64, 2)
	require.Equal(t, 2, p.Run(vm, ctx, scores, 0))
	require.Equal(t, []float64{6, 3}, scores)
	vm.SetCompiled(false)
	require.Equal(t, 0, p.Run(vm, ctx, scores, 0))
	require.Equal(t, 2, p.Run(vm, ctx, scores, 1))
	require.Nil(t, PlanScores(vm, []Scorer{lua0}))
}
