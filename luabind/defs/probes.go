package defs

import (
	"math"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// NativeProbes lists, for each context field a native condition or
// scorer reads, the values worth writing into it to make the native
// decide otherwise: true and false for ai.is, the constant of ai.eq and
// ai.ne (and the other flag when it is one), a number compared by
// ai.lt/le/gt/ge and its neighbours, and for a scorer the inputs that
// sweep its curves and normalized ranges across 0..1. Field is the dotted
// path as written; a field may come several times, in no promised order.
func NativeProbes(v any) []Comparison {
	var out []Comparison
	add := func(f *fieldPath, vs ...lua.LValue) {
		for _, x := range vs {
			if n, ok := x.(lua.LNumber); ok && (math.IsNaN(float64(n)) || math.IsInf(float64(n), 0)) {
				continue
			}
			out = append(out, Comparison{Field: f.name, Value: x})
		}
	}
	var walk func(v any, targets []float64, depth int)
	walk = func(v any, targets []float64, depth int) {
		if depth > 64 || len(out) > 4096 {
			return
		}
		switch n := v.(type) {
		case *isCond:
			add(&n.path, lua.LTrue, lua.LFalse)
		case *eqCond:
			add(&n.path, n.value)
			if b, ok := n.value.(lua.LBool); ok {
				add(&n.path, !b)
			}
		case *numCond:
			for _, d := range []float64{0, -1, 1, -0.01, 0.01} {
				add(&n.path, lua.LNumber(n.n+d))
			}
		case *fieldScore:
			for _, t := range targets {
				add(&n.path, lua.LNumber(t))
			}
		case *curveScore:
			walk(n.s, curveInputs(&n.cv), depth+1)
		case *normalizeScore:
			in := []float64{n.lo, n.hi, n.lo - 1, n.hi + 1}
			for _, t := range targets {
				in = append(in, n.lo+t*(n.hi-n.lo))
			}
			walk(n.s, in, depth+1)
		case *inverseScore:
			in := make([]float64, len(targets))
			for i, t := range targets {
				in[i] = 1 - t
			}
			walk(n.s, in, depth+1)
		case *weightScore:
			in := slices.Clone(targets)
			if n.w != 0 {
				for i := range in {
					in[i] /= n.w
				}
			}
			walk(n.s, in, depth+1)
		default:
			if nv, ok := v.(native); ok {
				for _, sub := range nv.contains() {
					walk(sub, targets, depth+1)
				}
			}
		}
	}
	walk(v, scoreSweep, 0)
	return out
}

// scoreSweep is the scores a scorer's input is tried at: 0..1 in tenths.
var scoreSweep = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}

// curveInputs are the inputs that sweep a curve: 0..1 in twentieths, and
// its shift c with its middle (where step, logistic and normal turn).
func curveInputs(cv *curve) []float64 {
	out := make([]float64, 0, 26)
	for i := range 21 {
		out = append(out, float64(i)/20)
	}
	return append(out, cv.c, cv.c+0.5, cv.c+0.49, cv.c+0.51)
}
