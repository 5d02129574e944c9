package luabind

// Fuzz tests. A short pass runs the seeds with `go test`; a real run:
//
//	go test ./luabind -run XXX -fuzz FuzzCompileAndLoad -fuzztime 60s
//	go test ./luabind -run XXX -fuzz FuzzDefinition -fuzztime 60s
//	go test ./luabind -run XXX -fuzz FuzzPattern -fuzztime 60s
//
// Crashers found are kept under testdata/fuzz/<FuzzName>/ and run as
// regression tests by every `go test`.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fuzzVM is the VM the fuzz targets load into: short budgets, a small string
// cap, print to nowhere.
func fuzzVM() *VM {
	return NewVM(Options{Budget: 10 * time.Millisecond, LoadBudget: 10 * time.Millisecond, MaxString: 1 << 20, Stdout: io.Discard})
}

// checkLoadError checks an error from Compile or LoadProto: an ErrorList
// (a *BudgetError unwraps to one) whose entries name the file, and not a Go
// runtime panic of luabind's own code surfacing as a script error.
func checkLoadError(t *testing.T, err error, file string, needLine bool) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is a %T, not an ErrorList: %v", err, err)
	}
	if len(list) == 0 {
		t.Fatalf("empty ErrorList")
	}
	for _, e := range list {
		if e.Pos.File == "" {
			t.Fatalf("error without a file: %q", e.Msg)
		}
		// Two errors have no line to give: a script that returns no machine,
		// and gopher-lua's "register overflow", which it reports at the line
		// the function was defined, 0 for the main chunk.
		if needLine && e.Pos.Line <= 0 && !strings.HasPrefix(e.Msg, "the script must return") && !strings.HasPrefix(e.Msg, "register overflow") {
			t.Fatalf("error without a line: %v", e)
		}
		if strings.Contains(e.Msg, "runtime error:") || strings.Contains(e.Msg, "invalid memory address") {
			t.Fatalf("a Go panic surfaced as a script error: %v", e)
		}
	}
}

func addLuaSeeds(f *testing.F) {
	for _, glob := range []string{"../scripts/*.lua", "../examples/*/*.lua", "testdata/dialect/*.lua"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil && len(src) < 8<<10 {
				f.Add(string(src))
			}
		}
	}
	for _, s := range []string{
		"", "return", "return 1", "local ai = require('luaai') return ai.fsm{initial = 'a', states = {a = {}}}",
		"while true do end", "local function f() return f() end return f()", "local function f() return f() + 1 end f()",
		"return ('x'):rep(2^40)", "return string.format('%999d', 1)", "error({})", "error('x', 0)", "error()",
		"goto l ::l::", "local a, b = 1 a, b = b, a", "return ...", "return function(...) return select('#', ...) end",
		"x = ", "return 1 +", "(", "'", "[[", "--[[", "return 0x", "return 1e", "for i = 1, 2, 0 do end",
		"return unpack({}, 1, 1e7)", "return ('a'):rep(1e5):find('a*b')", "setmetatable(1, {})",
		"return load(function() return nil end)", "return coroutine.wrap(function() while true do end end)()",
		"return require('/etc/passwd')", "return require('../x')", "local t = setmetatable({}, {__index = function(t, k) return t[k] end}) return t.x",
	} {
		f.Add(s)
	}
}

func FuzzCompileAndLoad(f *testing.F) {
	addLuaSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		const name = "scripts/fuzz.lua"
		proto, err := Compile(strings.NewReader(src), name)
		if err != nil {
			checkLoadError(t, err, name, true)
			return
		}
		vm := fuzzVM()
		defer vm.Close()
		top := vm.L.GetTop()
		if _, err := vm.LoadProto(proto); err != nil {
			checkLoadError(t, err, name, false)
		}
		if vm.L.GetTop() != top {
			t.Fatalf("stack not balanced: %d, was %d", vm.L.GetTop(), top)
		}
	})
}

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
			g.w("after = ", g.number(), ", ")
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
		default:
			g.w(g.pick("bogus", "[1]", "Enter"), " = ", g.scalar(), ", ")
		}
	}
	g.w("}")
}

func (g *defGen) machine() {
	g.depth++
	defer func() { g.depth-- }()
	g.w("ai.", g.pick("fsm", "utility", "fsm"), " {")
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

// genDefinition is the script the fuzz bytes describe.
func genDefinition(data []byte) string {
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

func FuzzDefinition(f *testing.F) {
	for _, seed := range []string{
		"", "\x00", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a",
		strings.Repeat("\x02\x01\x00", 20), strings.Repeat("\xff\x7f\x33", 30),
		"\x01\x03\x02\x00\x00\x02\x00\x04\x00\x00\x01\x00", "fsm utility states transitions score",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "scripts/def.lua"
		src := genDefinition(data)
		proto, err := Compile(strings.NewReader(src), name)
		if err != nil {
			t.Fatalf("the generator wrote invalid Lua: %v\n%s", err, src)
		}
		vm := fuzzVM()
		defer vm.Close()
		m, err := vm.LoadProto(proto)
		if err != nil {
			checkLoadError(t, err, name, true)
			return
		}
		if m == nil {
			t.Fatalf("no machine and no error:\n%s", src)
		}
		// What luaai check and luaai graph do with a valid definition.
		for _, w := range Lint(m) {
			if w.Pos.File == "" {
				t.Fatalf("warning without a file: %v", w)
			}
		}
		_ = Warnings(m)
		for _, format := range []string{"dot", "mermaid"} {
			if err := WriteGraph(io.Discard, m, name, format); err != nil {
				t.Fatalf("graph %s: %v", format, err)
			}
		}
	})
}

// TestFuzzGeneratorWritesLua checks the definition generator writes valid
// Lua for assorted bytes.
func TestFuzzGeneratorWritesLua(t *testing.T) {
	for i := 0; i < 200; i++ {
		data := []byte(fmt.Sprintf("%d-%x-%d", i, i*7919, i*i))
		src := genDefinition(data)
		_, err := Compile(strings.NewReader(src), "gen.lua")
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
	}
}
