package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	junit "github.com/joshdk/go-junit"
	"github.com/stretchr/testify/require"
)

// The mod a modder wrote: a guard (an HFSM whose investigate state, pushed
// over patrol, wrongly leaves with to, so combat's later to = "patrol" is
// refused), villagers (utility with curves) that flee on the guard's alarm,
// a boss (a tree inside regions, with steps) and a busted-style spec.
var modScripts = []string{"guard.lua", "villager.lua", "boss.lua"}

// modCopy copies testdata/mod into a fresh folder, makes it the working
// folder (as a modder runs the tools from the mod's folder) and returns it.
func modCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir("testdata/mod")
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/mod", e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
	}
	t.Chdir(dir)
	return dir
}

// lineOf returns the 1-based line of file's only line containing text.
func lineOf(t *testing.T, file, text string) int {
	t.Helper()
	at := 0
	for i, l := range strings.Split(readText(t, file), "\n") {
		if strings.Contains(l, text) {
			require.Zero(t, at, "%q is on more than one line of %s", text, file)
			at = i + 1
		}
	}
	require.NotZero(t, at, "%q is not in %s", text, file)
	return at
}

var reachedPart = regexp.MustCompile(`([a-z ]+) (\d+)/(\d+)`)

// requireReachedAll checks that an explore report has want "reached:" lines
// (one for each script) and that each counts every part as reached.
func requireReachedAll(t *testing.T, report string, want int) {
	t.Helper()
	var got int
	for _, l := range lines(report) {
		rest, ok := strings.CutPrefix(l, "reached: ")
		if !ok {
			continue
		}
		got++
		parts := reachedPart.FindAllStringSubmatch(rest, -1)
		require.NotEmpty(t, parts, l)
		for _, p := range parts {
			require.Equal(t, p[3], p[2], "%s: not every %s reached", l, strings.TrimSpace(p[1]))
			n, err := strconv.Atoi(p[3])
			require.NoError(t, err)
			require.Positive(t, n, l)
		}
		require.Contains(t, rest, "states ", l)
	}
	require.Equal(t, want, got, report)
	require.NotContains(t, report, "never reached", report)
}

// refusalHint is what the refused transition's message must say: the
// paused state, where it was pushed over, and the fix (pop).
func requireRefusalHint(t *testing.T, msg string, pushLine int) {
	t.Helper()
	require.Contains(t, msg, `"patrol" is paused below "combat"`)
	require.Contains(t, msg, fmt.Sprintf("pushed over it at guard.lua:%d", pushLine))
	require.Contains(t, msg, `leave a pushed state with pop = true (or ai.pop()) to resume "patrol"`)
}

func TestProofMod(t *testing.T) {
	dir := modCopy(t)
	pushLine := lineOf(t, "guard.lua", `{ push = "investigate"`)
	leaveLine := lineOf(t, "guard.lua", `{ to = "alert"`)
	refusedLine := lineOf(t, "guard.lua", `{ to = "patrol"`)
	refusedAt := fmt.Sprintf("guard.lua:%d: ", refusedLine)

	t.Run("explore each script reaches every state", func(t *testing.T) {
		for _, script := range modScripts {
			code, stdout, stderr := cli("explore", script, "--seconds", "3600", "--runs", "300", "--seed", "1", "--out", t.TempDir())
			want := exitOK
			if script == "guard.lua" {
				want = exitFail // the stranded guard
				require.Contains(t, stdout, refusedAt, stdout)
			}
			require.Equal(t, want, code, "%s: %s%s", script, stdout, stderr)
			require.Contains(t, stdout, "explored "+script+": 300 input sequences")
			requireReachedAll(t, stdout, 1)
		}
	})

	t.Run("explore the three together reaches every state and finds the stranded guard", func(t *testing.T) {
		args := append([]string{"explore"}, modScripts...)
		args = append(args, "--agents", "1,2,1", "--seconds", "3600", "--runs", "1000", "--seed", "1", "--out", t.TempDir())
		code, stdout, stderr := cli(args...)
		require.Equal(t, exitFail, code, stdout+stderr)
		require.Contains(t, stdout, "with 4 agents")
		require.Contains(t, stdout, "agents: 1 guard.lua, 2-3 villager.lua, 4 boss.lua\n")
		requireReachedAll(t, stdout, 3)
		require.Contains(t, stdout, "1 failure:")
		require.Contains(t, stdout, "1. "+refusedAt)
		require.Contains(t, stdout, "(state combat, transition; agent 1 of guard.lua)")

		// The same exploration as JSON: nothing left unreached, and the
		// finding is the refusal at the transition's line, with the hint.
		code, stdout, stderr = cli(append(args, "--json")...)
		require.Equal(t, exitFail, code, stdout+stderr)
		var rep struct {
			Agents   int `json:"agents"`
			Findings []struct {
				Message string `json:"message"`
				File    string `json:"file"`
				Line    int    `json:"line"`
				State   string `json:"state"`
				Agent   int    `json:"agent"`
				Script  string `json:"script"`
			} `json:"findings"`
			Never []json.RawMessage `json:"never_reached"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
		require.Equal(t, 4, rep.Agents)
		require.Empty(t, rep.Never, stdout)
		require.Len(t, rep.Findings, 1, stdout)
		f := rep.Findings[0]
		require.Equal(t, "guard.lua", f.File)
		require.Equal(t, refusedLine, f.Line)
		require.Equal(t, "combat", f.State)
		require.Equal(t, "guard.lua", f.Script)
		require.Equal(t, 1, f.Agent)
		requireRefusalHint(t, f.Message, pushLine)
	})

	t.Run("run shows the refusal at the transition's line with the pop hint", func(t *testing.T) {
		code, stdout, stderr := cli("run", "guard.lua", "--ticks", "12", "--set", "noise=true")
		require.Equal(t, exitFail, code, "a run with errors fails: %s", stderr)
		require.Contains(t, stdout, "agent 1 patrol -> investigate (push)")
		require.Contains(t, stdout, "agent 1 investigate -> alert\n")
		require.Contains(t, stdout, "agent 1 alert -> combat\n")
		require.NotContains(t, stdout, "-> patrol", "the guard fights forever")
		var refusal string
		for _, l := range lines(stdout + stderr) {
			if strings.Contains(l, " error: "+refusedAt) {
				refusal = l
				break
			}
		}
		require.NotEmpty(t, refusal, "no refusal at %s in:\n%s%s", refusedAt, stdout, stderr)
		require.Contains(t, refusal, `to "patrol": state is already on the stack`)
		require.Contains(t, refusal, "(agent 1, state combat, transition)")
		requireRefusalHint(t, refusal, pushLine)
	})

	t.Run("check warns about the pushed state leaving by to", func(t *testing.T) {
		code, stdout, stderr := cli("check", "guard.lua")
		require.Equal(t, exitOK, code, stderr)
		out := stdout + stderr
		require.Contains(t, out, fmt.Sprintf(`guard.lua:%d: warning: state "investigate" is entered only by push (line %d) and leaves by to alert`, leaveLine, pushLine), out)
		require.Contains(t, out, fmt.Sprintf(`guard.lua:%d: warning: state "combat": transition 1 (to patrol) is refused whenever "patrol" is paused below`, refusedLine), out)
		require.Contains(t, out, "leave a pushed state with pop = true (or ai.pop())")
		require.Contains(t, out, "ok: 1 file, 2 warnings")

		// The other scripts of the mod have no such pitfall: no warning.
		code, stdout, stderr = cli("check", "villager.lua", "boss.lua")
		require.Equal(t, exitOK, code, stderr)
		require.Equal(t, "ok: 2 files\n", stdout+stderr)
	})

	t.Run("the three-script run records and replays; an edit is named", func(t *testing.T) {
		rec := filepath.Join(dir, "game.rec")
		const ticks = "30"
		args := append([]string{"run"}, modScripts...)
		code, stdout, stderr := cli(append(args, "--agents", "1,2,1", "--ticks", ticks, "--set", "noise=true", "--record", rec)...)
		require.Equal(t, exitFail, code, "the stranded guard's errors fail the run: %s", stderr)
		// The guard's alarm reaches both villagers, found by ai.agents.
		flee := regexp.MustCompile(`(?m)^tick (\d+) agent 2 life -> flee$`).FindStringSubmatch(stdout)
		require.NotNil(t, flee, stdout)
		require.Regexp(t, `(?m)^tick `+flee[1]+` agent 3 life -> flee$`, stdout)
		require.NotRegexp(t, `(?m)^tick \d+ agent 4 .*-> flee`, stdout, "the boss is no villager")
		require.FileExists(t, rec)

		code, stdout, stderr = cli("replay", rec)
		require.Equal(t, exitOK, code, stderr)
		require.Equal(t, "identical for "+ticks+" ticks\n", stdout)

		// The villager's fear changes where the alarm arrives: the replay
		// names that tick, the first villager and villager.lua.
		villager := filepath.Join(dir, "villager.lua")
		src := readText(t, villager)
		edited := strings.Replace(src, "alarm.level * 0.4", "alarm.level * 0.3", 1)
		require.NotEqual(t, src, edited)
		require.NoError(t, os.WriteFile(villager, []byte(edited), 0o644))
		code, stdout, stderr = cli("replay", rec)
		require.Equal(t, exitFail, code, stdout+stderr)
		require.Contains(t, stderr, "villager.lua differs from the recorded version")
		require.NotContains(t, stderr, "guard.lua differs")
		require.NotContains(t, stderr, "boss.lua differs")
		require.Regexp(t, `^differs at tick `+flee[1]+` agent 2 \(villager\.lua\) ctx\.fear: recorded 0\.8, now 0\.6`, stdout)
	})

	t.Run("the spec's junit output is read by a junit library", func(t *testing.T) {
		spec := "mod_test.lua"
		its := len(regexp.MustCompile(`(?m)^\s*it\(`).FindAllString(readText(t, spec), -1))
		require.GreaterOrEqual(t, its, 3)
		code, stdout, stderr := cli("test", "-o", "junit", spec)
		require.Equal(t, exitOK, code, stdout+stderr)
		suites, err := junit.Ingest([]byte(stdout))
		require.NoError(t, err, stdout)
		require.Len(t, suites, 1, stdout)
		require.Equal(t, its, suites[0].Totals.Tests, stdout)
		require.Equal(t, its, suites[0].Totals.Passed, stdout)
		for _, c := range suites[0].Tests {
			require.True(t, strings.HasPrefix(c.Name, "mod "), c.Name)
			require.Equal(t, junit.StatusPassed, c.Status, c.Name)
		}
	})
}
