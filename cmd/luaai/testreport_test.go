package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"
	"github.com/stretchr/testify/require"
)

// reportSpecs writes a folder whose specs pass, fail, raise, wait and
// fail to load, and returns it.
func reportSpecs(t *testing.T) string {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a_spec.lua"), []byte(`describe("a", function()
  it("passes", function() assert.are.equal(1, 1) end)
  it("fails", function() assert.are.equal(1, 2) end)
  it("raises <&>", function() error("boom") end)
  pending("waits")
end)`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b_spec.lua"), []byte(`require("missing_helper")
it("never runs", function() end)`), 0o644))
	return dir
}

// luaai test -o names busted's output handlers: the report is stdout's,
// the text report goes to stderr, and each is read back by what reads it
// (JUnit by a JUnit library, TAP by its grammar, json as busted's json).
func TestTestOutputs(t *testing.T) {
	dir := reportSpecs(t)
	a, b := filepath.Join(dir, "a_spec.lua"), filepath.Join(dir, "b_spec.lua")
	want := map[string]string{ // name: outcome, as junit names them
		"a passes": "passed", "a fails": "failed", "a raises <&>": "error", "a waits": "skipped", b: "error",
	}
	for _, tc := range []struct {
		args  []string
		check func(t *testing.T, stdout string)
	}{
		{[]string{"-o", "junit"}, func(t *testing.T, stdout string) {
			suites, err := junit.Ingest([]byte(stdout))
			require.NoError(t, err)
			require.Len(t, suites, 2, stdout)
			got := map[string]string{}
			for _, s := range suites {
				for _, c := range s.Tests {
					got[c.Name] = string(c.Status)
					require.Equal(t, s.Name, c.Properties["file"], "each test's file attribute is its suite's")
				}
			}
			require.Equal(t, want, got, stdout)
			require.Equal(t, a, suites[0].Name)
			require.Equal(t, junit.Totals{Tests: 4, Passed: 1, Failed: 1, Error: 1, Skipped: 1, Duration: suites[0].Totals.Duration}, suites[0].Totals)
			for _, c := range suites[0].Tests {
				if c.Name == "a fails" {
					require.Equal(t, "expected: 1", c.Message, "the message is the first line of what failed")
					require.Contains(t, c.Error.Error(), "actual:   2")
				}
			}
			// The counts on the elements agree with the testcases.
			require.Regexp(t, `<testsuites name="luaai test" tests="5" failures="1" errors="2" skipped="1"`, stdout)
			require.Regexp(t, `<testsuite name="`+regexp.QuoteMeta(a)+`" tests="4" failures="1" errors="1" skipped="1"`, stdout)
		}},
		{[]string{"--output", "TAP"}, func(t *testing.T, stdout string) {
			ls := lines(stdout)
			require.Equal(t, "1..5", ls[len(ls)-1], "the plan comes last")
			tap := regexp.MustCompile(`^(ok|not ok) (\d+) - (# SKIP )?(.*)$`)
			got, n := map[string]string{}, 0
			for _, l := range ls[:len(ls)-1] {
				if strings.HasPrefix(l, "# ") {
					continue
				}
				m := tap.FindStringSubmatch(l)
				require.NotNil(t, m, "not a TAP line: %q", l)
				n++
				require.Equal(t, strconv.Itoa(n), m[2])
				outcome := map[bool]string{true: "passed", false: "failed"}[m[1] == "ok"]
				if m[3] != "" {
					outcome = "skipped"
				}
				got[m[4]] = outcome
			}
			require.Equal(t, map[string]string{"a passes": "passed", "a fails": "failed", "a raises <&>": "failed", "a waits": "skipped", b: "failed"}, got)
			require.Contains(t, stdout, "# Failure message: boom\n")
		}},
		{[]string{"-o", "json"}, func(t *testing.T, stdout string) {
			type entry struct {
				Name    string `json:"name"`
				Message string `json:"message"`
				Trace   struct {
					ShortSrc    string `json:"short_src"`
					CurrentLine int    `json:"currentline"`
				} `json:"trace"`
			}
			var res struct{ Successes, Failures, Errors, Pendings []entry }
			require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
			names := func(es []entry) []string {
				var out []string
				for _, e := range es {
					out = append(out, e.Name)
				}
				sort.Strings(out)
				return out
			}
			require.Equal(t, []string{"a passes"}, names(res.Successes))
			require.Equal(t, []string{"a fails"}, names(res.Failures))
			require.Equal(t, []string{b, "a raises <&>"}, names(res.Errors))
			require.Equal(t, []string{"a waits"}, names(res.Pendings))
			require.Equal(t, 3, res.Failures[0].Trace.CurrentLine)
			require.Equal(t, a, res.Failures[0].Trace.ShortSrc)
		}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := cli(append([]string{"test"}, append(tc.args, dir)...)...)
			require.Equal(t, 1, code, stderr)
			tc.check(t, stdout)
			require.Contains(t, stderr, "FAIL "+a+":3: a fails", "the text report goes to stderr")
			require.Contains(t, stderr, "1 passed, 3 failed, 1 pending\n")
		})
	}
	t.Run("unknown output", func(t *testing.T) {
		code, _, stderr := cli("test", "-o", "xml", dir)
		require.Equal(t, 2, code)
		require.Contains(t, stderr, `--output "xml": the outputs are junit, TAP, json`)
	})
	t.Run("text output", func(t *testing.T) {
		code, stdout, _ := cli("test", "-o", "plainTerminal", dir)
		require.Equal(t, 1, code)
		require.Contains(t, stdout, "FAIL "+b+":1: "+b+"\n  error: require \"missing_helper\"")
	})
}
