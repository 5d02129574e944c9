package host

// Utility machines (docs/lua-reference.md: Utility machines): every child scored, the
// winner made active (momentum, lock, random_top), each decision traced
// where decisions are watched, and shown with the curves' inputs
// (hosttool.View).

import (
	"errors"
	"fmt"
	"math"

	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// decideUtility scores every child of utility machine n and switches to the
// winner.
func (a *Agent) decideUtility(n *place) {
	m := &a.ms[n.mid]
	active := -1
	if len(m.stack) > 0 {
		active = m.stack[len(m.stack)-1]
	}
	scores := a.scores[:len(n.children)]
	a.scoreAll(n, scores, active)
	if active >= 0 {
		scores[active] += n.def.Momentum
	}
	winner, kept := -1, false
	if active >= 0 && a.locked(n.children[active]) {
		winner, kept = active, true
	} else if n.def.RandomTop > 0 {
		winner = a.randomTop(scores, n.def.RandomTop, active)
	} else {
		winner = best(scores, active)
	}
	if a.tracesDecisions() {
		a.reportDecision(n, scores, winner, kept)
	}
	if winner == active || winner < 0 {
		return
	}
	var from *place
	if active >= 0 {
		from = n.children[active]
		a.exit(from)
		m.stack = m.stack[:0]
	}
	m.stack = append(m.stack, winner)
	to := n.children[winner]
	if a.w.cov != nil {
		a.cover(link.CoverChoice, to.id, -1)
	}
	a.emit(TransitionSelect, from, to)
	a.enter(to, lua.LNil)
}

// scoreAll scores utility machine n's children into scores: the pure
// scorers through the machine's score plan (each field read once for all
// of them), the others, and any the plan hands back, one by one (score).
// The plan is not used where the scores are profiled or traced.
func (a *Agent) scoreAll(n *place, scores []float64, active int) {
	p := n.plan
	if !n.planned {
		n.planned = true
		ss := make([]defs.Scorer, len(n.children))
		for i, c := range n.children {
			ss[i] = c.def.Score
		}
		n.plan = defs.PlanScores(a.w.vm, ss)
		p = n.plan
	}
	if p == nil || a.w.prof != nil || a.tracesDecisions() {
		p = nil
	}
	var r *defs.Reads
	if p != nil {
		if r = a.ms[n.mid].reads; r == nil {
			// Records made without them (spawns, loads and reloads
			// take them from the records' pool): made at the first
			// planned decision; what they remember is checked against
			// the plan anyway.
			r = new(defs.Reads)
			a.ms[n.mid].reads = r
		}
	}
	for i := 0; i < len(scores); i++ {
		if p != nil {
			if i = p.RunReads(a.w.vm, a.ctx, r, scores, i); i == len(scores) {
				return
			}
		}
		scores[i] = a.score(n.children[i], i == active)
	}
}

// best is the highest score; the active child keeps a tie, else the first
// (smallest) name wins.
func best(scores []float64, active int) int {
	if len(scores) == 0 {
		return -1
	}
	w, top := 0, scores[0]
	for i := 1; i < len(scores); i++ {
		if s := scores[i]; s > top || s == top && i == active {
			w, top = i, s
		}
	}
	return w
}

// randomTop draws among the n best positive scores, weighted by score, with
// the agent's RNG; without a positive score it falls back to the best.
func (a *Agent) randomTop(scores []float64, n, active int) int {
	idx := a.order[:0]
	for i, s := range scores {
		if s > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return best(scores, active)
	}
	// Insertion sort, stable (ties keep name order) and allocation-free.
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && scores[idx[j]] > scores[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	a.order = idx
	if len(idx) > n {
		idx = idx[:n]
	}
	total := 0.0
	for _, i := range idx {
		total += scores[i]
	}
	r := a.rng.Float64() * total
	for _, i := range idx {
		r -= scores[i]
		if r < 0 {
			return i
		}
	}
	return idx[len(idx)-1]
}

func (a *Agent) reportDecision(n *place, scores []float64, winner int, kept bool) {
	d := Decision{Agent: a.id, Tick: a.ticks, Machine: n.path, Kept: kept, Candidates: make([]Candidate, len(scores))}
	for i, c := range n.children {
		d.Candidates[i] = Candidate{State: c.path, Score: scores[i]}
		if i < len(a.parts) {
			d.Candidates[i].Parts, a.parts[i] = a.parts[i], nil
		}
	}
	if winner >= 0 {
		d.Winner = n.children[winner].path
	}
	if a.watch || a.followers > 0 {
		if a.decisions == nil {
			a.decisions = map[string]Decision{}
		}
		a.decisions[n.path] = d
	}
	if a.h.opts.OnDecision != nil && (a.watch || !a.h.opts.DecisionsOptIn) {
		a.w.records = append(a.w.records, record{kind: recDecision, dec: d})
	}
}

// score is candidate n's score, its scorer run as the callback "score" (a
// candidate that is not active sees ai.time() as 0); an error or NaN is
// reported and scores 0.
func (a *Agent) score(n *place, active bool) float64 {
	if n.def.Score == nil {
		return 0
	}
	pn, pk, ps := a.setCur(n, cbScore)
	a.curScore = !active
	var s float64
	var err error
	if a.w.prof == nil {
		s, err = n.def.Score.Score(a.w.vm, a.ctx)
	} else {
		s, err = a.scoreProfiled(n.def.Score)
	}
	if a.tracesDecisions() {
		// The parts of a native scorer, for the "why" trace, evaluated as
		// the candidate (ai.time() and friends see it).
		if p, ok := n.def.Score.(interface {
			Parts(*defs.VM, *lua.LTable) []defs.Part
		}); ok {
			if len(a.parts) < a.t.maxKids {
				a.parts = make([][]Part, a.t.maxKids)
			}
			parts := p.Parts(a.w.vm, a.ctx)
			hp := make([]Part, len(parts))
			for i, x := range parts {
				hp[i] = Part{Name: x.Name, Value: x.Value}
			}
			a.parts[n.index] = hp
		}
	}
	a.cur, a.curKind, a.curScore = pn, pk, ps
	if err == nil && math.IsNaN(s) {
		err = fmt.Errorf("score is %v: %w", s, scripterr.ErrNotANumber)
	}
	if err != nil && errors.Is(err, scripterr.ErrNotANumber) {
		// Not a Lua error: point at the scoring function, if it is one.
		if ls, ok := n.def.Score.(defs.LuaScorer); ok && ls.Fn.Proto != nil {
			err = fmt.Errorf("%s:%d: %w", ls.Fn.Proto.SourceName, ls.Fn.Proto.LineDefined, err)
		}
	}
	if err != nil {
		a.report(n, CallbackScore, err)
		return 0
	}
	return s
}

// decisionView adds utility machine n's last decision and the inputs of
// its candidates' native curves (those that run no Lua).
func (a *Agent) decisionView(n *place, v *link.AgentView) {
	if n.def.Kind != defs.KindUtility {
		return
	}
	if d, ok := a.decisions[n.path]; ok {
		v.Decisions = append(v.Decisions, link.DecisionView{Decision: d, Momentum: n.def.Momentum})
	}
	for _, c := range n.children {
		if c.def.Score == nil {
			continue
		}
		for i, u := range defs.CurvesIn(c.def.Score) {
			if !u.Native {
				continue
			}
			x, err := u.Input.Score(a.w.vm, a.ctx)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			v.Inputs = append(v.Inputs, link.CurveInput{State: c.path, Curve: i, X: x})
		}
	}
}
