package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bustedDiffers lists the tests whose outcome under luaai test may differ
// from real busted's, by library and full name, with the reason: what a
// luaai script cannot use.
var bustedDiffers = map[string]map[string]string{
	"binaryheap": {},
	"fifo":       {},
	"inspect": {
		"inspect tables metatables does not allow collecting weak tables while they are being inspected": "calls collectgarbage, which luaai scripts do not have",
	},
	"mediator": {},
	"order":    {}, // when describe bodies run; callable tables in assertions
	"say":      {},
	"semver":   {},
	"insulate": {}, // insulate, expose, spec/test, luassert and say
	"i18n": {
		"i18n loadFile Loads a bunch of stuff":        "calls loadfile, which luaai scripts do not have",
		"i18n set/getLocale does NOT modify loadFile": "calls loadfile, which luaai scripts do not have",
	},
}

// outcomeLine reads luaai test -v's lines: "ok file:line: name",
// "FAIL file:line: name", "PENDING file:line: name".
var outcomeLine = regexp.MustCompile(`^(ok|FAIL|PENDING) [^:]+:\d+: (.*)$`)

// TestBustedAgrees runs the spec folders of the shipped libraries with real
// busted (Debian's lua-busted, on PUC Lua 5.1) and with luaai test, and
// requires the same tests with the same outcomes, but for the listed ones.
// Without busted it is skipped, unless LUAAI_REQUIRE_BUSTED is set (as
// .ci/run does).
func TestBustedAgrees(t *testing.T) {
	busted, err := exec.LookPath("busted")
	if err != nil {
		if os.Getenv("LUAAI_REQUIRE_BUSTED") != "" {
			t.Fatal("no busted found, and LUAAI_REQUIRE_BUSTED is set (apt-get install lua-busted)")
		}
		t.Skip("no busted found: apt-get install lua-busted (.ci/run installs it)")
	}
	libs, err := filepath.Abs("testdata/libs")
	require.NoError(t, err)
	var names []string
	for name := range bustedDiffers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(libs, name)
			t.Chdir(dir)
			want := bustedOutcomes(t, busted, dir)
			require.NotEmpty(t, want, "busted ran no test")

			code, stdout, stderr := cli("test", "-v", "spec")
			_ = code
			got := map[string]string{}
			for _, l := range strings.Split(stdout, "\n") {
				if m := outcomeLine.FindStringSubmatch(l); m != nil {
					got[m[2]] = map[string]string{"ok": "pass", "FAIL": "fail", "PENDING": "pending"}[m[1]]
				}
			}
			for test, outcome := range want {
				if why, ok := bustedDiffers[name][test]; ok {
					t.Logf("%s: %q differs on purpose: %s", name, test, why)
					continue
				}
				require.Equal(t, outcome, got[test], "%s: %q: busted says %s, luaai test %q\n%.3000s%.2000s", name, test, outcome, got[test], stdout, stderr)
			}
			for test := range got {
				_, known := want[test]
				require.True(t, known, "%s: luaai test ran %q, which busted did not", name, test)
			}
			// -o json is busted's json: read as busted's is, it says the same.
			_, jsonOut, _ := cli("test", "-o", "json", "spec")
			require.Equal(t, got, jsonOutcomes(t, []byte(jsonOut)), "%s: luaai test -o json", name)
		})
	}
}

// bustedOutcomes runs busted on dir's spec folder and returns each test's
// outcome by full name: pass, fail (a failure or an error) or pending.
func bustedOutcomes(t *testing.T, busted, dir string) map[string]string {
	// A library's .busted may ask for coverage, which needs LuaCov.
	cmd := exec.Command(busted, "--no-coverage", "-o", "json", "spec")
	cmd.Dir = dir
	out, _ := cmd.Output() // exit 1 when a test fails
	return jsonOutcomes(t, out)
}

// jsonOutcomes reads busted's json output (busted -o json, luaai test -o
// json): each test's outcome by full name.
func jsonOutcomes(t *testing.T, out []byte) map[string]string {
	type entry struct {
		Name string `json:"name"`
	}
	var res struct {
		Successes, Failures, Errors, Pendings []entry
	}
	require.NoError(t, json.Unmarshal(out, &res), "busted's JSON: %.500s", out)
	outcomes := map[string]string{}
	for outcome, es := range map[string][]entry{"pass": res.Successes, "fail": append(res.Failures, res.Errors...), "pending": res.Pendings} {
		for _, e := range es {
			outcomes[e.Name] = outcome
		}
	}
	return outcomes
}
