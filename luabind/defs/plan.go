package defs

import (
	"math"
	"math/bits"
	"slices"

	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/internal/lcomp"
	lua "github.com/yuin/gopher-lua"
)

// Score plans: a utility decision scores every candidate on the same
// context. Pure scorers — natives that only read fields and compute
// (ai.field, ai.const, ai.inverse, ai.product and the other lists,
// ai.weight, ai.normalize, ai.curve) and Lua scorers the compiled path runs
// as one expression over numbers — cannot change the context, so between
// two of them nothing can: the decision reads each distinct field once,
// and each scorer runs over those values as a fused Go closure, with the
// same float operations in the same order as its Score. A scorer that
// could differ from its Score on the values read (a Lua scorer meeting a
// field that is not a number, a native reading through bound Go data, a
// NaN score to report) is handed back to the caller, which calls it as
// before; the next run of the plan reads the fields again.

// ScorePlan is a utility machine's candidates' scorers, run over shared
// reads of the context (see PlanScores). A plan belongs to one VM and is
// not safe for concurrent use.
type ScorePlan struct {
	vm    *VM
	paths [][]string // the fields, by slot (nil: a constant's)
	// keys: by slot, a field's key when its path has one ("" otherwise).
	keys   [lcomp.MaxFields]string
	consts map[uint64]int // the constants' slots, by their bits
	cands  []planCand
	v      lcomp.Fields
	// after: by candidate, the fields it and the pure candidates after it
	// up to the next other one read, which a run from it reads first.
	after []uint64
	// luaSteps: by candidate, the most instructions its Lua scorers and
	// those of the pure candidates after it, up to the next other one, run.
	luaSteps []int
	// natives: by candidate, whether it and every one after it is a
	// native the plan runs (no Lua scorer, none the caller scores).
	natives []bool
	// luas: by candidate, whether it and every one after it is a Lua
	// scorer the plan runs (no native, none the caller scores).
	luas []bool
	// num and bad: per field read this run, whether it holds a number, or
	// was reached through bound Go data (userdata).
	num, bad uint64
}

// planCand is one candidate's scorer: eval over the fields in reads (nil:
// the caller scores it), form how eval computes (Run computes the forms
// it knows itself, without a call), and its compiled Lua function, if it
// is one.
type planCand struct {
	eval  lcomp.FieldFn
	form  lcomp.Form
	kern  kernel // form, where Run computes it in its loop
	reads uint64
	lua   *luabind.FieldNumber
}

// PlanScores is the plan of a utility machine whose candidates score with
// scorers, in order (a nil scorer scores 0), run in vm; nil when no
// candidate's scorer is pure.
func PlanScores(vm *VM, scorers []Scorer) *ScorePlan {
	p := &ScorePlan{vm: vm, cands: make([]planCand, len(scorers))}
	any := false
	for i, s := range scorers {
		b := planBuilder{p: p}
		c := &p.cands[i]
		if ls, ok := s.(LuaScorer); ok {
			if f := vm.CompileFieldNumber(ls.Fn, &b); f != nil {
				*c = planCand{eval: f.Eval, form: f.Form, kern: kernelOf(f.Form), reads: f.Reads, lua: f}
			}
		} else if x, ok := b.native(s); ok {
			*c = planCand{eval: x.Func(), form: x.Form(), kern: kernelOf(x.Form()), reads: b.reads}
		}
		any = any || c.eval != nil
	}
	if !any {
		return nil
	}
	p.after = make([]uint64, len(p.cands)+1)
	p.luaSteps = make([]int, len(p.cands)+1)
	p.natives = make([]bool, len(p.cands)+1)
	p.natives[len(p.cands)] = true
	p.luas = make([]bool, len(p.cands)+1)
	p.luas[len(p.cands)] = true
	for i := len(p.cands) - 1; i >= 0; i-- {
		if c := &p.cands[i]; c.eval != nil {
			p.natives[i] = c.lua == nil && p.natives[i+1]
			p.luas[i] = c.lua != nil && p.luas[i+1]
			p.after[i] = c.reads | p.after[i+1]
			p.luaSteps[i] = p.luaSteps[i+1]
			if c.lua != nil {
				p.luaSteps[i] += c.lua.MaxSteps
			}
		}
	}
	return p
}

// Run scores the candidates from from on into scores, while they are
// pure and their scores stand, and returns the first it did not score
// (len(scores) when none is left): the caller scores that one itself, and
// may run the plan again after it. It reads the context's fields afresh.
func (p *ScorePlan) Run(vm *VM, ctx *lua.LTable, scores []float64, from int) int {
	return p.run(vm, ctx, nil, scores, from)
}

// run is Run, reading the fields r remembers from where it remembers them
// (r nil: none).
func (p *ScorePlan) run(vm *VM, ctx *lua.LTable, r *Reads, scores []float64, from int) int {
	if vm != p.vm || ctx == nil || len(scores) != len(p.cands) {
		return from
	}
	p.num, p.bad = 0, 0
	p.load(ctx, r, p.after[from])
	// The budget's checks, once for the Lua scorers up to the next
	// candidate the caller scores (for each, where that is refused).
	if p.bad == 0 && p.natives[from] {
		// Natives only, none reading through bound Go data: a score
		// stands unless it is NaN.
		return p.runPure(vm, scores, from, false)
	}
	batch := p.luaSteps[from] > 0 && vm.TakeFieldNumbers(p.luaSteps[from])
	if batch && p.luas[from] && p.after[from]&p.num == p.after[from] {
		return p.runPure(vm, scores, from, true)
	}
	for i := from; i < len(p.cands); i++ {
		c := &p.cands[i]
		if c.eval == nil {
			return i
		}
		if c.lua != nil {
			if c.reads&p.num != c.reads {
				return i // a field the VM would convert, or raise on
			}
		} else if c.reads&p.bad != 0 {
			return i // bound Go data on the way
		}
		var x float64
		switch f := &c.form; c.kern {
		case kernTimesMinus:
			x = p.v[f.A&slotMask] * (p.v[f.B&slotMask] - p.v[f.C&slotMask])
		case kernMulSub:
			x = mulSub(p.v[f.A&slotMask], p.v[f.B&slotMask], p.v[f.C&slotMask])
		default:
			x = p.eval(c)
		}
		if x != x {
			return i // NaN: the caller reports it
		}
		if c.lua != nil {
			if batch {
				vm.ChargeFieldNumber(c.lua)
			} else if !vm.TakeFieldNumber(c.lua) {
				return i
			}
		}
		scores[i] = x
	}
	return len(p.cands)
}

// runPure is run's loop for candidates of one kind from from on: natives
// only, none reading through bound Go data, or (lua) Lua scorers only,
// every field they read a number and their instructions taken
// (TakeFieldNumbers). Each is scored, and a Lua scorer charged, as the
// general loop does, without its checks per candidate.
func (p *ScorePlan) runPure(vm *VM, scores []float64, from int, lua bool) int {
	cands := p.cands[from:]
	out := scores[from:]
	out = out[:len(cands)]
	for i := range cands {
		c := &cands[i]
		var x float64
		switch f := &c.form; c.kern {
		case kernTimesMinus:
			x = p.v[f.A&slotMask] * (p.v[f.B&slotMask] - p.v[f.C&slotMask])
		case kernMulSub:
			x = mulSub(p.v[f.A&slotMask], p.v[f.B&slotMask], p.v[f.C&slotMask])
		default:
			x = p.eval(c)
		}
		if x != x {
			return from + i // NaN: the caller reports it
		}
		if lua {
			vm.ChargeFieldNumber(c.lua)
		}
		out[i] = x
	}
	return len(p.cands)
}

// kernel is a form most scorers have, which Run computes in its loop: a
// product of a field and the inverse of another (a * (b - c)), as a
// native computes it (kernTimesMinus) or as Lua does (kernMulSub).
type kernel uint8

const (
	kernNone kernel = iota
	kernTimesMinus
	kernMulSub
)

// kernelOf is f's kernel (kernNone for another form).
func kernelOf(f lcomp.Form) kernel {
	switch {
	case f.Kind != lcomp.FormLeft:
		return kernNone
	case f.Op == lcomp.OpTimes && f.Op2 == lcomp.OpMinus:
		return kernTimesMinus
	case f.Op == lcomp.OpMul && f.Op2 == lcomp.OpSub:
		return kernMulSub
	}
	return kernNone
}

// slotMask keeps a slot below MaxFields, which every slot is, without a
// bounds check.
const slotMask = lcomp.MaxFields - 1

// mulSub is a * (b - c) with Lua's arithmetic (a zero result is +0, as
// gopher-lua boxes it).
func mulSub(a, b, c float64) float64 {
	r := b - c
	if r == 0 {
		r = 0
	}
	if r = a * r; r == 0 {
		r = 0
	}
	return r
}

// eval is c's score over the values read: its form computed without a
// call where it has one, else through its closure.
func (p *ScorePlan) eval(c *planCand) float64 {
	f := &c.form
	switch f.Kind {
	case lcomp.FormLeft:
		return f.Op.Apply(p.v[f.A&slotMask], f.Op2.Apply(p.v[f.B&slotMask], p.v[f.C&slotMask]))
	case lcomp.FormFunc:
		return c.eval(&p.v)
	}
	return f.Eval(&p.v)
}

// load reads the fields in need, raw: through tables, as ai.field and the
// compiled path read them. A value is as ai.field scores it (a number, 1
// for true, else 0); num marks the numbers, which are the Lua scorers'
// values too (the compiled path needs a table at each step, and a number
// at the end); bad marks a path through userdata (ai.field reads bound Go
// data there, or calls __index), where the plan hands the call back.
func (p *ScorePlan) load(ctx *lua.LTable, r *Reads, need uint64) {
	if r != nil {
		need = p.remembered(ctx, r, need)
	}
	for need != 0 {
		i := bits.TrailingZeros64(need)
		need &= need - 1
		var x lua.LValue
		if k := p.keys[i]; k != "" {
			x = ctx.RawGetString(k)
		} else {
			x = walk(ctx, p.paths[i], &p.bad, i)
		}
		p.set(i, x)
	}
}

// set is field i's value x, read: as ai.field scores it, and whether it is
// a number.
func (p *ScorePlan) set(i int, x lua.LValue) {
	v, num := fieldValue(x)
	p.v[i&slotMask] = v
	if num {
		p.num |= 1 << i
	}
}

// fieldValue is x as ai.field scores it (a number, 1 for true, else 0),
// and whether it is a number.
func fieldValue(x lua.LValue) (float64, bool) {
	switch x := x.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LBool:
		if x {
			return 1, false
		}
	}
	return 0, false
}

// walk reads a dotted path raw from ctx; through userdata it marks slot i
// bad and reads nil.
func walk(ctx *lua.LTable, path []string, bad *uint64, i int) lua.LValue {
	var x lua.LValue = ctx
	for _, k := range path {
		switch t := x.(type) {
		case *lua.LTable:
			x = t.RawGetString(k)
		case *lua.LUserData:
			*bad |= 1 << i
			return lua.LNil
		default:
			return lua.LNil
		}
	}
	return x
}

// planBuilder gives fields and constants their slots in p and collects
// the fields a native reads.
type planBuilder struct {
	p     *ScorePlan
	reads uint64
}

// Field is path's slot.
func (b *planBuilder) Field(path []string) (int, bool) {
	i := slices.IndexFunc(b.p.paths, func(q []string) bool { return q != nil && slices.Equal(q, path) })
	if i < 0 {
		if len(b.p.paths) >= lcomp.MaxFields {
			return 0, false
		}
		i = len(b.p.paths)
		b.p.paths = append(b.p.paths, append([]string{}, path...))
		if len(path) == 1 && path[0] != "" {
			b.p.keys[i] = path[0]
		}
	}
	b.reads |= 1 << i
	return i, true
}

// Const is k's slot, which holds it from now on.
func (b *planBuilder) Const(k float64) (int, bool) {
	key := math.Float64bits(k)
	if i, ok := b.p.consts[key]; ok {
		return i, true
	}
	if len(b.p.paths) >= lcomp.MaxFields {
		return 0, false
	}
	i := len(b.p.paths)
	b.p.paths = append(b.p.paths, nil)
	b.p.v[i] = k
	if b.p.consts == nil {
		b.p.consts = map[uint64]int{}
	}
	b.p.consts[key] = i
	return i, true
}

// native is a pure native scorer as an operand over the plan's slots: the
// same operations as its Score, fused into closures.
//
// It is long because it is one case per native scorer.
func (b *planBuilder) native(s Scorer) (lcomp.Operand, bool) {
	konst := func(k float64) (lcomp.Operand, bool) {
		i, ok := b.Const(k)
		return lcomp.Operand{Slot: i}, ok
	}
	switch s := s.(type) {
	case nil:
		return konst(0)
	case ConstScorer:
		return konst(float64(s))
	case *constScore:
		return konst(s.v)
	case *fieldScore:
		i, ok := b.Field(s.path.keys)
		return lcomp.Operand{Slot: i}, ok
	case *inverseScore:
		one, ok1 := konst(1)
		x, ok := b.native(s.s)
		return lcomp.Binary(lcomp.OpMinus, one, x), ok && ok1
	case *weightScore:
		x, ok := b.native(s.s)
		w, okw := konst(s.w)
		return lcomp.Binary(lcomp.OpTimes, x, w), ok && okw
	case *normalizeScore:
		x, ok := b.native(s.s)
		return lcomp.Unary(x, s.apply), ok
	case *curveScore:
		x, ok := b.native(s.s)
		return lcomp.Unary(x, s.cv.eval), ok
	case *listScore:
		return b.list(s)
	}
	return lcomp.Operand{}, false
}

// list is a list scorer as native gives it: a product of two as x * y
// (step folds 1 * x * y), the others folded by step.
func (b *planBuilder) list(s *listScore) (lcomp.Operand, bool) {
	xs := make([]lcomp.Operand, len(s.ss))
	for i, sub := range s.ss {
		var ok bool
		if xs[i], ok = b.native(sub); !ok {
			return xs[i], false
		}
	}
	if s.op == opProduct && len(xs) == 2 {
		// 1 * x is x, bit for bit, but for a NaN's payload: a NaN
		// score is handed back to the caller, which reports it.
		return lcomp.Binary(lcomp.OpTimes, xs[0], xs[1]), true
	}
	fs := make([]lcomp.FieldFn, len(xs))
	for i, x := range xs {
		fs[i] = x.Func()
	}
	return lcomp.Operand{Fn: func(v *lcomp.Fields) float64 {
		var acc float64
		for i, f := range fs {
			acc = s.step(acc, f(v), i)
		}
		return acc
	}}, true
}
