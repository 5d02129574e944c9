package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// inTemp copies a script into a fresh folder and returns its path.
func inTemp(t *testing.T, from string) string {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), filepath.Base(from))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func TestExploreFindsWritesAndTheTestFails(t *testing.T) {
	script := inTemp(t, "../../explore/testdata/timing.lua")
	var out, errOut bytes.Buffer
	code := run([]string{"explore", script, "--seconds", "3600", "--runs", "3000", "--seed", "1"}, &out, &errOut)
	require.Equal(t, exitFail, code, errOut.String())
	text := out.String()
	require.Contains(t, text, "1 failure:")
	require.Contains(t, text, "timing.lua:18: attempt to index a non-table object(boolean) with key 'hits' (state sprung, enter; agent 1)")
	require.Contains(t, text, "inputs: send arm; 20 ticks of 0.1 s; send trigger; 1 tick of 0.1 s")
	require.Contains(t, text, "reached: states 3/3, transitions 4/4")
	testFile := filepath.Join(filepath.Dir(script), "timing_explore_test.lua")
	require.Contains(t, text, "tests: "+testFile)
	require.FileExists(t, testFile)

	out.Reset()
	errOut.Reset()
	code = run([]string{"test", testFile}, &out, &errOut)
	require.Equal(t, exitFail, code)
	require.Contains(t, out.String(), "0 passed, 1 failed")
	require.Contains(t, out.String(), "with key 'hits' (state sprung, enter)")
}

func TestExploreJSON(t *testing.T) {
	script := inTemp(t, "../../explore/testdata/deadend.lua")
	cov := filepath.Join(t.TempDir(), "cov.json")
	var out, errOut bytes.Buffer
	code := run([]string{"explore", script, "--seconds", "3600", "--runs", "2000", "--json", "--coverage", cov}, &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	var rep struct {
		Runs     int               `json:"runs"`
		Stopped  string            `json:"stopped"`
		Findings []json.RawMessage `json:"findings"`
		DeadEnds []struct {
			Path string
			Line int
		} `json:"dead_ends"`
		Never []struct {
			Kind, Name string
		} `json:"never_reached"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	require.Equal(t, 2000, rep.Runs)
	require.Equal(t, "runs", rep.Stopped)
	require.Empty(t, rep.Findings)
	require.Len(t, rep.DeadEnds, 1)
	require.Equal(t, "jammed", rep.DeadEnds[0].Path)
	require.Len(t, rep.Never, 3)
	require.NoFileExists(t, filepath.Join(filepath.Dir(script), "deadend_explore_test.lua"), "nothing failed: no test file")
	data, err := os.ReadFile(cov)
	require.NoError(t, err)
	require.Contains(t, string(data), `"name": "jammed"`)
}

func TestExploreCleanScriptExitsZero(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"explore", "../../scripts/guard.lua", "--seconds", "3600", "--runs", "500"}, &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	require.Contains(t, out.String(), "no failures found")
	require.Contains(t, out.String(), "explored ../../scripts/guard.lua: 500 input sequences")
}

func TestExploreUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"explore"}, exitUsage, "missing SCRIPT"},
		{[]string{"explore", "a.lua", "b.lua", "--agents", "1,2,1"}, exitUsage, "--agents gives 3 counts for 2 scripts"},
		{[]string{"explore", "x.lua", "--agents", "0"}, exitUsage, `--agents must be from 1 to 64 (or one such count for each script: 1,2,1), got "0"`},
		{[]string{"explore", "a.lua", "b.lua", "--agents", "1,x"}, exitUsage, `--agents must be from 1 to 64`},
		{[]string{"explore", "a.lua", "b.lua", "--agents", "40,40"}, exitUsage, "64 agents at most in all, got 80"},
		{[]string{"explore", "x.lua", "--seconds", "0"}, exitUsage, "--seconds must be a number of seconds above 0"},
		{[]string{"explore", "x.lua", "--runs", "-1"}, exitUsage, "--runs must be 0 or more"},
		{[]string{"explore", "x.lua", "--out", "explore_test.go"}, exitUsage, "--out explore_test.go: not a folder"},
		{[]string{"explore", "x.lua", "--sedd", "1"}, exitUsage, "--seed"},
		{[]string{"explore", "testdata/syntax.lua", "--runs", "1"}, exitFail, "syntax.lua:"},
		{[]string{"explore", "no_such.lua", "--runs", "1"}, exitFail, "no_such.lua"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			require.Equal(t, c.code, run(c.args, &out, &errOut), errOut.String())
			require.Contains(t, errOut.String(), c.want)
		})
	}
}

// --json gives each failure's inputs as steps a tool can replay, agents
// and agent ids 1-based.
func TestExploreJSONSteps(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"explore", "../../explore/testdata/message.lua", "--agents", "2", "--seconds", "3600", "--runs", "3000", "--seed", "1", "--json", "--out", t.TempDir()}, &out, &errOut)
	require.Equal(t, exitFail, code, errOut.String())
	var rep struct {
		Findings []struct {
			Line   int
			Inputs string
			Steps  []map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	require.Len(t, rep.Findings, 1)
	f := rep.Findings[0]
	require.Equal(t, 33, f.Line)
	require.Equal(t, "set buddy = agent 1's id on agent 2; set lonely = true on agent 2; 2 ticks of 0.1 s", f.Inputs)
	require.Equal(t, []map[string]any{
		{"op": "set", "agent": 2.0, "key": "buddy", "value": map[string]any{"agent": 1.0}},
		{"op": "set", "agent": 2.0, "key": "lonely", "value": true},
		{"op": "tick", "n": 2.0, "dt": 0.1},
	}, f.Steps)
}

// Several scripts explored together, with --agents counting each: the
// report lists which agents run which script and names the failing
// agent's script; --out makes its folder; the test written spawns the
// same agents and fails at its own it line.
func TestExploreSeveralScripts(t *testing.T) {
	dir := t.TempDir()
	guard := filepath.Join(dir, "guard.lua")
	require.NoError(t, os.WriteFile(guard, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  context = { seen = false, villager = false },
  states = {
    patrol = { transitions = { { to = "alarm", when = ai.is("seen") } } },
    alarm = {
      enter = function(ctx)
        if ctx.villager then ai.send_to(ctx.villager, "alarm", { token = ai.random() }) end
      end,
      transitions = { { to = "patrol", after = 2 } },
    },
  },
}`), 0o644))
	villager := filepath.Join(dir, "villager.lua")
	require.NoError(t, os.WriteFile(villager, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "work",
  context = { shelter = false },
  states = {
    work = { transitions = { { to = "flee", on = "alarm", when = function(_, a) return a ~= nil and #tostring(a.token) > 8 end } } },
    flee = {
      enter = function(ctx) ctx.path = ctx.shelter.x end,
      transitions = { { to = "work", after = 1 } },
    },
  },
}`), 0o644))
	// Run from the mod's folder, as a modder does: the tests written in
	// another folder spawn the scripts by their paths from there.
	t.Chdir(dir)
	guard, villager = "guard.lua", "villager.lua"
	out := filepath.Join("new", "tests")
	var stdout, stderr bytes.Buffer
	code := run([]string{"explore", guard, villager, "--agents", "1,2", "--runs", "5000", "--seed", "1", "--out", out}, &stdout, &stderr)
	require.Equal(t, exitFail, code, stderr.String())
	text := stdout.String()
	require.Contains(t, text, "with 3 agents")
	require.Contains(t, text, "agents: 1 guard.lua, 2-3 villager.lua\n")
	require.Contains(t, text, "villager.lua:8: attempt to index a non-table object(boolean) with key 'x' (state flee, enter; agent ")
	require.Contains(t, text, " of villager.lua)")
	require.Contains(t, text, "on agent 1 (guard.lua)")
	testFile := filepath.Join(out, "guard_villager_explore_test.lua")
	require.Contains(t, text, "tests: "+testFile)

	stdout.Reset()
	code = run([]string{"test", testFile}, &stdout, &stderr)
	require.Equal(t, exitFail, code)
	// The failure is reported at a line of its own test, not of a helper.
	src, err := os.ReadFile(testFile)
	require.NoError(t, err)
	lines := strings.Split(string(src), "\n")
	at := strings.TrimPrefix(strings.SplitN(stdout.String(), "\n", 2)[0], "FAIL "+testFile+":")
	n, err := strconv.Atoi(strings.SplitN(at, ":", 2)[0])
	require.NoError(t, err, stdout.String())
	require.Contains(t, lines[n-1], "assert.is_nil(first_error(a", stdout.String())
}
