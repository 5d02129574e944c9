package fuzzgen

import (
	"fmt"
	"strings"
)

// defGen turns fuzz bytes into a behaviour definition: ai.fsm{} and
// ai.utility{} tables with fields, values and targets picked by the bytes,
// valid and invalid alike.
type defGen struct {
	data  []byte
	b     strings.Builder
	depth int // machines
	nest  int // conditions and scorers
}

func (g *defGen) next() byte {
	if len(g.data) == 0 {
		return 0
	}
	c := g.data[0]
	g.data = g.data[1:]
	return c
}

func (g *defGen) pick(options ...string) string { return options[int(g.next())%len(options)] }

func (g *defGen) w(s ...string) {
	for _, x := range s {
		g.b.WriteString(x)
	}
}

var defNames = []string{"a", "b", "c", "idle", "combat", "patrol.walk", "", "1x", "states", "x y", "a", "b"}

func (g *defGen) name() string { return defNames[int(g.next())%len(defNames)] }

func (g *defGen) number() string {
	return g.pick("0", "1", "0.5", "-1", "2", "1e9", "0/0", "1/0", "-1/0", "0.1", "3", "100")
}

func (g *defGen) scalar() string {
	switch g.next() % 8 {
	case 0:
		return g.number()
	case 1:
		return fmt.Sprintf("%q", g.name())
	case 2:
		return g.pick("true", "false")
	case 3:
		return "nil"
	case 4:
		return "{}"
	case 5:
		return "{1, 2, x = 3}"
	case 6:
		return "print"
	default:
		return "ai"
	}
}

func (g *defGen) function() string {
	return "function(ctx, dt) " + g.pick(
		"", "return true", "return false", "return ctx.x", "return 0.5", "return 0/0", "return 'x'",
		"error('boom')", "ctx.x = (ctx.x or 0) + 1", "ai.push('a')", "ai.pop()", "while true do end",
		"return ai.state()", "return math.random()", "local t = nil; return t.x",
	) + " end"
}

func (g *defGen) cond() string {
	if g.nest > 4 {
		return g.pick("true", "false")
	}
	g.nest++
	defer func() { g.nest-- }()
	switch g.next() % 8 {
	case 0:
		return g.function()
	case 1:
		return g.pick("true", "false")
	case 2:
		return fmt.Sprintf("ai.is(%q)", g.name())
	case 3:
		return fmt.Sprintf("ai.%s(%q, %s)", g.pick("eq", "ne", "lt", "le", "gt", "ge"), g.name(), g.scalar())
	case 4:
		return "ai." + g.pick("all", "any") + "(" + g.cond() + ", " + g.cond() + ")"
	case 5:
		return "ai.non(" + g.cond() + ")"
	default:
		return g.scalar()
	}
}

func (g *defGen) scorer() string {
	if g.nest > 4 {
		return g.number()
	}
	g.nest++
	defer func() { g.nest-- }()
	switch g.next() % 9 {
	case 0:
		return g.number()
	case 1:
		return g.function()
	case 2:
		return fmt.Sprintf("ai.field(%q)", g.name())
	case 3:
		return "ai.const(" + g.number() + ")"
	case 4:
		return "ai." + g.pick("product", "sum", "min", "max", "compensated") + "(" + g.scorer() + ", " + g.scorer() + ")"
	case 5:
		return "ai.weight(" + g.scorer() + ", " + g.number() + ")"
	case 6:
		return "ai.curve(" + g.scorer() + ", " + g.pick(`"linear"`, `"quadratic"`, `{0, 1}`, `{}`, `"nope"`, `{{0, 0}, {1, 1}}`) + ")"
	case 7:
		return "ai.cond(" + g.cond() + ")"
	default:
		return g.scalar()
	}
}

func (g *defGen) transition() {
	g.w("{")
	for n := int(g.next() % 4); n > 0; n-- {
		switch g.next() % 8 {
		case 0, 1:
			g.w("to = ", fmt.Sprintf("%q", g.name()), ", ")
		case 2:
			g.w("push = ", fmt.Sprintf("%q", g.name()), ", ")
		case 3:
			g.w("pop = ", g.pick("true", "false", "1"), ", ")
		case 4:
			g.w("when = ", g.cond(), ", ")
		case 5:
			g.w("on = ", g.pick(`"hit"`, `""`, "1", "true"), ", ")
		case 6:
			g.w(g.pick("after = "+g.number(), "run = "+g.function()), ", ")
		default:
			g.w(g.pick("bogus", "to", "[1]", "[2]"), " = ", g.scalar(), ", ")
		}
	}
	g.w("}")
}

func (g *defGen) state() {
	if g.depth < 3 && g.next()%4 == 0 {
		g.machine()
		return
	}
	switch g.next() % 10 {
	case 0:
		g.w(g.scalar())
		return
	}
	g.w("{")
	for n := int(g.next() % 6); n > 0; n-- {
		switch g.next() % 10 {
		case 0:
			g.w(g.pick("enter", "exit", "update", "pause", "resume"), " = ", g.pick(g.function(), g.scalar()), ", ")
		case 1:
			g.w("lock = ", g.cond(), ", ")
		case 2:
			g.w("every = ", g.number(), ", ")
		case 3, 4:
			g.w("transitions = {")
			for k := int(g.next() % 3); k > 0; k-- {
				g.transition()
				g.w(", ")
			}
			g.w("}, ")
		case 5, 6:
			g.w("score = ", g.scorer(), ", ")
		case 7:
			g.w(g.pick("states", "initial", "context"), " = ", g.scalar(), ", ")
		case 8:
			g.w("steps = ", g.steps(), ", steps_loop = ", g.pick("true", "false", "nil", "1"), ", ")
		default:
			g.w(g.pick("bogus", "[1]", "Enter"), " = ", g.scalar(), ", ")
		}
	}
	g.w("}")
}

// steps is a steps list: functions, waits, wait_untils and what does not belong.
func (g *defGen) steps() string {
	if g.next()%8 == 0 {
		return g.scalar()
	}
	var b strings.Builder
	b.WriteString("{ ")
	for n := int(g.next() % 5); n > 0; n-- {
		switch g.next() % 6 {
		case 0, 1:
			b.WriteString(g.pick(g.function(), "function(ctx) return 'running' end"))
		case 2:
			b.WriteString("ai.wait(" + g.number() + ")")
		case 3:
			b.WriteString("ai.wait_until(" + g.cond() + ")")
		case 4:
			b.WriteString(g.btNode())
		default:
			b.WriteString(g.scalar())
		}
		b.WriteString(", ")
	}
	b.WriteString("}")
	return b.String()
}

// btNode is a behaviour-tree node, good or bad.
func (g *defGen) btNode() string {
	if g.nest > 5 {
		return g.pick("ai.action(function() return 'running' end)", "ai.wait(1)", "ai.check(true)")
	}
	g.nest++
	defer func() { g.nest-- }()
	opts := g.pick("", "", `, { name = "n" }`, `, { name = "a.b" }`, `, { bogus = 1 }`,
		`, { name = string.rep("n", 190) }`, `, { name = string.rep("n", 201) }`, `, { name = "a\nb" }`)
	switch g.next() % 12 {
	case 0, 1, 2:
		var b strings.Builder
		b.WriteString("ai." + g.pick("sequence", "reactive_sequence", "selector", "reactive_selector", "parallel") + " { ")
		for n := int(g.next() % 4); n > 0; n-- {
			b.WriteString(g.btNode() + ", ")
		}
		b.WriteString(g.pick("", `name = "c", `, `succeed = "one", `, `fail = "all", `, `succeed = "most", `, `name = 3, `))
		b.WriteString("}")
		return b.String()
	case 3:
		return "ai." + g.pick("invert", "timeout", "cooldown", "loop", "force") + "(" + g.btNode() + ", " +
			g.pick(g.number(), `"success"`, `"running"`, "nil", `"maybe"`) + opts + ")"
	case 4:
		// A deep chain of long names: refused by the path cap, or placed.
		return fmt.Sprintf("(function() local n = ai.wait(0.1) for i = 1, %d do n = ai.invert(n, { name = string.rep(%q, %d) .. i }) end return n end)()",
			[]int{10, 200, 3000}[g.next()%3], g.pick("d", "e"), []int{1, 50, 190}[g.next()%3])
	case 5:
		return "ai.action(" + g.pick(g.function(), "function() return 'running' end", "function() return 'success' end", g.scalar()) + opts + ")"
	case 6:
		return "ai.check(" + g.cond() + opts + ")"
	case 7:
		return "ai.wait(" + g.number() + opts + ")"
	case 8:
		return "ai.wait_until(" + g.cond() + opts + ")"
	case 9:
		return g.function()
	default:
		return g.scalar()
	}
}

func (g *defGen) machine() {
	g.depth++
	defer func() { g.depth-- }()
	kind := g.pick("fsm", "utility", "fsm", "regions", "tree")
	g.w("ai.", kind, " {")
	if kind == "tree" && g.next()%4 != 0 {
		g.w("root = ", g.btNode(), ", ")
	}
	for n := int(g.next()%8) + 1; n > 0; n-- {
		switch g.next() % 12 {
		case 0, 1:
			g.w("initial = ", g.pick(fmt.Sprintf("%q", g.name()), g.scalar()), ", ")
		case 2, 3, 4:
			g.w("states = {")
			for k := int(g.next() % 4); k > 0; k-- {
				g.w(g.pick(fmt.Sprintf("[%q] = ", g.name()), fmt.Sprintf("[%q] = ", g.name()), "[1] = ", "x = "))
				g.state()
				g.w(", ")
			}
			g.w("}, ")
		case 5:
			g.w("context = ", g.pick("{x = 1, y = {z = 2}}", "{}", g.scalar()), ", ")
		case 6:
			g.w(g.pick("decide_every", "momentum"), " = ", g.number(), ", ")
		case 7:
			g.w("history = ", g.pick("true", "false", "1"), ", ")
		case 8:
			g.w("select = ", g.pick(`"best"`, `"random"`, `{top = 2}`, `{top = 0}`, g.scalar()), ", ")
		case 9:
			g.w("on_reload = ", g.pick(g.function(), g.scalar()), ", ")
		case 10:
			g.w("renamed = ", g.pick(`{old = "a"}`, `{a = "zz"}`, g.scalar()), ", ")
		default:
			g.w("transitions = {")
			g.transition()
			g.w("}, ")
		}
	}
	g.w("}")
}

// Definition is the script the fuzz bytes describe.
func Definition(data []byte) string {
	g := &defGen{data: data}
	g.w("local ai = require('luaai')\n")
	if g.next()%16 == 0 {
		g.w("return ", g.scalar(), "\n")
		return g.b.String()
	}
	g.w("local shared = ")
	g.machine()
	g.w("\nreturn ")
	g.machine()
	g.w("\n")
	// Lines: the definitions above are one line each; spread some out.
	return strings.ReplaceAll(g.b.String(), ", }", ",\n}")
}
