package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestTestCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		last     string   // the last stdout line
		contains []string // in stdout
		stderr   string   // in stderr
	}{
		{
			name: "passing folder",
			args: []string{"test", "testdata/tests/pass"},
			code: 0,
			last: "2 passed, 0 failed",
		},
		{
			name:     "failing folder",
			args:     []string{"test", "testdata/tests/fail"},
			code:     1,
			last:     "1 passed, 1 failed",
			contains: []string{"testdata/tests/fail/bad_test.lua:3", `"combat"`, `"patrol"`},
		},
		{
			name:     "both, counts summed",
			args:     []string{"test", "testdata/tests"},
			code:     1,
			last:     "3 passed, 1 failed",
			contains: []string{"bad_test.lua:3"},
		},
		{
			name: "a file",
			args: []string{"test", "testdata/tests/pass/switch_test.lua"},
			code: 0,
			last: "2 passed, 0 failed",
		},
		{
			name: "a file and its folder: run once",
			args: []string{"test", "testdata/tests/pass/switch_test.lua", "testdata/tests/pass"},
			code: 0,
			last: "2 passed, 0 failed",
		},
		{
			name:   "testdata folders below a path are skipped",
			args:   []string{"test", "."},
			code:   1,
			last:   "0 passed, 0 failed",
			stderr: "no *_test.lua or *_spec.lua files in .",
		},
		{
			name:   "missing path",
			args:   []string{"test", "testdata/nope"},
			code:   1,
			stderr: "testdata/nope: no such file or directory",
		},
		{
			name:   "unknown flag",
			args:   []string{"test", "--bogus"},
			code:   2,
			stderr: "luaai test: unknown flag --bogus",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(tt.args...)
			require.Equal(t, tt.code, code, "stdout: %s\nstderr: %s", stdout, stderr)
			if tt.last != "" {
				l := lines(stdout)
				require.NotEmpty(t, l)
				require.Equal(t, tt.last, l[len(l)-1])
			}
			for _, s := range tt.contains {
				require.Contains(t, stdout, s)
			}
			if tt.stderr != "" {
				require.Contains(t, stderr, tt.stderr)
			} else {
				require.Empty(t, stderr)
			}
		})
	}
}

func TestTestCommandEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := cli("test", dir)
	require.Equal(t, 1, code)
	require.Equal(t, "0 passed, 0 failed\n", stdout)
	require.Contains(t, stderr, "no *_test.lua or *_spec.lua files in "+dir)
}

// Without paths the current folder is searched.
func TestTestCommandDefaultPath(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(filepath.Join("testdata", "tests", "pass")))
	t.Cleanup(func() { require.NoError(t, os.Chdir(wd)) })

	code, stdout, stderr := cli("test")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "2 passed, 0 failed\n", stdout)
}

func TestHelpAndUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no args", nil, 2, "", "Usage:\n  luaai run SCRIPT"},
		{"help", []string{"help"}, 0, "Usage:\n  luaai run SCRIPT", ""},
		{"-h", []string{"-h"}, 0, "luaai test [PATH...]", ""},
		{"--help", []string{"--help"}, 0, "luaai check SCRIPT", ""},
		{"help run", []string{"help", "run"}, 0, "Usage: luaai run SCRIPT", ""},
		{"help test", []string{"help", "test"}, 0, "Usage: luaai test", ""},
		{"help unknown", []string{"help", "fly"}, 2, "", `unknown command "fly"`},
		{"run -h", []string{"run", "-h"}, 0, "--ticks N", ""},
		{"run --help after the script", []string{"run", "testdata/guard.lua", "--help"}, 0, "--set k=v", ""},
		{"test -h", []string{"test", "-h"}, 0, "Usage: luaai test", ""},
		{"unknown command", []string{"fly"}, 2, "", `luaai: unknown command "fly"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(tt.args...)
			require.Equal(t, tt.code, code)
			if tt.stdout == "" {
				require.Empty(t, stdout)
			} else {
				require.Contains(t, stdout, tt.stdout)
			}
			if tt.stderr == "" {
				require.Empty(t, stderr)
			} else {
				require.Contains(t, stderr, tt.stderr)
				require.True(t, strings.Contains(stderr, "Usage"), stderr)
			}
		})
	}
}

func TestTestRunawayFailsInsteadOfHanging(t *testing.T) {
	old := testBudget
	testBudget = 50 * time.Millisecond
	defer func() { testBudget = old }()
	var out, errOut bytes.Buffer
	code := run([]string{"test", "testdata/runaway"}, &out, &errOut)
	require.Equal(t, exitFail, code)
	require.Contains(t, out.String(), "FAIL testdata/runaway/spin_test.lua:2: runaway spins")
	require.Contains(t, out.String(), "ran past its 50ms budget")
	// The agents a test ticks count against its budget.
	require.Contains(t, out.String(), "FAIL testdata/runaway/ticks_test.lua:5: ticking an agent forever")
	require.Contains(t, out.String(), "1 passed, 2 failed")
}

// luaai test says what luaai run says of the behaviours a test file
// loads: a typo in a field name is reported, and the tests still count.
func TestTestPrintsLoadWarnings(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "typo.lua"), []byte(`local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = { udpate = function() end } } }`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "typo_test.lua"), []byte(`local ai = require("luaai")
describe("typo", function()
  it("spawns", function() assert.are.equal("a", ai.spawn("typo.lua"):state()) end)
  it("spawns again", function() assert.are.equal("a", ai.spawn("typo.lua"):state()) end)
end)`), 0o644))
	code, stdout, stderr := cli("test", dir)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 1, strings.Count(stdout, `unknown field "udpate" (did you mean "update"?)`), "once per file:\n%s", stdout)
	require.Contains(t, stdout, filepath.Join(dir, "typo.lua")+`:2: warning: state "a": unknown field "udpate"`)
	require.Contains(t, stdout, "2 passed, 0 failed")
}

// Real libraries' spec folders run unmodified (testdata/libs/README.md):
// busted's *_spec.lua names, its require paths (./?.lua, ./src/?.lua,
// ?/init.lua), luassert's words and spies.
func TestRealLibrarySpecs(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	for _, tc := range []struct {
		lib    string
		result string
		fails  []string
	}{
		{"inspect", "44 passed, 1 failed", []string{"FAIL spec/inspect_spec.lua:383: inspect tables metatables does not allow collecting weak tables while they are being inspected\n  error: collectgarbage is not available to luaai scripts"}},
		{"binaryheap", "60 passed, 0 failed", nil},
		{"fifo", "5 passed, 0 failed", nil},
		{"mediator", "26 passed, 0 failed", nil},
		{"say", "8 passed, 0 failed", nil},
		// Spec helpers that use busted's modules: luassert and say
		// (semver), package.path (i18n).
		{"semver", "53 passed, 0 failed", nil},
		// busted's insulate, expose, aliases and modules (our own spec,
		// which real busted passes too).
		{"insulate", "13 passed, 0 failed", nil},
		{"i18n", "237 passed, 2 failed", []string{
			"FAIL i18n/init.lua:179: i18n loadFile Loads a bunch of stuff\n  error: loadfile is not available to luaai scripts\n  called from spec/i18n_spec.lua:149\n",
			"i18n set/getLocale does NOT modify loadFile\n  error: loadfile is not available to luaai scripts\n  called from spec/i18n_spec.lua:191\n",
		}},
	} {
		t.Run(tc.lib, func(t *testing.T) {
			require.NoError(t, os.Chdir(filepath.Join(wd, "testdata", "libs", tc.lib)))
			defer func() { require.NoError(t, os.Chdir(wd)) }()
			code, stdout, stderr := cli("test", "spec")
			require.Empty(t, stderr)
			require.Contains(t, stdout, tc.result+"\n")
			for _, f := range tc.fails {
				require.Contains(t, stdout, f)
			}
			require.Equal(t, strings.Count(stdout, "FAIL "), len(tc.fails), stdout)
			if len(tc.fails) == 0 {
				require.Equal(t, 0, code)
			} else {
				require.Equal(t, 1, code)
			}
		})
	}
}

// --filter, --filter-out, --tags and --exclude-tags choose tests as
// busted's do; a failing test shows the ai.log lines its agents wrote.
func TestTestFilterTagsAndLog(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "talk.lua"), []byte(`local ai = require("luaai")
return ai.fsm { initial = "idle", context = { n = 0 }, states = {
  idle = { update = function(ctx) ctx.n = ctx.n + 1; ai.log("n is " .. ctx.n) end },
} }`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "talk_spec.lua"), []byte(`local ai = require("luaai")
describe("talk #slow", function()
  it("counts #unit", function()
    local a = ai.spawn("talk.lua")
    a:tick(0.1) a:tick(0.1)
    assert.are.equal(3, a.ctx.n)
  end)
  it("passes", function() end)
end)
describe("quick", function()
  it("passes #unit", function() end)
end)`), 0o644))
	for _, tc := range []struct {
		args   []string
		result string
	}{
		{nil, "2 passed, 1 failed"},
		{[]string{"--filter", "^quick"}, "1 passed, 0 failed"},
		{[]string{"--filter-out", "count"}, "2 passed, 0 failed"},
		{[]string{"--tags", "unit"}, "1 passed, 1 failed"},
		{[]string{"--tags", "#slow,nothing"}, "1 passed, 1 failed"},
		{[]string{"--exclude-tags", "slow"}, "1 passed, 0 failed"},
		{[]string{"--tags", "unit", "--exclude-tags", "slow"}, "1 passed, 0 failed"},
	} {
		code, stdout, stderr := cli(append(append([]string{"test"}, tc.args...), dir)...)
		require.Empty(t, stderr, tc.args)
		require.Contains(t, stdout, tc.result+"\n", tc.args)
		require.Equal(t, strings.Contains(tc.result, "1 failed"), code == 1, tc.args)
	}
	_, stdout, _ := cli("test", dir)
	require.Contains(t, stdout, "FAIL "+filepath.Join(dir, "talk_spec.lua")+":6: talk #slow counts #unit\n  expected: 3\n  actual:   2\n  ai.log:\n    agent 1 tick 1 idle: n is 1\n    agent 1 tick 2 idle: n is 2\n")

	code, _, stderr := cli("test", "--filter", "[a", dir)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, `luaai test: --filter "[a": `)
}

// -v names each passing test; a passing test whose agents raised errors
// it never read says so; a filter that matches nothing is a failure.
func TestTestVerboseUnreadErrorsAndEmptyFilter(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "boom.lua"), []byte(`local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = { update = function() error("boom") end } } }
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "boom_test.lua"), []byte(`local ai = require("luaai")
describe("boom", function()
  it("ticks without looking", function()
    local a = ai.spawn("boom.lua")
    a:tick(0.1)
    a:tick(0.1)
    assert.are.equal("a", a:state())
  end)
  it("reads its errors", function()
    local a = ai.spawn("boom.lua")
    a:tick(0.1)
    assert.are.equal(1, #a:errors())
  end)
end)
`), 0o644))
	code, stdout, stderr := cli("test", "-v", dir)
	require.Equal(t, 0, code, stdout+stderr)
	test := filepath.Join(dir, "boom_test.lua")
	require.Equal(t, []string{
		"ok " + test + ":3: boom ticks without looking",
		test + ":3: boom ticks without looking: 2 agent errors not asserted (" + filepath.Join(dir, "boom.lua") + ":2: boom); agent:errors() returns them",
		"ok " + test + ":9: boom reads its errors",
		"2 passed, 0 failed",
	}, lines(stdout))

	code, stdout, stderr = cli("test", "--filter", "nothing like it", dir)
	require.Equal(t, 1, code)
	require.Equal(t, "0 passed, 0 failed\n", stdout)
	require.Contains(t, stderr, "luaai test: no test matched the --filter, --filter-out, --tags and --exclude-tags given")
}

// ai.agents finds, from a script, the agents a test file spawned, by kind
// (the script's name) or script, in id order; the guard's alarm reaches
// the villagers it finds, whatever order they were spawned in.
func TestTestAgentsByKind(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"villager.lua": `local ai = require("luaai")
return ai.fsm { initial = "work", context = { alarms = 0 }, states = {
  work = { transitions = { { on = "alarm", to = "flee", run = function(ctx) ctx.alarms = ctx.alarms + 1 end } } },
  flee = {},
} }`,
		"guard.lua": `local ai = require("luaai")
return ai.fsm { initial = "patrol", context = { told = "" }, states = {
  patrol = { transitions = { { on = "intruder", to = "alert" } } },
  alert = { enter = function(ctx)
    local ids = ai.agents("villager")
    for _, id in ipairs(ids) do ai.send_to(id, "alarm") end
    ctx.told = table.concat(ids, ",")
  end },
} }`,
		"agents_test.lua": `local ai = require("luaai")
local kept -- held past their test: still, they end with it
describe("the alarm", function()
  it("reaches every villager, found by kind", function()
    local v1 = ai.spawn("villager.lua")
    local g = ai.spawn("guard.lua")
    local v2 = ai.spawn("villager.lua")
    kept = { v1, g, v2 }
    assert.are.same({ v1:id(), v2:id() }, ai.agents("villager"))
    assert.are.same({ g:id() }, ai.agents("guard.lua"))
    assert.are.same({ v1:id(), g:id(), v2:id() }, ai.agents())
    g:send("intruder")
    g:tick(0.1)
    assert.are.equal(v1:id() .. "," .. v2:id(), g.ctx.told)
    v1:tick(0.1) v2:tick(0.1)
    assert.are.equal("flee", v1:state())
    assert.are.equal("flee", v2:state())
  end)
  it("names a wrong argument", function()
    assert.has_error(function() ai.agents(1) end, "a kind or a script name (a string) expected, got a number")
  end)
  it("starts with none: the agents of a test end with it", function()
    assert.are.same({}, ai.agents())
    assert.are.equal(3, #kept)
  end)
end)`,
	}
	for name, src := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	code, stdout, stderr := cli("test", dir)
	require.Equal(t, 0, code, "%s%s", stdout, stderr)
	require.Contains(t, stdout, "3 passed, 0 failed\n")
}

// reload in a test file reloads what the test's agents were spawned
// from, from the file, another file or source text, reports what luaai
// run --watch reports, and leaves the agents where a spec can look.
func TestTestReload(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"guard.lua": `local ai = require("luaai")
return ai.fsm { initial = "patrol", context = { seen = false }, states = {
  patrol = { transitions = { { on = "noise", to = "alert" } } },
  alert = { transitions = { { on = "calm", to = "patrol" } } },
} }`,
		"guard_v2.lua": `local ai = require("luaai")
return ai.fsm { initial = "patrol", context = { seen = false, stamina = 10 }, renamed = { alert = "alarm" }, states = {
  patrol = { transitions = { { on = "noise", to = "alarm" } } },
  alarm = { transitions = { { on = "calm", to = "patrol" } } },
} }`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	const setup = `local ai = require("luaai")
local function alerted()
  local g = ai.spawn("guard.lua")
  g:send("noise") g:tick(0.1)
  assert.are.equal("alert", g:state())
  return g
end
`
	for _, tc := range []struct{ name, body string }{
		{"a reload ends with its test", `
  alerted()
  reload("guard.lua", { file = "guard_v2.lua" })
end)
it("spawns the script as it was", function()
  alerted()`},
		{"a renamed state keeps its agents", `
  local g, other = alerted(), ai.spawn("guard.lua")
  local r = reload("guard.lua", { file = "guard_v2.lua" })
  assert.are.same({ ok = true, added = { "stamina" }, resumed = 0, vanished = {}, moved = 0 }, r)
  assert.are.equal("alarm", g:state())
  assert.are.equal(10, g.ctx.stamina)
  assert.are.equal("patrol", other:state())
  g:send("calm") g:tick(0.1)
  assert.are.equal("patrol", g:state())`},
		{"a state gone sends its agents to the initial state", `
  local g = alerted()
  local r = reload(g, [[local ai = require("luaai")
return ai.fsm { initial = "patrol", states = { patrol = {} } }]])
  assert.is_true(r.ok)
  assert.are.same({ "alert" }, r.vanished)
  assert.are.equal(1, r.moved)
  assert.are.equal("patrol", g:state())`},
		{"later spawns get the new version", `
  alerted()
  reload("guard.lua", { file = "guard_v2.lua" })
  local g = ai.spawn("guard.lua")
  g:send("noise") g:tick(0.1)
  assert.are.equal("alarm", g:state())`},
		{"the file read again changes nothing", `
  local g = alerted()
  assert.are.same({ ok = true, added = {}, resumed = 0, vanished = {}, moved = 0 }, reload("guard.lua"))
  assert.are.equal("alert", g:state())`},
		{"a broken version is refused and the old one runs on", `
  local g = alerted()
  local r = reload("guard.lua", { source = "return ai.fsm {" })
  assert.is_false(r.ok)
  assert.matches("guard.lua:1:", r.error, 1, true)
  g:send("calm") g:tick(0.1)
  assert.are.equal("patrol", g:state())`},
		{"a script nothing was spawned from is named", `
  assert.has_error(function() reload("guard_v2.lua") end, "no agent was spawned from it yet")`},
		{"a behaviour built in the test needs its source", `
  local g = ai.spawn(ai.fsm { initial = "a", states = { a = {} } })
  assert.has_error(function() reload(g) end, "give the new source")`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := setup + "it(" + strconv.Quote(tc.name) + ", function()" + tc.body + "\nend)\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "reload_test.lua"), []byte(spec), 0o644))
			code, stdout, stderr := cli("test", filepath.Join(dir, "reload_test.lua"))
			require.Equal(t, 0, code, "%s%s", stdout, stderr)
			require.Regexp(t, `\d passed, 0 failed\n`, stdout)
		})
	}
}
