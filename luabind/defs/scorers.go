package defs

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

type constScore struct{ v float64 }

func (s *constScore) Score(*VM, *lua.LTable) (float64, error) { return s.v, nil }
func (s *constScore) Parts(*VM, *lua.LTable) []Part           { return nil }

// fieldScore is ai.field: a number as is, true 1, anything else 0.
type fieldScore struct{ path fieldPath }

func (s *fieldScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	if f, ok := s.path.boundNumber(vm, ctx); ok {
		return f, nil
	}
	v, err := s.path.get(vm, ctx)
	if err != nil {
		return 0, err
	}
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), nil
	case lua.LBool:
		if v {
			return 1, nil
		}
	}
	return 0, nil
}

func (s *fieldScore) Parts(*VM, *lua.LTable) []Part { return nil }

// condScore is ai.cond: 1 when the condition holds, else 0. A Lua function
// inside gets (ctx, nil). implicit marks a native condition given where a
// scorer was expected, which describes itself as just the condition.
type condScore struct {
	c        Cond
	implicit bool
}

func (s *condScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	ok, err := s.c.Test(vm, ctx, lua.LNil)
	if err != nil || !ok {
		return 0, err
	}
	return 1, nil
}

func (s *condScore) Parts(vm *VM, ctx *lua.LTable) []Part {
	v, _ := s.Score(vm, ctx)
	return []Part{{Name: condName(s.c), Value: v}}
}

type inverseScore struct{ s Scorer }

func (s *inverseScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	v, err := s.s.Score(vm, ctx)
	if err != nil {
		return 0, err
	}
	return 1 - v, nil
}

func (s *inverseScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.s) }

type listOp uint8

const (
	opProduct listOp = iota
	opSum
	opMin
	opMax
	opCompensated
)

var listNames = [...]string{opProduct: "product", opSum: "sum", opMin: "min", opMax: "max", opCompensated: "compensated"}

// listScore is ai.product/sum/min/max/compensated. Every factor is scored,
// in order, so an erroring Lua function is always reported.
type listScore struct {
	op  listOp
	ss  []Scorer
	mod float64 // compensated: 1 - 1/n
}

func (s *listScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	var acc float64
	for i, sub := range s.ss {
		v, err := sub.Score(vm, ctx)
		if err != nil {
			return 0, err
		}
		acc = s.step(acc, v, i)
	}
	return acc, nil
}

// step folds factor i, v, into acc (the score plan folds the same way).
func (s *listScore) step(acc, v float64, i int) float64 {
	if i == 0 {
		switch s.op {
		case opSum, opMin, opMax:
			return v
		}
		acc = 1
	}
	switch s.op {
	case opProduct:
		acc *= v
	case opSum:
		acc += v
	case opMin:
		acc = nanMin(acc, v)
	case opMax:
		acc = nanMax(acc, v)
	case opCompensated:
		acc *= v + (1-v)*s.mod*v
	}
	return acc
}

func (s *listScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.ss...) }

type weightScore struct {
	s Scorer
	w float64
}

func (s *weightScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	v, err := s.s.Score(vm, ctx)
	if err != nil {
		return 0, err
	}
	return v * s.w, nil
}

func (s *weightScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.s) }

// normalizeScore maps lo..hi to 0..1, clamped; with lo == hi it is a step at hi.
type normalizeScore struct {
	s      Scorer
	lo, hi float64
}

func (s *normalizeScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	v, err := s.s.Score(vm, ctx)
	if err != nil {
		return 0, err
	}
	return s.apply(v), nil
}

// apply maps v (the score plan maps the same way).
func (s *normalizeScore) apply(v float64) float64 {
	if s.lo == s.hi {
		if v >= s.hi {
			return 1
		}
		return 0
	}
	return clamp01((v - s.lo) / (s.hi - s.lo))
}

func (s *normalizeScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.s) }

type curveScore struct {
	s  Scorer
	cv curve
}

func (s *curveScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	v, err := s.s.Score(vm, ctx)
	if err != nil {
		return 0, err
	}
	return s.cv.eval(v), nil
}

func (s *curveScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.s) }

// parts scores each sub-scorer for a trace; an erroring one reads 0.
func parts(vm *VM, ctx *lua.LTable, ss ...Scorer) []Part {
	out := make([]Part, len(ss))
	for i, sub := range ss {
		v, err := sub.Score(vm, ctx)
		if err != nil {
			v = 0
		}
		out[i] = Part{Name: scorerName(sub), Value: v}
	}
	return out
}

// nanMin and nanMax are math.Min and math.Max with NaN winning over
// everything, infinities included (Go's check infinities first: math.Max(NaN,
// +Inf) is +Inf), so a NaN anywhere makes the combinator's score NaN.
func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

// What each native scorer reads and combines (the native interface).

func (s *constScore) field() *fieldPath     { return nil }
func (s *constScore) contains() []any       { return nil }
func (s *fieldScore) field() *fieldPath     { return &s.path }
func (s *fieldScore) contains() []any       { return nil }
func (s *condScore) field() *fieldPath      { return nil }
func (s *condScore) contains() []any        { return []any{s.c} }
func (s *inverseScore) field() *fieldPath   { return nil }
func (s *inverseScore) contains() []any     { return []any{s.s} }
func (s *listScore) field() *fieldPath      { return nil }
func (s *weightScore) field() *fieldPath    { return nil }
func (s *weightScore) contains() []any      { return []any{s.s} }
func (s *normalizeScore) field() *fieldPath { return nil }
func (s *normalizeScore) contains() []any   { return []any{s.s} }
func (s *curveScore) field() *fieldPath     { return nil }
func (s *curveScore) contains() []any       { return []any{s.s} }

func (s *listScore) contains() []any {
	out := make([]any, len(s.ss))
	for i, x := range s.ss {
		out[i] = x
	}
	return out
}
