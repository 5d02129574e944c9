package luatest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	"github.com/stretchr/testify/require"
)

// runSource writes files (name → source) to a fresh folder and runs its
// x_spec.lua, collecting the cases RunFile reports.
func runSource(t *testing.T, files map[string]string) (Result, string, []Case) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	vm := defs.NewVM(luabind.Options{})
	defer vm.Close()
	var out strings.Builder
	var cases []Case
	res, _ := runFile(vm, filepath.Join(dir, "x_spec.lua"), &out, Options{OnCase: func(c Case) { cases = append(cases, c) }})
	return res, strings.ReplaceAll(out.String(), dir+string(filepath.Separator), ""), cases
}

// busted's globals and modules as spec helpers use them, what luaai test
// lacks, and how a failure in a library or a file that does not load is
// told.
func TestBustedModulesAndGlobals(t *testing.T) {
	for _, tc := range []struct {
		name           string
		files          map[string]string
		passed, failed int
		want           []string // substrings of the output
		statuses       []Status // the cases reported, in order
	}{
		{
			name: "luassert and say register an assertion with its messages",
			files: map[string]string{
				"helper.lua": `local assert = require("luassert")
local say = require("say")
say:set_namespace("en")
say:set("assertion.less.positive", "Expected %s to be smaller than %s")
say:set("assertion.less.negative", "Expected %s to not be smaller than %s")
assert:register("assertion", "less", function(state, args) return args[1] < args[2] end,
  "assertion.less.positive", "assertion.less.negative")`,
				"x_spec.lua": `require("helper")
describe("less", function()
  it("holds", function() assert.less(1, 2) end)
  it("fails", function() assert.less(3, 2) end)
  it("fails negated", function() assert.is_not.less(1, 2) end)
end)`,
			},
			passed: 1, failed: 2,
			want:     []string{"FAIL x_spec.lua:4: less fails\n  Expected 3 to be smaller than 2\n", "FAIL x_spec.lua:5: less fails negated\n  Expected 1 to not be smaller than 2\n"},
			statuses: []Status{Passed, Failed, Failed},
		},
		{
			name: "package.path is a string a helper appends to",
			files: map[string]string{
				"x_spec.lua": `package.path = package.path .. ';./?/init.lua'
it("runs", function() assert.is_string(package.cpath) end)`,
			},
			passed: 1, statuses: []Status{Passed},
		},
		{
			name: "an unsupported busted global says so",
			files: map[string]string{
				"x_spec.lua": `describe("r", function()
  randomize()
  it("never recorded", function() end)
end)
it("file", function() file("x", function() end) end)`,
			},
			failed: 2,
			want: []string{"FAIL x_spec.lua:2: r\n  error: randomize is not supported by luaai test\n",
				"FAIL x_spec.lua:5: file\n  error: file is not supported by luaai test\n"},
			statuses: []Status{Errored, Errored},
		},
		{
			name: "a library's error names the spec line that called it",
			files: map[string]string{
				"lib.lua": `local M = {}
function M.parse(s)
  return s:upper() .. nil
end
return M`,
				"x_spec.lua": `local lib = require("lib")
describe("lib", function()
  it("parses", function()
    local v = lib.parse("a")
  end)
end)`,
			},
			failed:   1,
			want:     []string{"FAIL lib.lua:3: lib parses\n  error: cannot perform concat operation between string and nil\n  called from x_spec.lua:4\n"},
			statuses: []Status{Errored},
		},
		{
			name: "a spec whose helper fails to load is a FAIL with its name",
			files: map[string]string{
				"helper.lua": `package.path = package.path .. nil`,
				"x_spec.lua": `require("helper")
it("never runs", function() end)`,
			},
			failed:   1,
			want:     []string{"FAIL x_spec.lua:1: x_spec.lua\n  error: helper.lua:1: "},
			statuses: []Status{Errored},
		},
		{
			name:     "a spec that does not compile is a FAIL with its name",
			files:    map[string]string{"x_spec.lua": "it('x', function()\n  local = 1\nend)"},
			failed:   1,
			want:     []string{"FAIL x_spec.lua:2: x_spec.lua\n  error: "},
			statuses: []Status{Errored},
		},
		{
			name: "pending and passing tests are reported too",
			files: map[string]string{"x_spec.lua": `pending("later")
test("now", function() end)
spec("also", function() end)`},
			passed: 2, statuses: []Status{Pending, Passed, Passed},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, out, cases := runSource(t, tc.files)
			require.Equal(t, tc.passed, res.Passed, out)
			require.Equal(t, tc.failed, res.Failed, out)
			for _, w := range tc.want {
				require.Contains(t, out, w)
			}
			var got []Status
			for _, c := range cases {
				got = append(got, c.Status)
			}
			require.Equal(t, tc.statuses, got, out)
		})
	}
}

// insulate undoes the globals its block set and the modules it loaded;
// expose is a describe block.
func TestBustedInsulate(t *testing.T) {
	res, out, _ := runSource(t, map[string]string{
		"counter.lua": `local c = { n = 0 }
function c.bump() c.n = c.n + 1; return c.n end
return c`,
		"x_spec.lua": `g = "before"
insulate("inside", function()
  g = "inside"; made = true
  local c = require("counter")
  it("sees its changes", function() assert.are.equal("inside", g); assert.are.equal(1, c.bump()) end)
  insulate("nested", function()
    it("sees the outer changes", function() assert.is_true(made); assert.are.equal(2, require("counter").bump()) end)
  end)
end)
it("has the globals back", function() assert.are.equal("before", g); assert.is_nil(made) end)
it("loads the module afresh", function() assert.are.equal(1, require("counter").bump()) end)
expose("exposed", function()
  e = 1
  it("runs", function() assert.are.equal(1, e) end)
end)
it("keeps what expose set", function() assert.are.equal(1, e) end)`,
	})
	require.Equal(t, Result{Passed: 6}, res, out)
}
