package defs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/strmap"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// A run with remembered reads gives what a run without them gives, bit
// for bit, the same candidates handed back, while the contexts change
// under it between runs: fields set, removed and put back, keys added
// until the map grows (into a table, past what Reads remembers, past one
// table), the whole map emptied, contexts swapped, and another plan (of
// other fields in other slots) run with the same Reads.
func TestRunReadsMatchesRun(t *testing.T) {
	vm := newNativeVM(t)
	const nf = 20 // fields: more than a Reads remembers
	var srcs []string
	for i := 0; i < nf; i += 2 {
		srcs = append(srcs,
			fmt.Sprintf(`ai.product(ai.field("f%d"), ai.inverse(ai.field("f%d")))`, i, i+1),
			fmt.Sprintf(`function(ctx) return ctx.f%d * (1 - ctx.f%d) end`, i+1, (i+5)%nf))
	}
	vals, err := runLua(t, vm, "return "+strings.Join(srcs, ", "))
	require.NoError(t, err)
	scorers := make([]Scorer, len(vals))
	for i, v := range vals {
		var ok bool
		scorers[i], ok = toScorer(v)
		require.True(t, ok, srcs[i])
	}
	p := PlanScores(vm, scorers)
	require.NotNil(t, p)
	rev := slices.Clone(scorers)
	slices.Reverse(rev)
	plans := []*ScorePlan{p, PlanScores(vm, rev[:7])}

	r := rand.New(rand.NewPCG(3, 38))
	value := func() lua.LValue {
		switch r.IntN(10) {
		case 0:
			return lua.LNil
		case 1:
			return lua.LString("2")
		case 2:
			return lua.LBool(r.IntN(2) == 0)
		case 3:
			return lua.LNumber(math.Copysign(0, -1))
		}
		return lua.LNumber(float64(r.IntN(9)) / 4)
	}
	newCtx := func() *lua.LTable {
		ctx := vm.L.NewTable()
		for i := range 1 + r.IntN(nf) {
			ctx.RawSetString(fmt.Sprint("f", i), value())
		}
		return ctx
	}
	ctxs := []*lua.LTable{newCtx(), newCtx()}
	var reads Reads
	extra, remembered, large := 0, 0, 0
	for step := 0; step < 4000; step++ {
		ctx := ctxs[r.IntN(len(ctxs))]
		switch op := r.IntN(20); {
		case op < 12: // a field set, removed or put back
			ctx.RawSetString(fmt.Sprint("f", r.IntN(nf)), value())
		case op < 16: // the map grows
			for range 1 + r.IntN(40) {
				ctx.RawSetString(fmt.Sprint("x", extra), lua.LNumber(extra))
				extra++
			}
		case op < 17: // every key removed, some put back
			ctx.ForEach(func(k, _ lua.LValue) { ctx.RawSetH(k, lua.LNil) })
			for i := range r.IntN(nf) {
				ctx.RawSetString(fmt.Sprint("f", i), value())
			}
		case op < 18:
			ctxs[r.IntN(len(ctxs))] = newCtx()
		}
		p := plans[min(r.IntN(10), 1)]
		want := make([]float64, len(p.cands))
		got := make([]float64, len(p.cands))
		for from := 0; from < len(p.cands); from++ {
			wi := p.Run(vm, ctx, want, from)
			gi := p.RunReads(vm, ctx, &reads, got, from)
			require.Equal(t, wi, gi, "step %d: handed back", step)
			for i := from; i < wi; i++ {
				require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "step %d: candidate %d: %v against %v", step, i, got[i], want[i])
			}
			from = wi
		}
		if reads.have != 0 {
			remembered++
		}
		// The hints name where the run just read, the context's table
		// and slots as they are now, or nothing (a map too large).
		tab, g, groups := strmap.Table(strmap.Of(ctx))
		htab, hg, size := reads.Hint()
		if groups > maxReadGroups {
			large++
			require.True(t, hg == nil && size == 0, "step %d: hints for a map too large", step)
		} else if hg != nil {

			require.True(t, hg == g && htab == tab, "step %d: hinted slots", step)
			require.Equal(t, groups*int(strmap.GroupSize), size, "step %d: hinted size", step)
		}
	}
	require.Greater(t, large, 100, "runs on maps too large to remember")
	require.Greater(t, remembered, 1000, "runs with remembered fields")
}
