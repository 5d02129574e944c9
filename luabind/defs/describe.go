package defs

import (
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// NativeFields lists the context fields a native condition or scorer reads
// (dotted paths as written: "target.distance"), sorted, each once. Lua
// functions, constants and anything else contribute nothing: what a Lua
// function reads cannot be known without running it.
func NativeFields(v any) []string {
	set := map[string]bool{}
	collectFields(v, set)
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func collectFields(v any, set map[string]bool) {
	n, ok := v.(native)
	if !ok {
		return
	}
	if f := n.field(); f != nil {
		set[f.name] = true
	}
	for _, c := range n.contains() {
		collectFields(c, set)
	}
}

// Describe names a condition or scorer as traces and graphs show it: a
// native as "gt(hunger, 0.5)", a constant as "true" or "0.5", a Lua
// function as "fn@file:line". nil gives "".
func Describe(v any) string {
	switch v := v.(type) {
	case Scorer:
		return scorerName(v)
	case Cond:
		return condName(v)
	}
	return ""
}

// describer is implemented by every native: it writes a short, stable
// description, as a trace shows it (luaSyntax false: "gt(hunger, 0.5)") or
// as Lua that builds it (luaSyntax true: `gt("hunger", 0.5)`, the caller
// adding "ai.").
type describer interface {
	describe(b *strings.Builder, luaSyntax bool)
}

// condName describes any condition: a native, true/false, or fn@file:line.
func condName(c Cond) string {
	var b strings.Builder
	writeCond(&b, c, false)
	return b.String()
}

// scorerName describes any scorer: a native, a number, or fn@file:line.
func scorerName(s Scorer) string {
	var b strings.Builder
	writeScorer(&b, s, false)
	return b.String()
}

func writeCond(b *strings.Builder, c Cond, luaSyntax bool) {
	switch c := c.(type) {
	case describer:
		if luaSyntax {
			b.WriteString("ai.")
		}
		c.describe(b, luaSyntax)
	case ConstCond:
		b.WriteString(strconv.FormatBool(bool(c)))
	case LuaCond:
		writeFn(b, c.Fn)
	default:
		b.WriteString("condition")
	}
}

func writeScorer(b *strings.Builder, s Scorer, luaSyntax bool) {
	switch s := s.(type) {
	case *condScore:
		if s.implicit {
			writeCond(b, s.c, luaSyntax)
			return
		}
		if luaSyntax {
			b.WriteString("ai.")
		}
		s.describe(b, luaSyntax)
	case describer:
		if luaSyntax {
			b.WriteString("ai.")
		}
		s.describe(b, luaSyntax)
	case ConstScorer:
		b.WriteString(formatNumber(float64(s)))
	case LuaScorer:
		writeFn(b, s.Fn)
	default:
		b.WriteString("scorer")
	}
}

// writeFn names a Lua function by where it is defined: fn@file:line.
func writeFn(b *strings.Builder, fn *lua.LFunction) {
	if fn == nil || fn.IsG || fn.Proto == nil {
		b.WriteString("fn@go")
		return
	}
	b.WriteString("fn@")
	b.WriteString(fn.Proto.SourceName)
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(fn.Proto.LineDefined))
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func (p *fieldPath) describe(b *strings.Builder, luaSyntax bool) {
	if luaSyntax {
		b.WriteString(strconv.Quote(p.name))
	} else {
		b.WriteString(p.name)
	}
}

func writeValue(b *strings.Builder, v lua.LValue) {
	switch v := v.(type) {
	case lua.LString:
		b.WriteString(strconv.Quote(string(v)))
	case lua.LNumber:
		b.WriteString(formatNumber(float64(v)))
	case lua.LBool:
		b.WriteString(strconv.FormatBool(bool(v)))
	default:
		if v == lua.LNil {
			b.WriteString("nil")
			return
		}
		b.WriteString("<" + v.Type().String() + ">")
	}
}

func (c *isCond) describe(b *strings.Builder, l bool) {
	b.WriteString("is(")
	c.path.describe(b, l)
	b.WriteByte(')')
}

func (c *eqCond) describe(b *strings.Builder, l bool) {
	if c.neg {
		b.WriteString("ne(")
	} else {
		b.WriteString("eq(")
	}
	c.path.describe(b, l)
	b.WriteString(", ")
	writeValue(b, c.value)
	b.WriteByte(')')
}

func (c *numCond) describe(b *strings.Builder, l bool) {
	b.WriteString(cmpNames[c.op])
	b.WriteByte('(')
	c.path.describe(b, l)
	b.WriteString(", ")
	b.WriteString(formatNumber(c.n))
	b.WriteByte(')')
}

func (c *listCond) describe(b *strings.Builder, l bool) {
	if c.any {
		b.WriteString("any(")
	} else {
		b.WriteString("all(")
	}
	for i, sub := range c.cs {
		if i > 0 {
			b.WriteString(", ")
		}
		writeCond(b, sub, l)
	}
	b.WriteByte(')')
}

func (c *nonCond) describe(b *strings.Builder, l bool) {
	b.WriteString("non(")
	writeCond(b, c.c, l)
	b.WriteByte(')')
}

func (s *constScore) describe(b *strings.Builder, _ bool) {
	b.WriteString("const(")
	b.WriteString(formatNumber(s.v))
	b.WriteByte(')')
}

func (s *fieldScore) describe(b *strings.Builder, l bool) {
	b.WriteString("field(")
	s.path.describe(b, l)
	b.WriteByte(')')
}

func (s *condScore) describe(b *strings.Builder, l bool) {
	b.WriteString("cond(")
	writeCond(b, s.c, l)
	b.WriteByte(')')
}

func (s *inverseScore) describe(b *strings.Builder, l bool) {
	b.WriteString("inverse(")
	writeScorer(b, s.s, l)
	b.WriteByte(')')
}

func (s *listScore) describe(b *strings.Builder, l bool) {
	b.WriteString(listNames[s.op])
	b.WriteByte('(')
	for i, sub := range s.ss {
		if i > 0 {
			b.WriteString(", ")
		}
		writeScorer(b, sub, l)
	}
	b.WriteByte(')')
}

func (s *weightScore) describe(b *strings.Builder, l bool) {
	b.WriteString("weight(")
	writeScorer(b, s.s, l)
	b.WriteString(", ")
	b.WriteString(formatNumber(s.w))
	b.WriteByte(')')
}

func (s *normalizeScore) describe(b *strings.Builder, l bool) {
	b.WriteString("normalize(")
	writeScorer(b, s.s, l)
	b.WriteString(", ")
	b.WriteString(formatNumber(s.lo))
	b.WriteString(", ")
	b.WriteString(formatNumber(s.hi))
	b.WriteByte(')')
}

func (s *curveScore) describe(b *strings.Builder, l bool) {
	b.WriteString("curve(")
	writeScorer(b, s.s, l)
	b.WriteString(", ")
	s.cv.describe(b, l)
	b.WriteByte(')')
}
