package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
		{[]string{"explore", "a.lua", "b.lua"}, exitUsage, "one SCRIPT at a time"},
		{[]string{"explore", "x.lua", "--agents", "0"}, exitUsage, "--agents must be from 1 to 64, got 0"},
		{[]string{"explore", "x.lua", "--seconds", "0"}, exitUsage, "--seconds must be a number of seconds above 0"},
		{[]string{"explore", "x.lua", "--runs", "-1"}, exitUsage, "--runs must be 0 or more"},
		{[]string{"explore", "x.lua", "--out", "/no/such/folder"}, exitUsage, "--out /no/such/folder: not a folder"},
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
