package defs

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/luaai/luaai/internal/suggest"
	lua "github.com/yuin/gopher-lua"
)

// curveKind is one of the Infinite Axis Utility System's response curves
// (docs/lua-reference.md: Native conditions and scorers).
type curveKind uint8

const (
	curveLinear curveKind = iota
	curvePolynomial
	curveLogistic
	curveLogit
	curveNormal
	curveSine
	curveStep
)

var curveNames = [...]string{
	curveLinear:     "linear",
	curvePolynomial: "polynomial",
	curveLogistic:   "logistic",
	curveLogit:      "logit",
	curveNormal:     "normal",
	curveSine:       "sine",
	curveStep:       "step",
}

// CurveKinds lists the kinds of response curve, in their order.
func CurveKinds() []string { return curveNames[:] }

// curveKindList is the kinds as a message lists them: "linear, …, sine or
// step".
var curveKindList = strings.Join(curveNames[:len(curveNames)-1], ", ") + " or " + curveNames[len(curveNames)-1]

// curve is a response curve with its parameters, checked once at construction.
type curve struct {
	kind       curveKind
	m, k, b, c float64
}

// eval maps x (clamped to 0..1) through the curve; the result is clamped to
// 0..1 and NaN reads as 0.
func (cv *curve) eval(x float64) float64 {
	x = clamp01(x) - cv.c
	var y float64
	switch cv.kind {
	case curveLinear:
		y = cv.m*x + cv.b
	case curvePolynomial:
		y = cv.m*math.Pow(x, cv.k) + cv.b
	case curveLogistic:
		y = cv.m/(1+math.Exp(-10*cv.k*(x-0.5))) + cv.b
	case curveLogit:
		y = cv.m*math.Log(x/(1-x))/5 + 0.5 + cv.b
	case curveNormal:
		d := x - 0.5
		y = cv.m*math.Exp(-30*cv.k*d*d) + cv.b
	case curveSine:
		y = 0.5*cv.m*math.Sin(2*math.Pi*x) + 0.5 + cv.b
	case curveStep:
		if x < 0.5 {
			y = cv.b
		} else {
			y = cv.m + cv.b
		}
	}
	return clamp01(y)
}

// clamp01 clamps to 0..1; NaN reads as 0.
func clamp01(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

// checkCurve reads argument n as {kind=…, m=…, k=…, b=…, c=…}. A missing or
// unknown kind, a non-number parameter or an unknown field is an argument
// error, so a typo in a script is reported where it was made.
func checkCurve(L *lua.LState, n int) curve {
	t := L.CheckTable(n)
	cv := curve{m: 1, k: 1}
	kv := t.RawGetString("kind")
	ks, ok := kv.(lua.LString)
	if !ok {
		L.ArgError(n, "curve kind expected ("+curveKindList+"), got "+kv.Type().String())
	}
	found := false
	for i, name := range curveNames {
		if name == string(ks) {
			cv.kind, found = curveKind(i), true
			break
		}
	}
	if !found {
		hint := ""
		if best := suggest.Closest(string(ks), curveNames[:]); best != "" {
			hint = "did you mean " + strconv.Quote(best) + "? "
		}
		L.ArgError(n, "unknown curve kind "+strconv.Quote(string(ks))+" ("+hint+"want "+curveKindList+")")
	}
	for _, p := range []struct {
		name string
		dst  *float64
	}{{"m", &cv.m}, {"k", &cv.k}, {"b", &cv.b}, {"c", &cv.c}} {
		v := t.RawGetString(p.name)
		if v == lua.LNil {
			continue
		}
		num, ok := v.(lua.LNumber)
		if !ok {
			L.ArgError(n, "curve "+p.name+" must be a number, got "+v.Type().String())
		}
		*p.dst = float64(num)
	}
	t.ForEach(func(k, _ lua.LValue) {
		switch k {
		case lua.LString("kind"), lua.LString("m"), lua.LString("k"), lua.LString("b"), lua.LString("c"):
		default:
			L.ArgError(n, "unknown curve field "+lua.LVAsString(k)+" (want kind, m, k, b, c)")
		}
	})
	return cv
}

// describe writes the curve's kind and its parameters that differ from the
// defaults: "logistic, k=2" or, as Lua, {kind="logistic", k=2}.
func (cv *curve) describe(b *strings.Builder, luaSyntax bool) {
	if luaSyntax {
		b.WriteString(`{kind="`)
		b.WriteString(curveNames[cv.kind])
		b.WriteByte('"')
	} else {
		b.WriteString(curveNames[cv.kind])
	}
	for _, p := range []struct {
		name      string
		v, defval float64
	}{{"m", cv.m, 1}, {"k", cv.k, 1}, {"b", cv.b, 0}, {"c", cv.c, 0}} {
		if p.v == p.defval {
			continue
		}
		b.WriteString(", ")
		b.WriteString(p.name)
		b.WriteByte('=')
		b.WriteString(formatNumber(p.v))
	}
	if luaSyntax {
		b.WriteByte('}')
	}
}

// Curve is a response curve as ai.curve builds it, for tools that draw one
// (luaai curve).
type Curve struct{ cv curve }

// NewCurve makes the curve of the given kind and parameters, as
// ai.curve(x, {kind = kind, m = m, k = k, b = b, c = c}) does; an unknown
// kind is an error naming the known ones.
func NewCurve(kind string, m, k, b, c float64) (Curve, error) {
	for i, name := range curveNames {
		if name == kind {
			return Curve{curve{kind: curveKind(i), m: m, k: k, b: b, c: c}}, nil
		}
	}
	if best := suggest.Closest(kind, curveNames[:]); best != "" {
		return Curve{}, fmt.Errorf("unknown curve kind %q (did you mean %q? want %s)", kind, best, curveKindList)
	}
	return Curve{}, fmt.Errorf("unknown curve kind %q (want %s)", kind, curveKindList)
}

// Eval is the curve's score for x: x clamped to 0..1, the result clamped
// to 0..1, NaN as 0.
func (c Curve) Eval(x float64) float64 { return c.cv.eval(x) }

// String is the curve as traces show it: "logistic, k=2".
func (c Curve) String() string {
	var b strings.Builder
	c.cv.describe(&b, false)
	return b.String()
}

// CurveUse is a response curve inside a scorer, with the scorer that feeds
// it: what an inspector plots, the current input marked.
type CurveUse struct {
	Curve Curve
	Input Scorer
	// Native reports that Input runs no Lua (fields, numbers and native
	// combinators of them), so a tool may score it outside a tick without
	// running script code.
	Native bool
}

// CurvesIn lists the curves of s and of its sub-scorers, outermost first.
func CurvesIn(s Scorer) []CurveUse {
	var out []CurveUse
	var walk func(s Scorer)
	walk = func(s Scorer) {
		if c, ok := s.(*curveScore); ok {
			out = append(out, CurveUse{Curve: Curve{c.cv}, Input: c.s, Native: runsNoLua(c.s)})
		}
		for _, sub := range subScorers(s) {
			walk(sub)
		}
	}
	walk(s)
	return out
}

// subScorers are the scorers a native scorer combines.
func subScorers(s Scorer) []Scorer {
	n, ok := s.(native)
	if !ok {
		return nil
	}
	var out []Scorer
	for _, c := range n.contains() {
		if sc, ok := c.(Scorer); ok {
			out = append(out, sc)
		}
	}
	return out
}

// runsNoLua: s is a native made of natives only (numbers, fields,
// combinators and native conditions), down to its leaves.
func runsNoLua(v any) bool {
	n, ok := v.(native)
	if !ok {
		return false
	}
	for _, c := range n.contains() {
		if !runsNoLua(c) {
			return false
		}
	}
	return true
}
