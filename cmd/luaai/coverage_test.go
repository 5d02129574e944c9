package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// --coverage says which parts of the behaviours the tests ran never ran,
// by line, summed over the test files; --coverage=FILE writes them as
// JSON too.
func TestTestCoverage(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "door.lua"), []byte(`local ai = require("luaai")
return ai.fsm { initial = "closed", states = {
  closed = { transitions = { { to = "open", on = "knock" } } },
  open = { transitions = { { to = "closed", on = "slam" } } },
  broken = {},
} }
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "door_test.lua"), []byte(`local ai = require("luaai")
describe("door", function()
  it("opens", function()
    local d = ai.spawn("door.lua")
    d:send("knock")
    d:tick(0.1)
    assert.are.equal("open", d:state())
  end)
end)
`), 0o644))
	out := filepath.Join(dir, "cov.json")
	code, stdout, stderr := cli("test", "--coverage="+out, dir)
	require.Equal(t, 0, code, stdout+stderr)
	door := filepath.Join(dir, "door.lua")
	require.Contains(t, stdout, "coverage:\n  "+door+": states 2/3, transitions 1/2\n")
	require.Contains(t, stdout, "    never: state broken ("+door+":5)\n")
	require.Contains(t, stdout, "    never: transition open: to closed on slam ("+door+":4)\n")

	data, err := os.ReadFile(out)
	require.NoError(t, err)
	var got []struct {
		File  string
		Items []struct {
			Kind, Name string
			Line, Hits int
		}
	}
	require.NoError(t, json.Unmarshal(data, &got))
	require.Len(t, got, 1)
	require.Equal(t, door, got[0].File)
	require.Len(t, got[0].Items, 5)

	code, stdout, _ = cli("test", dir)
	require.Equal(t, 0, code)
	require.NotContains(t, stdout, "coverage:", "only when asked")
}

// The coverage of the shipped scripts by their own tests, as a golden
// file (go test -run TestShippedCoverageGolden -update rewrites it).
func TestShippedCoverageGolden(t *testing.T) {
	code, stdout, stderr := cli("test", "--coverage", "../../scripts")
	require.Equal(t, 0, code, stderr)
	i := strings.Index(stdout, "coverage:\n")
	require.GreaterOrEqual(t, i, 0, stdout)
	got := stdout[i:]
	golden := filepath.Join("testdata", "golden", "coverage.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), got)
}
