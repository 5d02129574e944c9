package luabind

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/luabind/internal/astpass"
	"github.com/luaai/luaai/luabind/internal/dialect"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

func dlParse(src string) ([]ast.Stmt, error) {
	return parse.Parse(strings.NewReader(src), "test.lua")
}

// dlRun runs src through Compile in a plain gopher-lua state and returns
// what it printed, plus the error message if it failed.
func dlRun(t *testing.T, name, src string) (string, string) {
	t.Helper()
	r := dlRunGopher(name, src, 10*time.Second)
	return r.out, r.err
}

// Each case's want is what PUC Lua 5.1 prints (checked with lua5.1; the
// goto cases, which Lua 5.1 lacks, by hand).
var dlCases = []struct {
	name, src, want string
}{
	{"concat with a metamethod in a chain", `
local mt = {__concat = function(a, b) return "M(" .. type(a) .. "," .. type(b) .. ")" end}
local t = setmetatable({}, mt)
print("a" .. "b" .. t .. "c" .. 1 .. 2.5)
print(t .. t, 1 .. 2, -0.5 .. "")`, "abM(table,string)\nM(table,table)\t12\t-0.5\n"},
	{"concat operands give one value each", `
local function two() return "a", "b" end
local function f(...) return ... .. "!" end
print(("x"):rep(3) .. two(), f("p", "q"), (two()) .. two() .. two())`, "xxxa\tp!\taaa\n"},
	{"issue swap", `
local a, b = 1, 2
a, b = b, a
print(a, b)`, "2\t1\n"},
	{"issue 440", `
local x, y = 0, 0
x, y = x + 1, x + y
print(x, y)`, "1\t0\n"},
	{"158 key then local", `
local i = 1
a = {}
a[i], i = 20, 2
print(a[1], a[2], i)`, "20\tnil\t2\n"},
	{"manual i, a[i]", `
local i = 3
local a = {}
i, a[i] = i + 1, 20
print(i, a[3], a[4])`, "4\t20\tnil\n"},
	{"315 local and field", `
local a = {}
local d = 'e'
local f = 1
f, a.d = f, d
print(f .. ", " .. a.d)`, "1, e\n"},
	{"fields swap", `
local t = {1, 2, 3}
local i, j = 1, 3
t[i], t[j] = t[j], t[i]
print(t[1], t[2], t[3])`, "3\t2\t1\n"},
	{"upvalues swap", `
local a, b = 1, 2
local function sw() a, b = b, a end
sw()
print(a, b)`, "2\t1\n"},
	{"globals swap", `
g1, g2 = 1, 2
g1, g2 = g2, g1
print(g1, g2)`, "2\t1\n"},
	{"mixed targets", `
local l, t = 1, {v = 2}
g = 3
l, t.v, g = g, l, t.v
print(l, t.v, g)`, "3\t1\t2\n"},
	{"a, b = f()", `
local function f() return 1, 2, 3 end
local a, b = 0, 0
a, b = f()
print(a, b)
a, b = b, f()
print(a, b)`, "1\t2\n2\t1\n"},
	{"a, b, c = b, ...", `
local function f(...)
  local a, b, c = 1, 2, 3
  a, b, c = b, ...
  return a, b, c
end
print(f("x", "y"))
print(f("x"))
print(f())`, "2\tx\ty\n2\tx\tnil\n2\tnil\tnil\n"},
	{"dup targets", `
local a = 0
a, a = 1, 2
print(a)`, "1\n"},
	{"more values", `
local n = 0
local function c() n = n + 1 return n end
local a, b = 0, 0
a, b = b, a, c()
print(a, b, n)`, "0\t0\t1\n"},
	{"nested functions", `
local function outer()
  local p, q = "p", "q"
  local function inner()
    local r, s = 1, 2
    r, s = s, r
    p, q = q, p
    return r, s
  end
  local r, s = inner()
  return p, q, r, s
end
print(outer())`, "q\tp\t2\t1\n"},
	{"captured changed by a call", `
local a = 1
local function f() a = 10 return 5 end
local b
a, b = 2, f()
print(a, b)`, "2\t5\n"},
	{"captured key read after the call", `
local t, i = {}, 1
local function f() i = 2 return 0 end
t[i] = f()
print(t[1], t[2])`, "nil\t0\n"},
	{"global left of a field with a local value", `
g = 1
local x, t = 7, {}
g, t.a = g, x
print(g, t.a)`, "1\t7\n"},
	{"and leaves the old value", `
local x = 5
local t = {}
x = t.missing and 1
print(x)
local w = 3
w = not w and w
print(w)`, "nil\nfalse\n"},
	{"call into the last parameter", `
local function f(p)
  local keep = "keep"
  p = (tostring(1))
  return p, keep
end
print(f(0))`, "1\tkeep\n"},
	{"vararg cut for a local", `
local function f(...)
  local a, keep = 1, "keep"
  a, G = ..., 5
  return a, G, keep
end
print(f(9, 8))`, "9\t5\tkeep\n"},
	{"local f = function sees the outer f", `
local f = function() return "outer" end
local f = function() return "new, " .. f() end
print(f())
local function g(n) if n == 0 then return "g" end return g(n - 1) end
print(g(3))`, "new, outer\ng\n"},
	{"for body starting with if false", `
local out = {}
for _, v in ipairs({1, 2, 3}) do
  if false then out[#out + 1] = "x" end
  out[#out + 1] = v
end
print(table.concat(out, ","))`, "1,2,3\n"},
	{"generic for with two expressions", `
local out = {}
for k, v in next, {5, 6} do out[#out + 1] = k .. "=" .. v end
print(table.concat(out, ","))`, "1=5,2=6\n"},
	{"goto back to a label before a bare jump", `
local n, out = 0, {}
::top::
if false then out[#out + 1] = "x" end
n = n + 1
out[#out + 1] = n
if n < 3 then goto top end
print(table.concat(out, ","))`, "1,2,3\n"},
	{"goto continue with a swap", `
local a, b = 1, 2
for i = 1, 4 do
  if i % 2 == 0 then goto continue end
  a, b = b, a
  ::continue::
end
print(a, b)`, "1\t2\n"},
	{"for headers read a local after a call changes it", `
local n = 1
local function f() n = 100 return 5 end
for _, v in ipairs({n + f()}) do print(v) end
n = 1
for i = n + f(), 200, 1000 do print(i) end`, "105\n105\n"},
	{"while with a jump first in its condition", `
local n = 0
while (false and n) or n < 3 do n = n + 1 end
print(n)`, "3\n"},
}

func TestDialectCases(t *testing.T) {
	for _, tc := range dlCases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := dlRun(t, "case.lua", tc.src)
			if err != "" {
				t.Fatalf("error: %s\noutput so far:\n%s", err, out)
			}
			if out != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, tc.want)
			}
		})
	}
}

// TestDialectCasesLua51 checks the wants above against lua5.1 (except the
// goto cases): the table is what Lua 5.1 does, not what we think it does.
func TestDialectCasesLua51(t *testing.T) {
	bin := dlLua51(t)
	dir := t.TempDir()
	for _, tc := range dlCases {
		if strings.Contains(tc.src, "goto") {
			continue
		}
		r := dlRunLua51(bin, dir, "case.lua", tc.src, 10*time.Second)
		if r.err != "" || r.out != tc.want {
			t.Errorf("%s: lua5.1 printed %q (%s), the case wants %q", tc.name, r.out, r.err, tc.want)
		}
	}
}

// TestDialectErrorLines: errors inside rewritten statements keep the file
// and line of the expression or target that failed.
func TestDialectErrorLines(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
	}{
		{"rhs arithmetic", "local a, b = 1, 2\na, b = b, a + nil\n", 2},
		{"rhs on a later line", "local a, b = 1, 2\na, b =\n  b,\n  a .. {}\n", 4},
		{"store into nil", "local a, t = 1, nil\na, t.x = t, a\n", 2},
		{"store on its own line", "local a, t = 1, nil\na,\n  t.x = t, a\n", 3},
		{"call of nil", "local a, b = 1, 2\na, b = b, (nil)()\n", 2},
		{"index of nil in a key", "local t, u = {}, nil\nt[u.k], t = 1, 2\n", 2},
		{"and into a local", "local x = 1\nlocal t\nx = t.y and 1\n", 3},
		{"captured key", "local t, i = nil, 1\nlocal function f() i = 2 return 0 end\nt[i] = f()\n", 3},
		{"in a function", "local function f()\n  local a, b = 1, 2\n  a, b = b, a.x\nend\nf()\n", 3},
		{"for padded", "for k, v in nil, {} do end\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunk, err := dlParse(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if _, st := dialect.Pass(chunk); st.Total() == 0 {
				t.Fatalf("nothing rewritten in:\n%s", tc.src)
			}
			_, msg := dlRun(t, "lines.lua", tc.src)
			want := fmt.Sprintf("lines.lua:%d:", tc.line)
			if !strings.HasPrefix(msg, want) {
				t.Errorf("error %q, want it to start with %q", msg, want)
			}
		})
	}
}

// TestDialectRewrites: which statements the pass changes.
func TestDialectRewrites(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want dialect.Stats
	}{
		{"local a, b = 1, 2\na, b = 3, 4", dialect.Stats{}},
		{"local a, b = 1, 2\na, b = b, a", dialect.Stats{Assigns: 1}},
		{"local a = 1\na = a + 1", dialect.Stats{}},
		{"local a, b = 1, 2\na, b = a", dialect.Stats{Assigns: 1}},
		{"g1, g2 = g2, g1", dialect.Stats{}},
		{"local t = {}\nt.x, t.y = t.y, t.x", dialect.Stats{}},
		{"local t, i, j = {}, 1, 2\nt[i], t[j] = t[j], t[i]", dialect.Stats{}},
		{"local a, b = 1, 2\nlocal function f() a, b = b, a end", dialect.Stats{}},
		{"local a = 1\nlocal f = function() return a end\na, g = 2, h()", dialect.Stats{Assigns: 1}},
		{"local a, b = 1, 0\nlocal f = function() return a end\na, b = 2, 3", dialect.Stats{}},
		{"local a = 1\nlocal f = function() return a end\na, g = 2, 3", dialect.Stats{Assigns: 1}}, // _G may have __newindex
		{"local x\nx = x or {}", dialect.Stats{}},
		{"local x, t\nx = t and t.y", dialect.Stats{}},
		{"local x, t\nx = t.a and t.a.b", dialect.Stats{Assigns: 1}},
		{"local x, t\nx = t.a and t.b or t.c", dialect.Stats{}},
		{"local x\nx = f() or 1", dialect.Stats{}},
		{"local t, i = {}, 1\nt[i] = f()", dialect.Stats{}},
		{"local t, i = {}, 1\nlocal function g() i = 2 end\nt[i] = f()", dialect.Stats{Assigns: 1}},
		{"local x, t = 1, {}\ng, t.a = g, x", dialect.Stats{Assigns: 1}},
		{"local x, t = 1, {}\ng, t.a = g, 1", dialect.Stats{}},
		{"local function f(p) p = g() end", dialect.Stats{}},
		{"local function f(p) p = (g()) end", dialect.Stats{Assigns: 1}},
		{"local function f(p, q) p = (g()) end", dialect.Stats{}},
		{"local function f(...) local a; a = ... end", dialect.Stats{}},
		{"local function f(...) local a; a = (...) end", dialect.Stats{Assigns: 1}},
		{"local f = function() return f end", dialect.Stats{LocalFuncs: 1}},
		{"local f = function() return 1 end", dialect.Stats{}},
		{"local function f() return f end", dialect.Stats{}},
		{"local f = function() local f = 1 return f end", dialect.Stats{}},
		{"for k, v in pairs(t) do if false then end end", dialect.Stats{Loops: 1}},
		{"for k, v in pairs(t) do print(k) if false then end end", dialect.Stats{}},
		{"for i = 1, 2 do if false then end end", dialect.Stats{}},
		{"while x do if false then end end", dialect.Stats{}},
		{"while true do if false then end end", dialect.Stats{Loops: 1}},
		{"repeat break until x", dialect.Stats{Loops: 1}},
		{"::a:: if false then end goto a", dialect.Stats{Loops: 1}},
		{"for k, v in next, t do end", dialect.Stats{Loops: 1}},
		{"for k in pairs(t) do end", dialect.Stats{}},
		{"for a, b, c in next, t do end", dialect.Stats{}},
	} {
		chunk, err := dlParse(tc.src)
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		if _, st := dialect.Pass(chunk); st != tc.want {
			t.Errorf("%q: rewrote %+v, want %+v", tc.src, st, tc.want)
		}
	}
}

// dlRawProto compiles src without the dialect pass.
func dlRawProto(t *testing.T, src string) *lua.FunctionProto {
	t.Helper()
	chunk, err := parse.Parse(strings.NewReader(src), "same.lua")
	if err != nil {
		t.Fatal(err)
	}
	p, err := lua.Compile(astpass.Concat(chunk, catLocal, catGlobal), "same.lua") // the concat pass is not the dialect's
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDialectUntouched: statements that need no rewrite compile to the
// very same bytecode (and debug information) as without the pass.
func TestDialectUntouched(t *testing.T) {
	untouched := `
local a, b, c = 1, 2, 3
a, b = 3, 4
a = a + b * c
local t = {x = 1, y = 2, 10, 20}
t.x, t.y = t.y, t.x
t[1], t[2] = t[2], t[1]
g1, g2 = g2, g1
local function f(p, q, ...)
  local r = p or q
  r = r and r + 1 or 0
  p = q
  local s, u = ...
  return r, s, u, select("#", ...)
end
local x = x or {}
x.n = (x.n or 0) + 1
local y = t.x and t.y
for i = 1, 3 do a = a + i end
for k, v in pairs(t) do b = k end
for i, v in ipairs(t) do c = v end
while a > 100 do a = a - 1 end
repeat local z = a; a = z - 1 until a < 0
if a then b = 1 elseif b then c = 2 else a = 3 end
do local d, e = 1, 2; d, e = 3, 4 end
local function rec(n) if n == 0 then return 0 end return rec(n - 1) end
local obj = {}
function obj:m(v) self.v, self.w = v, v * 2; return self end
local s = ("x"):rep(3) .. tostring(a)
return f(1, 2, 3, 4), rec(3), obj:m(2).w, s, y
`
	chunk, err := dlParse(untouched)
	if err != nil {
		t.Fatal(err)
	}
	if _, st := dialect.Pass(chunk); st.Total() != 0 {
		t.Fatalf("the pass rewrote %+v in a program that needs nothing", st)
	}
	got, err := Compile(strings.NewReader(untouched), "same.lua")
	if err != nil {
		t.Fatal(err)
	}
	if want := dlRawProto(t, untouched); got.String() != want.String() {
		t.Errorf("bytecode differs:\n--- with the pass\n%s\n--- without\n%s", got, want)
	}

	// One function rewritten, the other untouched: the untouched one is
	// byte for byte the same, and so is the chunk around them but for the
	// nested prototype.
	mixed := `
local function fixed(a, b) a, b = b, a; return a, b end
local function same(a, b) a = a + b; return a, b end
return fixed(1, 2), same(1, 2)
`
	gotp, err := Compile(strings.NewReader(mixed), "same.lua")
	if err != nil {
		t.Fatal(err)
	}
	wantp := dlRawProto(t, mixed)
	if g, w := gotp.FunctionPrototypes[1].String(), wantp.FunctionPrototypes[1].String(); g != w {
		t.Errorf("the untouched function changed:\n%s\nwant\n%s", g, w)
	}
	if g, w := gotp.FunctionPrototypes[0].String(), wantp.FunctionPrototypes[0].String(); g == w {
		t.Errorf("the swap was not rewritten")
	}
	if fmt.Sprint(gotp.Code) != fmt.Sprint(wantp.Code) {
		t.Errorf("the main chunk changed")
	}
}

// TestDialectTemporaries: the names of the temporaries cannot be written
// in a script, shadow nothing, and go out of scope after each statement, so
// a function can hold many rewritten statements near the locals limit.
func TestDialectTemporaries(t *testing.T) {
	if _, err := Compile(strings.NewReader("local (assign 1) = 1"), "x.lua"); err == nil {
		t.Error("a script could name a temporary")
	}
	var b strings.Builder
	for i := 0; i < 190; i++ {
		fmt.Fprintf(&b, "local v%d = %d\n", i, i)
	}
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "v%d, v%d, v%d = v%d, v%d, v%d\n", i%190, (i+1)%190, (i+2)%190, (i+1)%190, (i+2)%190, i%190)
	}
	b.WriteString("print(v0, v1, v2, v189)\n")
	out, msg := dlRun(t, "many.lua", b.String())
	if msg != "" {
		t.Fatalf("error: %s", msg)
	}
	// 300 rotations of three overlapping windows, computed the Lua 5.1 way.
	v := make([]int, 190)
	for i := range v {
		v[i] = i
	}
	for i := 0; i < 300; i++ {
		x, y, z := i%190, (i+1)%190, (i+2)%190
		v[x], v[y], v[z] = v[y], v[z], v[x]
	}
	if want := fmt.Sprintf("%d\t%d\t%d\t%d\n", v[0], v[1], v[2], v[189]); out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	// A script's own names are left alone, temporaries included.
	out, msg = dlRun(t, "names.lua", `
local assign, nop = 1, 2
assign, nop = nop, assign
print(assign, nop)`)
	if msg != "" || out != "2\t1\n" {
		t.Errorf("got %q %s", out, msg)
	}
}

// TestDialectPipeline: scripts run by a VM (RunString, require, load) go
// through the pass.
func TestDialectPipeline(t *testing.T) {
	vm := NewVM(Options{})
	defer vm.Close()
	v, err := vm.RunString("pipe.lua", `
local a, b = 1, 2
a, b = b, a
local f = load("local x, y = 'x', 'y' x, y = y, x return x .. y")
return a .. b .. f()`)
	if err != nil {
		t.Fatal(err)
	}
	if v.String() != "21yx" {
		t.Errorf("got %s, want 21yx", v)
	}
}

// Known differences between gopher-lua and PUC Lua 5.1 that luaai keeps:
// each case asserts what gopher-lua gives, and what lua5.1 gives when it is
// installed, so a change on either side shows here. See the top of
// dialect_diff_test.go.
var dlKnown = []struct {
	name, src   string
	gopher, puc string
	gopherErr   bool // gopher-lua raises an error
	why         string
}{
	{
		name:   "string.match without a match returns nothing",
		src:    `print(select("#", ("abc"):match("x")))`,
		gopher: "0\n", puc: "1\n",
		why: "gopher-lua's string.match returns no value instead of nil; only select('#') or a table constructor can tell",
	},
	{
		name:   "tonumber of an exponent without a point",
		src:    `print(tonumber("1e2"), tonumber("1.5e2"), "1e2" + 0)`,
		gopher: "nil\t150\t100\n", puc: "100\t150\t100\n",
		why: "gopher-lua's tonumber wants a decimal point before an exponent; arithmetic on the string works",
	},
	{
		name:   "error level 2",
		src:    "local function check() error('bad', 2) end\nlocal ok, m = pcall(function()\n  check()\nend)\nprint(m)",
		gopher: "t.lua:1: bad\n", puc: "t.lua:3: bad\n",
		why: "gopher-lua's error(msg, 2) names the line of the error call, like level 1, not the caller's",
	},
	{
		name:   "error raised from a Go function",
		src:    `print(pcall(error, "e"))`,
		gopher: "false\tt.lua:1: e\n", puc: "false\te\n",
		why: "gopher-lua adds the position of the nearest Lua function; PUC adds none when the caller is a C function",
	},
	{
		name:   "length of a table with holes",
		src:    `print(#{1, 2, 3, [10] = 10})`,
		gopher: "10\n", puc: "3\n",
		why: "any border is a valid length (manual §2.5.5); the two implementations pick different ones",
	},
	{
		name:   "number formatting",
		src:    `print(2^53, 1e15, -0, 1/3)`,
		gopher: "9007199254740992\t1000000000000000\t0\t0.3333333333333333\n",
		puc:    "9.007199254741e+15\t1e+15\t-0\t0.33333333333333\n",
		why:    "gopher-lua prints integral numbers as integers and others with Go's shortest form; PUC uses %.14g",
	},
	{
		name:   "%q of a newline",
		src:    `print(string.format("%q", "a\nb"))`,
		gopher: "\"a\\nb\"\n", puc: "\"a\\\nb\"\n",
		why: "gopher-lua escapes a newline as \\n, PUC as a backslash and a newline (both read back the same)",
	},
	{
		name:   "%s of a boolean",
		src:    `print(pcall(string.format, "%s", true))`,
		gopher: "true\ttrue\n", puc: "false\tbad argument #2 to '?' (string expected, got boolean)\n",
		why: "gopher-lua formats any value with %s; PUC 5.1 wants a string or a number",
	},
}

func TestDialectKnownDifferences(t *testing.T) {
	bin, _ := exec.LookPath("lua5.1")
	dir := t.TempDir()
	for _, tc := range dlKnown {
		t.Run(tc.name, func(t *testing.T) {
			out, msg := dlRun(t, "t.lua", tc.src)
			if (msg != "") != tc.gopherErr || out != tc.gopher {
				t.Errorf("gopher-lua printed %q (error %q), the known result is %q (%s)", out, msg, tc.gopher, tc.why)
			}
			if bin == "" {
				return
			}
			r := dlRunLua51(bin, dir, "t.lua", tc.src, 10*time.Second)
			if r.out != tc.puc {
				t.Errorf("lua5.1 printed %q (%s), the known result is %q", r.out, r.err, tc.puc)
			}
		})
	}
}

// gopher-lua's own test scripts, as its script_test.go runs them
// (TestGlua, TestLua), but compiled by luaai's Compile.
var (
	// db.lua is left out: it tests the debug library, which scripts do
	// not have, down to its upvalue counts, and the compile step routes
	// calls of absent debug functions through a local of its own.
	dlGluaTests = []string{"base.lua", "coroutine.lua", "issues.lua", "os.lua", "table.lua", "vm.lua", "math.lua", "strings.lua", "goto.lua"}
	dlLuaTests  = []string{"attrib.lua", "calls.lua", "closure.lua", "constructs.lua", "events.lua", "literals.lua", "locals.lua", "math.lua", "sort.lua", "strings.lua", "vararg.lua", "pm.lua", "files.lua"}
)

func TestDialectGopherLuaSuites(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/yuin/gopher-lua").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	for _, suite := range []struct {
		dir   string
		files []string
	}{{"_glua-tests", dlGluaTests}, {"_lua5.1-tests", dlLuaTests}} {
		src := filepath.Join(mod, suite.dir)
		if _, err := os.Stat(src); err != nil {
			t.Skipf("%s: %v", src, err)
		}
		// The scripts write and read files next to themselves: run them in
		// a copy (the module cache is read-only).
		dir := filepath.Join(t.TempDir(), suite.dir)
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		for _, name := range suite.files {
			t.Run(suite.dir+"/"+name, func(t *testing.T) {
				dlRunSuiteFile(t, dir, name)
			})
		}
	}
}

// dlRunSuiteFile runs one script in dir the way script_test.go does, with
// the chunk compiled by Compile and loadstring/load/dofile going through
// Compile too.
func dlRunSuiteFile(t *testing.T, dir, name string) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)

	L := lua.NewState(lua.Options{RegistrySize: 1024 * 20, CallStackSize: 1024, IncludeGoStackTrace: true})
	defer L.Close()
	openConcat(L)
	var printed strings.Builder
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		for i := 1; i <= L.GetTop(); i++ {
			if i > 1 {
				printed.WriteByte('\t')
			}
			printed.WriteString(L.ToStringMeta(L.Get(i)).String())
		}
		printed.WriteByte('\n')
		return 0
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	L.SetContext(ctx)
	compileString := func(L *lua.LState, src, chunk string) int {
		proto, err := Compile(strings.NewReader(src), chunk)
		if err != nil {
			L.Push(lua.LNil)
			L.Push(lua.LString(err.Error()))
			return 2
		}
		L.Push(L.NewFunctionFromProto(proto))
		return 1
	}
	L.SetGlobal("loadstring", L.NewFunction(func(L *lua.LState) int {
		src := L.CheckString(1)
		return compileString(L, src, L.OptString(2, "<string>"))
	}))
	dofile := func(L *lua.LState) int {
		path := L.CheckString(1)
		src, err := os.ReadFile(path)
		if err != nil {
			L.RaiseError("%v", err)
		}
		top := L.GetTop()
		if compileString(L, string(src), path) != 1 {
			L.RaiseError("%s", L.Get(-1).String())
		}
		L.Call(0, lua.MultRet)
		return L.GetTop() - top
	}
	L.SetGlobal("dofile", L.NewFunction(dofile))

	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	proto, err := Compile(strings.NewReader(string(src)), name)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if chunk, err := parse.Parse(strings.NewReader(string(src)), name); err == nil {
		_, st := dialect.Pass(chunk)
		t.Logf("%s: rewritten %+v", name, st)
	}
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, lua.MultRet, nil); err != nil {
		t.Errorf("%s: %v\nprinted:\n%s", name, err, printed.String())
	}
}
