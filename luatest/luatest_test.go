package luatest

import (
	"os"
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	"github.com/stretchr/testify/require"

	lua "github.com/yuin/gopher-lua"
)

func runBusted(t *testing.T, path string) (Result, string) {
	t.Helper()
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	var out strings.Builder
	res, _ := runFile(vm, path, &out, Options{}) // a file that did not run is in res and out
	return res, out.String()
}

func TestBustedCounts(t *testing.T) {
	for _, tc := range []struct {
		file           string
		passed, failed int
		want           []string // substrings of the output
		notWant        []string
	}{
		{file: "pass_test.lua", passed: 10, failed: 0},
		{file: "fail_test.lua", passed: 1, failed: 14},
		{
			file:   "syntax_test.lua",
			failed: 1,
			want:   []string{"testdata/busted/syntax_test.lua:3: "},
		},
		{
			file:    "body_error_test.lua",
			failed:  1,
			want:    []string{"testdata/busted/body_error_test.lua:4: "},
			notWant: []string{"never runs"}, // the body failed before it was recorded
		},
		{
			file:   "missing_test.lua",
			failed: 1,
			want:   []string{"testdata/busted/missing_test.lua"},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			res, out := runBusted(t, "testdata/busted/"+tc.file)
			t.Logf("output:\n%s", out)
			if res.Passed != tc.passed || res.Failed != tc.failed {
				t.Errorf("got %d passed, %d failed; want %d, %d\noutput:\n%s", res.Passed, res.Failed, tc.passed, tc.failed, out)
			}
			if tc.failed == 0 && out != "" {
				t.Errorf("unexpected output:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}

// bustedBlocks splits the output into FAIL blocks keyed by their header line.
func bustedBlocks(out string) map[string]string {
	blocks := map[string]string{}
	var header string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "FAIL ") {
			header = line
			blocks[header] = ""
			continue
		}
		if header != "" && line != "" {
			blocks[header] += line + "\n"
		}
	}
	return blocks
}

func TestBustedFailureOutput(t *testing.T) {
	const f = "testdata/busted/fail_test.lua"
	res, out := runBusted(t, f)
	if res.Failed != 14 {
		t.Fatalf("failed = %d, want 14\n%s", res.Failed, out)
	}
	t.Logf("output:\n%s", out)
	blocks := bustedBlocks(out)
	for _, tc := range []struct {
		header string
		lines  []string
	}{
		{f + ":4: guard hfsm switches to combat", []string{`  expected: "combat"`, `  actual:   "patrol"`}},
		{f + ":9: guard same", []string{`  expected: {a = 1, b = {c = 2}}`, `  actual:   {a = 1, b = {c = 3}}`, "differs at .b.c: expected 2, actual 3"}},
		{f + ":13: guard is_true", []string{"  expected: true", "  actual:   nil"}},
		{f + ":17: guard is_false", []string{"  expected: false", "  actual:   true"}},
		{f + ":21: guard is_nil", []string{"  expected: nil", "  actual:   42"}},
		{f + ":25: guard is_not_nil", []string{"  expected: not nil", "  actual:   nil"}},
		{f + ":29: guard near", []string{"  expected: 1 ± 0.1", "  actual:   1.5"}},
		{f + ":33: guard has_error", []string{"  expected: an error", "  actual:   no error"}},
		{f + ":37: guard has_error pattern", []string{`  expected: an error matching "^missing"`, `  actual:   "out of range"`}},
		{f + ":41: guard not equal", []string{"  expected: not 5", "  actual:   5"}},
		{f + ":45: guard not same", []string{"  expected: not the same as {1, 2}", "  actual:   {1, 2}"}},
		{f + ":49: guard plain assert", []string{"  plain message"}},
		{f + ":54: guard runtime error", []string{"  error: "}},
		{f + ":58: guard error call", []string{"  error: kaboom"}},
	} {
		t.Run(tc.header, func(t *testing.T) {
			body, ok := blocks["FAIL "+tc.header]
			if !ok {
				t.Fatalf("no block %q in output:\n%s", "FAIL "+tc.header, out)
			}
			for _, l := range tc.lines {
				if !strings.Contains(body, l) {
					t.Errorf("block %q lacks %q:\n%s", tc.header, l, body)
				}
			}
		})
	}
	if len(blocks) != 14 {
		t.Errorf("%d FAIL blocks, want 14:\n%s", len(blocks), out)
	}
	if strings.Contains(out, "passes") {
		t.Errorf("passing test reported:\n%s", out)
	}
	if strings.Contains(out, "userdata") {
		t.Errorf("assertion failure shown as a userdata:\n%s", out)
	}
}

func TestBustedGlobalsRestored(t *testing.T) {
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	g := vm.L.G.Global
	before := map[string]lua.LValue{}
	names := []string{"describe", "it", "before_each", "after_each", "assert"}
	for _, n := range names {
		before[n] = g.RawGetString(n)
	}
	var out strings.Builder
	total := Result{}
	for _, f := range []string{"pass_test.lua", "fail_test.lua", "body_error_test.lua", "pass_test.lua"} {
		res, _ := runFile(vm, "testdata/busted/"+f, &out, Options{})
		total.Add(res)
	}
	if total.Passed != 21 || total.Failed != 15 {
		t.Errorf("total = %+v, want 21 passed, 15 failed\n%s", total, out.String())
	}
	for _, n := range names {
		if got := g.RawGetString(n); got != before[n] {
			t.Errorf("global %s = %v after the run, want %v", n, got, before[n])
		}
	}
	if top := vm.L.GetTop(); top != 0 {
		t.Errorf("stack top = %d after the run", top)
	}
}

func TestBustedHookFailures(t *testing.T) {
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	dir := t.TempDir()
	path := dir + "/hooks_test.lua"
	src := `
local ran = {}
describe("a", function()
  before_each(function() error("setup broke") end)
  after_each(function() ran[#ran + 1] = "after" end)
  it("skipped body", function() ran[#ran + 1] = "body" end)
end)
describe("b", function()
  after_each(function() assert.is_true(false) end)
  it("fails in after_each", function() end)
end)
describe("c", function()
  it("saw only the after hooks", function()
    assert.are.same({"after"}, ran)
  end)
  it("nested describe refused", function()
    describe("late", function() end)
  end)
end)
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res, err := runFile(vm, path, &out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Passed != 1 || res.Failed != 3 {
		t.Fatalf("got %+v, want 1 passed, 3 failed\n%s", res, out.String())
	}
	for _, w := range []string{
		"FAIL " + path + ":4: a skipped body\n  error: setup broke",
		"FAIL " + path + ":9: b fails in after_each\n  expected: true\n  actual:   false",
		"FAIL " + path + ":17: c nested describe refused\n  error: describe cannot be called while the tests run",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}

func TestBustedFormat(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(`
		v1 = {b = {c = {1, 2}}, a = 1, [3] = "x", [1] = true, ["not id"] = 0.5, ["end"] = false}
		v2 = {}
		v3 = {}; v3.me = v3
		v4 = {1, 2, 3, n = 3}
		v5 = "q\"\n\\"
		v6 = {{{{{1}}}}}
		v7 = 1/0
		v8 = 100000000000000000
		v9 = 0.1
	`); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"v1", `{true, [3] = "x", a = 1, b = {c = {1, 2}}, ["end"] = false, ["not id"] = 0.5}`},
		{"v2", `{}`},
		{"v3", `{me = {…}}`},
		{"v4", `{1, 2, 3, n = 3}`},
		{"v5", `"q\"\n\\"`},
		{"v6", `{{{{{…}}}}}`},
		{"v7", `inf`},
		{"v8", `1e+17`},
		{"v9", `0.1`},
	} {
		if got := formatValue(L.GetGlobal(tc.name)); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// setup/teardown run once around a block's tests, finally after a test
// body, pending tests are reported and not run, and a failing setup fails
// its block's tests without running them.
func TestBustedLifecycle(t *testing.T) {
	res, out := runBusted(t, "testdata/busted/lifecycle_test.lua")
	require.Equal(t, Result{Passed: 4, Failed: 1, Pending: 1}, res, out)
	require.Equal(t, "4 passed, 1 failed, 1 pending", res.String())
	require.Contains(t, out, "PENDING testdata/busted/lifecycle_test.lua:10: outer not yet")
	require.Contains(t, out, "FAIL testdata/busted/lifecycle_test.lua:25: broken setup is not run")
	require.Contains(t, out, "no database")
	require.NotContains(t, out, "ran")
}

// luassert's surface: every form in luassert_test.lua passes, and each
// failure in luassert_fail_test.lua says what failed.
func TestLuassert(t *testing.T) {
	res, out := runBusted(t, "testdata/busted/luassert_test.lua")
	require.Equal(t, Result{Passed: 14}, res, out)
	require.Empty(t, out)

	res, out = runBusted(t, "testdata/busted/luassert_fail_test.lua")
	require.Equal(t, Result{Failed: 12}, res, out)
	f := "testdata/busted/luassert_fail_test.lua"
	for _, want := range []string{
		f + ":4: fails same names the first difference\n  expected: {a = {b = 1}}\n  actual:   {a = {b = 2}}\n  differs at .a.b: expected 1, actual 2",
		f + ":7: fails equal uses __eq only through ==\n  expected: {}\n  actual:   {}\n  note: different tables",
		f + `:10: fails an unknown word` + "\n" + `  error: assert.are.equl: no assertion or modifier "equl" (did you mean "equal"?)`,
		f + ":13: fails a chain without an assertion\n  error: assert.is_not is not an assertion",
		f + ":19: fails called_with shows the calls\n  expected: a call with (3)\n  actual:   calls: (1, \"a\"), (2)",
		f + ":23: fails called counts\n  expected: called 1 times\n  actual:   called 0 times",
		f + ":26: fails a spy assertion needs a spy\n  error: assert.was.called: say which spy: assert.spy(s).called(...)",
		f + ":29: fails assert.spy of a non-spy\n  error: bad argument #1 to spy (a spy or stub expected",
		f + ":32: fails matches\n  greeting\n  expected: a string matching \"^x\"\n  actual:   \"hello\"",
		f + ":35: fails unique names the repeat\n  expected: unique values\n  actual:   {1, 2, 1}\n  [1] and [3] are both 1",
		f + ":38: fails error_matches\n  expected: an error matching \"good\"\n  actual:   \"bad\"",
		f + ":41: fails a type\n  expected: a number\n  actual:   \"1\" (a string)",
	} {
		require.Contains(t, out, want)
	}
}

// Cyclic arguments, a spy called 20,000 times, a key of 100,000 words,
// recursion through a spy: each handled.
func TestBustedHostile(t *testing.T) {
	res, out := runBusted(t, "testdata/busted/hostile_test.lua")
	require.Equal(t, Result{Passed: 4}, res, out)
}
