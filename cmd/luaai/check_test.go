package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// luaai runs the command line and returns the exit code, stdout and stderr.
func luaai(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // exact
		stderr string // contained
	}{
		{
			name:   "clean: ok and the count",
			args:   []string{"check", "testdata/check/clean.lua"},
			stdout: "ok: 1 file\n",
		},
		{
			name: "warnings only: exit 0",
			args: []string{"check", "testdata/check/warnings.lua"},
			stdout: `testdata/check/warnings.lua:4: warning: ctx.stamina is read, but no context default declares it and nothing in the script writes it; if the game sets it, give it a default
testdata/check/warnings.lua:9: warning: ai.fsm: unknown field "colour"
testdata/check/warnings.lua:14: warning: state "idle": transition 2 (to flee) can never fire: transition 1 (to walk) always fires first
testdata/check/warnings.lua:20: warning: state "walk": transition 2 (to flee) never fires: its when is false
testdata/check/warnings.lua:22: warning: state "walk": transition 4 (to idle): when reads ctx.enemy, but "enemy" is in no context defaults (a typo, or set by the game?)
testdata/check/warnings.lua:27: warning: state "secret": no transition reaches it (only ai.push/ai.replace could)
testdata/check/warnings.lua:28: warning: state "lair": no transition reaches it from the initial state, only from secret, which nothing reaches (only ai.push/ai.replace could)
testdata/check/warnings.lua:29: warning: state "camp": no transition reaches it (only ai.push/ai.replace could)
testdata/check/warnings.lua:30: warning: state "camp.rest": score reads ctx.fatigue, but "fatigue" is in no context defaults (a typo, or set by the game?)
ok: 1 file, 9 warnings
`,
		},
		{
			name: "every definition error, exit 1",
			args: []string{"check", "testdata/check/errors.lua"},
			code: 1,
			stdout: `testdata/check/errors.lua:4: ai.fsm: initial state "missing" is not one of its states (a, b)
testdata/check/errors.lua:7: state "a": hook enter must be a function, got the number 3
testdata/check/errors.lua:7: state "a": transition 1: needs exactly one of to, push, pop (or only run, for an internal transition)
testdata/check/errors.lua:8: state "b": transition to "nowhere": no such state in this machine (a, b)
`,
		},
		{
			name:   "a utility child with transitions is an error",
			args:   []string{"check", "testdata/check/utility_transitions.lua"},
			code:   1,
			stdout: "testdata/check/utility_transitions.lua:8: state \"a\": children of a utility machine take no transitions\n",
		},
		{
			name:   "a script that raises while loading",
			args:   []string{"check", "testdata/check/runtime_error.lua"},
			code:   1,
			stdout: "testdata/check/runtime_error.lua:4: attempt to index a non-table object(nil) with key 'first'\n",
		},
		{
			name:   "syntax error",
			args:   []string{"check", "testdata/syntax.lua"},
			code:   1,
			stdout: "testdata/syntax.lua:5: ',' or '}' expected near 'states' (a comma missing after line 4?)\n",
		},
		{
			name:   "missing file",
			args:   []string{"check", "testdata/check/nope.lua"},
			code:   1,
			stdout: "testdata/check/nope.lua: no such file or directory\n",
		},
		{
			name: "several scripts: each reported, exit 1 if any has an error",
			args: []string{"check", "testdata/check/clean.lua", "testdata/invalid.lua", "testdata/check/utility_transitions.lua"},
			code: 1,
			stdout: `testdata/invalid.lua:6: state "a": transition to "nowhere": no such state in this machine (a)
testdata/check/utility_transitions.lua:8: state "a": children of a utility machine take no transitions
`,
		},
		{
			name: "flags after the scripts are still flags",
			args: []string{"check", "testdata/check/clean.lua", "--bogus"},
			code: 2, stderr: "luaai check: unknown flag --bogus\nRun 'luaai check --help' for the usage.",
		},
		{name: "no script", args: []string{"check"}, code: 2, stderr: "luaai check: missing SCRIPT"},
		{name: "help", args: []string{"check", "-h"}, stdout: checkUsage},
		{name: "luaai help check", args: []string{"help", "check"}, stdout: checkUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := luaai(tt.args...)
			require.Equal(t, tt.code, code, "stdout: %s\nstderr: %s", stdout, stderr)
			require.Equal(t, tt.stdout, stdout, "stderr: %s", stderr)
			if tt.stderr != "" {
				require.Contains(t, stderr, tt.stderr)
			} else {
				require.Empty(t, stderr)
			}
		})
	}
}

// Every shipped behaviour, and its tests (only compiled), checks clean.
func TestCheckShippedScripts(t *testing.T) {
	scripts, err := filepath.Glob("../../scripts/*.lua")
	require.NoError(t, err)
	require.NotEmpty(t, scripts)
	code, stdout, stderr := luaai(append([]string{"check"}, scripts...)...)
	require.Equal(t, 0, code, "stderr: %s", stderr)
	require.Equal(t, fmt.Sprintf("ok: %d files\n", len(scripts)), stdout)
	require.Empty(t, stderr)
}

// A broken test file is caught by check (syntax) without being run.
func TestCheckTestFileIsCompiledOnly(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good_test.lua")
	bad := filepath.Join(dir, "bad_test.lua")
	writeScript(t, good, `describe("x", function() it("y", function() assert.is_true(true) end) end)`)
	writeScript(t, bad, "describe(\"x\", function()\n  it(\"y\", function() end\nend)\n")
	code, stdout, _ := luaai("check", good)
	require.Equal(t, 0, code, stdout)
	require.Equal(t, "ok: 1 file\n", stdout)
	code, stdout, _ = luaai("check", bad)
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(stdout, bad+":"), stdout)
}

// check resolves require like run: from the script's folder.
func TestCheckRequiresModules(t *testing.T) {
	dir := t.TempDir()
	writeScript(t, filepath.Join(dir, "parts.lua"), `local ai = require("luaai")
return { idle = { transitions = { { to = "gone", when = ai.is("typo") } } }, gone = {} }`)
	writeScript(t, filepath.Join(dir, "main.lua"), `local ai = require("luaai")
local parts = require("parts")
return ai.fsm { initial = "idle", context = { ok = true }, states = parts }`)
	code, stdout, stderr := luaai("check", filepath.Join(dir, "main.lua"))
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, `warning: state "idle": transition 1 (to gone): when reads ctx.typo`)
}

func writeScript(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// luaai check takes folders (every .lua file below, in name order) and
// checks busted's *_spec.lua files as test files, compiled only; a module
// found in a folder is compiled, not refused for returning no machine.
func TestCheckFoldersAndSpecs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	}
	write("guard.lua", `local ai = require("luaai")
local util = require("lib.util")
return ai.fsm { initial = "a", states = { a = { update = function(ctx) util.step(ctx) end } } }`)
	write("lib/util.lua", `local M = {} function M.step(ctx) ctx.n = (ctx.n or 0) + 1 end return M`)
	write("spec/guard_spec.lua", `describe("guard", function() it("loads", function() assert.is_true(true) end) end)`)
	write("testdata/broken.lua", `return {`) // skipped, as luaai test skips it
	code, stdout, stderr := cli("check", dir)
	require.Equal(t, exitOK, code, stdout+stderr)
	require.Equal(t, "ok: 3 files\n", stdout)

	code, stdout, _ = cli("check", filepath.Join(dir, "spec", "guard_spec.lua"))
	require.Equal(t, exitOK, code, stdout)

	write("spec/bad_spec.lua", "describe(\"x\", function()\n  it(\"y\", function() end\nend)")
	code, stdout, _ = cli("check", dir)
	require.Equal(t, exitFail, code)
	require.Contains(t, stdout, filepath.Join(dir, "spec", "bad_spec.lua")+":3:")

	empty := t.TempDir()
	code, stdout, _ = cli("check", empty)
	require.Equal(t, exitFail, code)
	require.Contains(t, stdout, empty+": no .lua files in this folder")
}

// A module that forgets its return: the state it should have been says
// so, and a definition error names the value with its type.
func TestCheckModuleWithoutReturn(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "guard.lua"), []byte(`local ai = require("luaai")
local m = ai.fsm { initial = "a", states = { a = {} } }
local _ = m
`), 0o644))
	squad := filepath.Join(dir, "squad.lua")
	require.NoError(t, os.WriteFile(squad, []byte(`local ai = require("luaai")
local guard = require("guard")
return ai.fsm { initial = "g", states = { g = guard, h = { every = "2" } } }
`), 0o644))
	code, stdout, stderr := cli("check", squad)
	require.Equal(t, 1, code)
	stderr += stdout
	require.Contains(t, stderr, squad+`:3: state "g": expected a table, ai.fsm{}, ai.utility{}, ai.regions{} or ai.tree{}, got the boolean true (require("guard") returned true: does guard.lua end with return ai.fsm{…}?)`)
	require.Contains(t, stderr, `every must be a non-negative number of seconds, got the string "2"`)
}

// A definition error about a state's field points at that field's line,
// not at the state's key.
func TestCheckPointsAtTheField(t *testing.T) {
	script := filepath.Join(t.TempDir(), "fields.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "a",
  states = {
    a = {
      update = function() end,
      every = "2",
      enter = 3,
    },
  },
}
`), 0o644))
	code, stdout, stderr := cli("check", script)
	require.Equal(t, 1, code)
	out := stdout + stderr
	require.Contains(t, out, script+`:7: state "a": every must be a non-negative number of seconds, got the string "2"`)
	require.Contains(t, out, script+`:8: state "a": hook enter must be a function, got the number 3`)
}
