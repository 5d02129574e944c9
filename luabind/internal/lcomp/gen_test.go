package lcomp_test

// The generator of the differential test: Lua functions of every shape the
// compiler accepts (and a few it refuses), and contexts holding values of
// every Lua type, edge numbers and strings that look like numbers.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// gen writes one function's source from r.
type gen struct {
	r      *rand.Rand
	locals []string
	second string // the second parameter's name: dt or payload
	depth  int
	sb     strings.Builder
}

var numLits = []string{"0", "1", "-1", "0.5", "2", "3", "10", "100", "1e308", "-1e308", "2^53", "(0/0)", "(1/0)", "(-1/0)", "(-0)", "5e-324", "math.huge", "-math.huge", "math.pi"}
var strLits = []string{`""`, `"a"`, `"10"`, `"0x10"`, `" 5 "`, `"1e3"`, `"nan"`, `"found"`}
var fields = []string{"a", "b", "c", "d", "n", "s", "t", "u"}

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// field is a context field read or written: ctx.f or ctx.t.f.
func (g *gen) field() string {
	switch g.r.IntN(6) {
	case 0:
		return "ctx.t." + g.pick([]string{"x", "y", "z"})
	case 1:
		return "ctx.u." + g.pick([]string{"x", "y"})
	default:
		return "ctx." + g.pick(fields)
	}
}

func (g *gen) atom() string {
	switch g.r.IntN(20) {
	case 10, 11, 12, 13:
		return g.pick(numLits)
	case 14:
		return g.pick(strLits)
	case 15:
		return g.pick([]string{"true", "false", "nil"})
	case 16:
		if g.second == "payload" && g.r.IntN(2) == 0 {
			return "payload." + g.pick([]string{"x", "kind"})
		}
		return g.second
	case 17:
		if len(g.locals) > 0 {
			return g.pick(g.locals)
		}
		return g.field()
	case 18:
		return g.pick([]string{"K", "S", "G", "ctx"})
	default:
		return g.field()
	}
}

func (g *gen) expr() string {
	if g.depth > 3 || g.r.IntN(3) == 0 {
		return g.atom()
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.IntN(14) {
	case 0, 1, 2:
		return "(" + g.expr() + " " + g.pick([]string{"+", "-", "*", "/", "%", "^"}) + " " + g.expr() + ")"
	case 3, 4, 5:
		return "(" + g.expr() + " " + g.pick([]string{"==", "~=", "<", "<=", ">", ">="}) + " " + g.expr() + ")"
	case 6, 7:
		return "(" + g.expr() + " " + g.pick([]string{"and", "or"}) + " " + g.expr() + ")"
	case 8:
		return "(not " + g.expr() + ")"
	case 9:
		return "(- " + g.expr() + ")"
	case 10:
		return "(#" + g.expr() + ")"
	case 11:
		n := 1 + g.r.IntN(3)
		args := make([]string, n)
		for i := range args {
			args[i] = g.expr()
		}
		return g.pick([]string{"math.min", "math.max"}) + "(" + strings.Join(args, ", ") + ")"
	case 12:
		return g.pick([]string{"math.abs", "math.floor", "math.sqrt"}) + "(" + g.expr() + ")"
	default:
		switch g.r.IntN(40) {
		case 0:
			return "(" + g.expr() + " .. \"x\")" // refused: concatenation
		case 1:
			return "type(" + g.expr() + ")" // falls back when it runs: not a math function
		case 2:
			return "math.min()" // the VM raises
		}
		return g.atom()
	}
}

func (g *gen) line(s string) { g.sb.WriteString(s + "\n") }

func (g *gen) block(n int, canReturn bool) {
	for i := 0; i < n; i++ {
		switch g.r.IntN(7) {
		case 0, 1:
			name := fmt.Sprintf("l%d", len(g.locals))
			g.line("local " + name + " = " + g.expr())
			g.locals = append(g.locals, name)
		case 2, 3:
			g.line(g.field() + " = " + g.expr())
		case 4:
			if g.depth < 2 {
				g.depth++
				saved := len(g.locals)
				g.line("if " + g.expr() + " then")
				g.block(1+g.r.IntN(2), canReturn)
				g.locals = g.locals[:saved]
				if g.r.IntN(2) == 0 {
					g.line("elseif " + g.expr() + " then")
					g.block(1+g.r.IntN(2), canReturn)
					g.locals = g.locals[:saved]
				}
				if g.r.IntN(2) == 0 {
					g.line("else")
					g.block(1+g.r.IntN(2), canReturn)
					g.locals = g.locals[:saved]
				}
				g.line("end")
				g.depth--
			}
		case 5:
			if canReturn && g.r.IntN(3) == 0 {
				g.line("do return " + g.expr() + " end")
			}
		default:
			if g.r.IntN(20) == 0 {
				g.line("for i = 1, 2 do ctx.n = i end") // refused: a loop
			}
		}
	}
}

// genFunc returns a chunk that returns one function of a generated shape.
func genFunc(r *rand.Rand) string {
	if r.IntN(5) == 0 {
		return genAction(r) // a tree action or update (branch_test.go)
	}
	g := &gen{r: r, second: "dt"}
	if r.IntN(2) == 0 {
		g.second = "payload"
	}
	g.line("local K, S = 3, \"10\"")
	g.line("return function(ctx, " + g.second + ")")
	if r.IntN(4) == 0 {
		g.straight()
		g.line("end")
		return g.sb.String()
	}
	g.block(r.IntN(5), true)
	switch r.IntN(5) {
	case 0: // an update: no value
	case 1: // a tail call of a math function
		g.line("return " + g.pick([]string{"math.min", "math.max"}) + "(" + g.expr() + ", " + g.expr() + ")")
	default:
		g.line("return " + g.expr())
	}
	g.line("end")
	return g.sb.String()
}

// straight writes the body of a function that is one expression over
// numbers: locals, then a return of a value, a field write, or both (what
// the compiler runs as a tree of closures), now and then with an operand
// that is not a number or that the tree does not take.
func (g *gen) straight() {
	for i := g.r.IntN(3); i > 0; i-- {
		name := fmt.Sprintf("l%d", len(g.locals))
		g.line("local " + name + " = " + g.numExpr(0))
		g.locals = append(g.locals, name)
	}
	target := g.field()
	if g.r.IntN(3) == 0 {
		target = "ctx.w" // a field no context holds: __newindex could answer
	}
	switch g.r.IntN(3) {
	case 0:
		g.line("return " + g.numExpr(0))
	case 1:
		g.line(target + " = " + g.numExpr(0))
	default:
		g.line(target + " = " + g.numExpr(0))
		if len(g.locals) > 0 {
			g.line("return " + g.pick(g.locals))
		}
	}
}

func (g *gen) numExpr(depth int) string {
	if depth > 2 || g.r.IntN(3) == 0 {
		switch g.r.IntN(12) {
		case 0, 1:
			return g.pick([]string{"0", "1", "-1", "0.5", "2", "100", "1e308", "(-0)"})
		case 2:
			if g.second == "payload" {
				return "payload." + g.pick([]string{"x", "kind"})
			}
			return g.second
		case 3:
			if len(g.locals) > 0 {
				return g.pick(g.locals)
			}
		case 4:
			if g.r.IntN(4) == 0 {
				return g.pick([]string{"S", "K", "\"10\"", "ctx.s", "ctx", "math.pi", "nil"})
			}
		}
		return g.field()
	}
	if g.r.IntN(8) == 0 {
		return "(- " + g.numExpr(depth+1) + ")"
	}
	return "(" + g.numExpr(depth+1) + " " + g.pick([]string{"+", "-", "*", "/", "%", "^"}) + " " + g.numExpr(depth+1) + ")"
}

// world builds contexts and payloads in one LState from a seed: built
// twice from the same seed, two contexts are equal and share nothing.
type world struct {
	L    *lua.LState
	goFn *lua.LFunction
}

func (w *world) value(r *rand.Rand, depth int) lua.LValue {
	switch r.IntN(10) {
	case 0:
		return lua.LNil
	case 1:
		return lua.LBool(r.IntN(2) == 0)
	case 2, 3, 4:
		return lua.LNumber(edgeNums[r.IntN(len(edgeNums))])
	case 5, 6:
		return lua.LString(edgeStrs[r.IntN(len(edgeStrs))])
	case 7:
		if depth > 1 {
			return lua.LNumber(1)
		}
		return w.table(r, depth+1)
	case 8:
		return w.goFn
	default:
		ud := w.L.NewUserData()
		if r.IntN(2) == 0 {
			mt := w.L.NewTable()
			mt.RawSetString("__index", w.goFn)
			ud.Metatable = mt
		}
		return ud
	}
}

var edgeNums = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 3, 100, 1e308, -1e308, 1 << 53, math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, 7}
var edgeStrs = []string{"", "a", "10", "0x10", " 5 ", "1e3", "nan", "found", "-0", "inf"}

// table is a table with some of x, y, z, kind, and sometimes a metatable
// with metamethods that answer differently from the raw operation.
func (w *world) table(r *rand.Rand, depth int) *lua.LTable {
	t := w.L.NewTable()
	for _, k := range []string{"x", "y", "z", "kind"} {
		switch r.IntN(4) {
		case 0:
		case 1:
			t.RawSetString(k, w.value(r, depth))
		default:
			t.RawSetString(k, lua.LNumber(edgeNums[r.IntN(len(edgeNums))]))
		}
	}
	if r.IntN(4) == 0 {
		t.RawSetInt(1, lua.LNumber(1))
		t.RawSetInt(2, lua.LNumber(2))
	}
	if r.IntN(5) == 0 {
		w.L.SetMetatable(t, w.meta(r))
	}
	return t
}

func (w *world) meta(r *rand.Rand) *lua.LTable {
	mt := w.L.NewTable()
	switch r.IntN(3) {
	case 0:
		idx := w.L.NewTable()
		idx.RawSetString("x", lua.LNumber(42))
		idx.RawSetString("a", lua.LString("from __index"))
		mt.RawSetString("__index", idx)
	case 1:
		mt.RawSetString("__index", w.goFn)
		mt.RawSetString("__newindex", w.goFn)
	}
	for _, e := range []string{"__add", "__sub", "__mul", "__unm", "__eq", "__lt", "__le", "__len"} {
		if r.IntN(2) == 0 {
			mt.RawSetString(e, w.goFn)
		}
	}
	return mt
}

// ctx builds a context: every field of gen's list, of any type, with t and
// u usually tables; sometimes the context itself has a metatable.
func (w *world) ctx(r *rand.Rand) *lua.LTable {
	c := w.L.NewTable()
	if r.IntN(3) == 0 {
		// A tame context, as games have: numbers, a string, plain tables.
		for _, f := range fields {
			switch f {
			case "s":
				c.RawSetString(f, lua.LString(edgeStrs[r.IntN(len(edgeStrs))]))
			case "t", "u":
				t := w.L.NewTable()
				for _, k := range []string{"x", "y", "z"} {
					t.RawSetString(k, lua.LNumber(edgeNums[r.IntN(len(edgeNums))]))
				}
				c.RawSetString(f, t)
			default:
				c.RawSetString(f, lua.LNumber(edgeNums[r.IntN(len(edgeNums))]))
			}
		}
		return c
	}
	for _, f := range fields {
		if r.IntN(5) == 0 {
			continue // absent: nil
		}
		switch {
		case (f == "t" || f == "u") && r.IntN(4) > 0:
			c.RawSetString(f, w.table(r, 1))
		case f != "s" && r.IntN(2) == 0:
			// Mostly numbers, as games keep: the compiled path runs to the
			// end more often.
			c.RawSetString(f, lua.LNumber(edgeNums[r.IntN(len(edgeNums))]))
		case f == "n" && r.IntN(3) > 0:
			c.RawSetString(f, lua.LNumber(edgeNums[r.IntN(len(edgeNums))]))
		case f == "s" && r.IntN(3) > 0:
			c.RawSetString(f, lua.LString(edgeStrs[r.IntN(len(edgeStrs))]))
		default:
			c.RawSetString(f, w.value(r, 1))
		}
	}
	if r.IntN(10) == 0 {
		w.L.SetMetatable(c, w.meta(r))
	}
	return c
}

// second is the second argument: dt (a number, mostly) or a payload.
func (w *world) second(r *rand.Rand) lua.LValue {
	if r.IntN(3) == 0 {
		return w.value(r, 1)
	}
	if r.IntN(2) == 0 {
		return w.table(r, 1)
	}
	return lua.LNumber([]float64{0.016, 0, 1, -1, math.Inf(1)}[r.IntN(5)])
}
