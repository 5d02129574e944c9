package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output of luaai graph and luaai test --coverage")

// graphScripts are the behaviours drawn into golden files: every shipped
// script and the fixtures in testdata/graph.
func graphScripts(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pattern := range []string{"../../scripts/*.lua", "testdata/graph/*.lua"} {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.lua") {
				out = append(out, f)
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestGraphGolden draws every script in both formats and compares with
// testdata/golden/<name>.dot and .mmd (go test -run TestGraphGolden -update
// rewrites them). When Graphviz is installed, every DOT output must render.
func TestGraphGolden(t *testing.T) {
	dotPath, _ := exec.LookPath("dot")
	if dotPath == "" {
		t.Log("Graphviz dot not on PATH: the DOT output is not rendered")
	}
	for _, script := range graphScripts(t) {
		base := strings.TrimSuffix(filepath.Base(script), ".lua")
		for _, f := range []struct{ format, ext string }{{"dot", ".dot"}, {"mermaid", ".mmd"}} {
			t.Run(base+f.ext, func(t *testing.T) {
				code, stdout, stderr := luaai("graph", script, "--format", f.format)
				require.Equal(t, 0, code, stderr)
				require.Empty(t, stderr)
				golden := filepath.Join("testdata", "golden", base+f.ext)
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
					require.NoError(t, os.WriteFile(golden, []byte(stdout), 0o644))
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "run go test ./cmd/luaai -run TestGraphGolden -update")
				require.Equal(t, string(want), stdout, "golden %s is stale: rerun with -update and review the diff", golden)

				_, again, _ := luaai("graph", script, "--format", f.format)
				require.Equal(t, stdout, again, "output must be deterministic")

				if f.format == "dot" && dotPath != "" {
					cmd := exec.Command(dotPath, "-Tsvg")
					cmd.Stdin = strings.NewReader(stdout)
					var svg, errOut bytes.Buffer
					cmd.Stdout, cmd.Stderr = &svg, &errOut
					require.NoError(t, cmd.Run(), "dot -Tsvg refused the output:\n%s", errOut.String())
					require.Contains(t, svg.String(), "<svg")
					require.NotContains(t, errOut.String(), "Error", "dot: %s", errOut.String())
				}
			})
		}
	}
}

// The default format is DOT.
func TestGraphDefaultFormat(t *testing.T) {
	code, dot, _ := luaai("graph", "../../scripts/guard.lua")
	require.Equal(t, 0, code)
	_, explicit, _ := luaai("graph", "--format", "dot", "../../scripts/guard.lua")
	require.Equal(t, explicit, dot)
	require.True(t, strings.Contains(dot, "digraph"), dot)
}

func TestGraphErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no script", []string{"graph"}, 2, "luaai graph: missing SCRIPT"},
		{"two scripts", []string{"graph", "a.lua", "b.lua"}, 2, "one SCRIPT at a time"},
		{"unknown format", []string{"graph", "../../scripts/guard.lua", "--format", "png"}, 2, `--format must be dot or mermaid, got "png"`},
		{"unknown flag", []string{"graph", "--bogus"}, 2, "luaai graph: unknown flag --bogus"},
		{"does not load", []string{"graph", "testdata/invalid.lua"}, 1, "testdata/invalid.lua:6: state \"a\": transition to \"nowhere\""},
		{"missing file", []string{"graph", "testdata/graph/nope.lua"}, 1, "testdata/graph/nope.lua: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := luaai(tt.args...)
			require.Equal(t, tt.code, code, stderr)
			require.Empty(t, stdout)
			require.Contains(t, stderr, tt.stderr)
		})
	}
	code, stdout, _ := luaai("help", "graph")
	require.Equal(t, 0, code)
	require.Equal(t, graphUsage, stdout)
}

// graph --coverage greys out (dashed) the parts a coverage file says
// never ran, in both formats; a file that is no coverage file, or does
// not cover the script, is an error naming the flag.
func TestGraphCoverage(t *testing.T) {
	script := "../../explore/testdata/deadend.lua"
	cov := filepath.Join(t.TempDir(), "cov.json")
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run([]string{"explore", script, "--seconds", "3600", "--runs", "2000", "--coverage", cov, "--out", t.TempDir()}, &out, &errOut), errOut.String())

	out.Reset()
	require.Equal(t, exitOK, run([]string{"graph", script, "--coverage", cov}, &out, &errOut), errOut.String())
	var grey []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "gray60") {
			grey = append(grey, strings.Fields(l)[0])
		}
	}
	require.Equal(t, []string{`"alarm[selector.action#2]"`, `"broken"`, `"shut"`}, grey) // the node, the state, the edge from shut

	out.Reset()
	require.Equal(t, exitOK, run([]string{"graph", script, "--coverage", cov, "--format", "mermaid"}, &out, &errOut), errOut.String())
	require.Contains(t, out.String(), "shut --> broken : when fn@../../explore/testdata/deadend.lua#58;13, (never)\n")
	require.Contains(t, out.String(), "  class broken never\n  class alarm_selector_action_2 never\n")

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{"), 0o644))
	other := filepath.Join(t.TempDir(), "other.json")
	require.NoError(t, os.WriteFile(other, []byte(`[{"file":"a.lua","items":[]},{"file":"b.lua","items":[]}]`), 0o644))
	for file, want := range map[string]string{
		bad:   "--coverage " + bad + ": not a coverage file",
		other: "no coverage of " + script + " in it (it covers a.lua, b.lua)",
	} {
		errOut.Reset()
		require.Equal(t, exitFail, run([]string{"graph", script, "--coverage", file}, &out, &errOut))
		require.Contains(t, errOut.String(), want)
	}
}
