package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shippedScripts lists the behaviours in scripts/.
func shippedScripts(t *testing.T) []string {
	t.Helper()
	all, err := filepath.Glob("../../scripts/*.lua")
	require.NoError(t, err)
	var out []string
	for _, f := range all {
		if !strings.HasSuffix(f, "_test.lua") {
			out = append(out, f)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestRecordReplayShippedScripts records every shipped script with inputs
// (a send and a set) and replays it unchanged: identical.
func TestRecordReplayShippedScripts(t *testing.T) {
	for i, script := range shippedScripts(t) {
		name := strings.TrimSuffix(filepath.Base(script), ".lua")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			input := filepath.Join(dir, "input.jsonl")
			require.NoError(t, os.WriteFile(input, []byte(`{"tick":5,"agent":2,"send":"noise","payload":1}
{"tick":9,"agent":"*","set":{"zzz_marker":3}}
`), 0o644))
			rec := filepath.Join(dir, name+".rec")
			if i%2 == 0 {
				rec += ".gz"
			}
			code, _, stderr := cli("run", script, "--agents", "3", "--ticks", "40", "--input", input, "--record", rec, "--workers", strconv.Itoa(1+i%2))
			require.Contains(t, []int{exitOK, exitFail}, code, stderr) // a script may report errors on purpose
			code, stdout, stderr := cli("replay", rec, script)
			assert.Equal(t, exitOK, code, stderr)
			assert.Equal(t, "identical for 40 ticks\n", stdout)
			assert.NotContains(t, stderr, "differs from the recorded version")
		})
	}
}

// recordedTicks reads a recording's rows: for each tick, agent and
// top-level context key, the value written there.
func firstTickWith(t *testing.T, file string, agent int, key string, value any) int {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			Tick  int            `json:"tick"`
			Agent int            `json:"agent"`
			Ctx   map[string]any `json:"ctx"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		if l.Agent == agent && l.Ctx[key] == value {
			return l.Tick
		}
	}
	t.Fatalf("%s never holds %s = %v for agent %d", file, key, value, agent)
	return 0
}

// TestReplayReportsAnEdit changes one line of a script after recording:
// the replay names the first tick, agent and field it changed.
func TestReplayReportsAnEdit(t *testing.T) {
	src, err := os.ReadFile("../../scripts/sentry.lua")
	require.NoError(t, err)
	for _, c := range []struct {
		name, from, to string
		want           func(t *testing.T, rec string) string
	}{
		{"an update's arithmetic", "ctx.patrol_updates = ctx.patrol_updates + 1", "ctx.patrol_updates = ctx.patrol_updates + 2", func(t *testing.T, rec string) string {
			tick := firstTickWith(t, rec, 1, "patrol_updates", 1.0)
			return fmt.Sprintf("differs at tick %d agent 1 ctx.patrol_updates: recorded 1, now 2\n", tick)
		}},
		{"a transition's target", `transitions = { { pop = true, after = 2 } }`, `transitions = { { pop = true, after = 1 } }`, func(t *testing.T, rec string) string {
			return `^differs at tick \d+ agent 2 state: recorded go_see_disturbance, now patrolling\n$`
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "sentry.lua")
			require.NoError(t, os.WriteFile(script, src, 0o644))
			input := filepath.Join(dir, "input.jsonl")
			require.NoError(t, os.WriteFile(input, []byte(`{"tick":3,"agent":2,"send":"noise","payload":2}`+"\n"), 0o644))
			rec := filepath.Join(dir, "run.rec")
			code, _, stderr := cli("run", script, "--agents", "2", "--ticks", "60", "--input", input, "--record", rec)
			require.Equal(t, exitOK, code, stderr)
			edited := strings.Replace(string(src), c.from, c.to, 1)
			require.NotEqual(t, string(src), edited, "the edit applies")
			require.NoError(t, os.WriteFile(script, []byte(edited), 0o644))
			code, stdout, stderr := cli("replay", rec)
			assert.Equal(t, exitFail, code)
			assert.Contains(t, stderr, "differs from the recorded version: comparing")
			want := c.want(t, rec)
			if strings.HasPrefix(want, "^") {
				assert.Regexp(t, regexp.MustCompile(want), stdout)
			} else {
				assert.Equal(t, want, stdout)
			}
		})
	}
}

func TestReplayBadRecordings(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.rec")
	code, _, stderr := cli("run", "../../scripts/guard.lua", "--ticks", "5", "--record", good)
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	gz := filepath.Join(dir, "cut.rec.gz")
	{
		f, err := os.Create(gz)
		require.NoError(t, err)
		w := gzip.NewWriter(f)
		w.Write(data)
		w.Close()
		f.Close()
		whole, _ := os.ReadFile(gz)
		require.NoError(t, os.WriteFile(gz, whole[:len(whole)-12], 0o644))
	}
	for _, c := range []struct {
		name, file, want string
		stdout           string
	}{
		{"a script, not a recording", "../../scripts/guard.lua", "guard.lua:1: not a luaai recording", ""},
		{"another format", write("v2.rec", strings.Replace(string(data), `"luaai_recording":1`, `"luaai_recording":2`, 1)), "v2.rec:1: a recording of format 2; this luaai reads format 1", ""},
		{"no end line", write("noend.rec", strings.Join(lines[:len(lines)-1], "")), "noend.rec: truncated after tick 5: it has no end line", "identical for 4 ticks\n"},
		{"a cut gzip", gz, "cut.rec.gz: truncated after tick", "identical for 5 ticks\n"},
		{"a garbled line", write("garbled.rec", lines[0]+lines[1]+"{\"tick\":oops}\n"), "garbled.rec:3: not a recording line", ""},
		{"an unknown field", write("field.rec", lines[0]+`{"tick":1,"lua":"os.exit()"}`+"\n"), `field.rec:2: not a recording line (json: unknown field "lua")`, ""},
		{"ticks out of order", write("order.rec", lines[0]+`{"tick":3,"agent":1,"state":"x"}`+"\n"+`{"tick":2,"agent":1,"state":"x"}`+"\n"), "order.rec:3: tick 2 comes after tick 3", ""},
		{"empty", write("empty.rec", ""), "empty.rec: empty: not a luaai recording", ""},
		{"missing", filepath.Join(dir, "nope.rec"), "nope.rec: no such file", ""},
		{"a folder", dir, "not a regular file", ""},
		{"absurd agents", write("agents.rec", strings.Replace(string(data), `"agents":1`, `"agents":-4`, 1)), "agents -4 is out of range", ""},
		{"a million agents claimed", write("million.rec", strings.Replace(string(data), `"agents":1`, `"agents":1000000`, 1)), "million.rec:1: the header claims 1000000 agents, and tick 0 has rows for 1", ""},
		{"an end far away", write("far.rec", strings.Replace(string(data), `{"end":5}`, `{"end":900000000000}`, 1)), "far.rec: the end line's tick 900000000000 is more than 1048576 ticks after the last line", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := cli("replay", c.file, "../../scripts/guard.lua")
			assert.Equal(t, exitFail, code, stdout+stderr)
			assert.Contains(t, stderr, c.want)
			assert.Equal(t, c.stdout, stdout)
		})
	}
	// A thousand workers claimed: the replay runs on the cores it has.
	many := write("workers.rec", strings.Replace(string(data), `"workers":1`, `"workers":1024`, 1))
	code, stdout, stderr := cli("replay", many, "../../scripts/guard.lua")
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "identical for 5 ticks\n", stdout)
	// Without SCRIPT, the recorded script runs only from the recording's
	// folder or below it.
	code, _, stderr = cli("replay", good)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "outside the recording's folder: replay runs it only when named: luaai replay")
	// A script that does not load is its load error.
	broken := write("broken.lua", "return ai.fsm {")
	code, _, stderr = cli("replay", good, broken)
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "broken.lua:1:")
}

func TestInspectFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--inspect-token", "abcdefgh"}, "--inspect-token goes with --inspect"},
		{[]string{"--inspect-history", "5"}, "--inspect-history goes with --inspect"},
		{[]string{"--inspect=0.0.0.0:7070"}, "would let other machines drive this run: give --inspect-token"},
		{[]string{"--inspect", ":7070"}, "would let other machines drive this run"},
		{[]string{"--inspect=:7070", "--inspect-token", "short"}, "at least 8 characters"},
		{[]string{"--inspect=nonsense"}, `--inspect "nonsense": want an address`},
		{[]string{"--inspect=127.0.0.1:99999"}, `is not a port number`},
		{[]string{"--inspect", "--inspect-history", "0"}, "--inspect-history must be from 1"},
		{[]string{"--inspect-history-bytes", "64MiB"}, "--inspect-history-bytes goes with --inspect"},
		{[]string{"--inspect", "--inspect-history-bytes", "1KiB"}, "must be at least 1MiB (or off), got 1KiB"},
		{[]string{"--inspect", "--inspect-history-bytes", "lots"}, "inspect-history-bytes"},
		{[]string{"--record", ""}, "--record needs a file name"},
	} {
		code, _, stderr := cli(append([]string{"run", "../../scripts/guard.lua"}, c.args...)...)
		assert.Equal(t, exitUsage, code, c.args)
		assert.Contains(t, stderr, c.want, c.args)
	}
	cfg, code := parseRun([]string{"--inspect", "s.lua", "--ticks", "4"}, nil, nil)
	require.Equal(t, exitOK, code)
	assert.Equal(t, "s.lua", cfg.script)
	assert.Equal(t, defaultInspectAddr, cfg.inspect)
	assert.Equal(t, 4, cfg.pauseAt)
	assert.True(t, cfg.forever)
	cfg, _ = parseRun([]string{"s.lua", "--inspect", "localhost:0"}, nil, nil)
	assert.Equal(t, "localhost:0", cfg.inspect)
}

// TestReplayInspect replays a recording with the inspector attached: its
// history covers the whole run, from tick 0.
func TestReplayInspect(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "run.rec")
	code, _, stderr := cli("run", "../../scripts/guard.lua", "--ticks", "30", "--agents", "2", "--record", rec)
	require.Equal(t, exitOK, code, stderr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, errs syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- replayContext(ctx, []string{rec, "../../scripts/guard.lua", "--inspect", "127.0.0.1:0"}, &stdout, &errs)
	}()
	errs.waitUntil(func(s string) bool { return inspectorAt.MatchString(s) && strings.Contains(s, "shows the run") })
	assert.Equal(t, "identical for 30 ticks\n", stdout.String())
	url := inspectorAt.FindStringSubmatch(errs.String())[1]
	res, err := http.Get(url + "api/history?agent=2&tick=12")
	require.NoError(t, err)
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, string(data))
	assert.Contains(t, string(data), `"first":0,"last":30,"frame":{"id":2,"tick":12,`)
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code)
	case <-time.After(waitTimeout):
		t.Fatal("replay --inspect did not end when interrupted")
	}
}

// A recording costs about its decompressed size to read: a gzip of a
// million small rows (a bomb of 47 MB, a few hundred kB on disk) holds
// well under three times that once read, where decoding every line held
// about eleven times.
func TestReplayRecordingMemory(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.rec")
	code, _, stderr := cli("run", "../../scripts/guard.lua", "--ticks", "1", "--record", good)
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	bomb := filepath.Join(dir, "bomb.rec.gz")
	f, err := os.Create(bomb)
	require.NoError(t, err)
	w := gzip.NewWriter(f)
	size := 0
	for _, l := range lines[:len(lines)-1] {
		n, _ := w.Write([]byte(l))
		size += n
	}
	row := []byte(`{"tick":1,"agent":1,"ctx":{"a":{"b":[1,2,3]}}}` + "\n")
	for range 1_000_000 {
		n, _ := w.Write(row)
		size += n
	}
	n, _ := w.Write([]byte(`{"end":1}` + "\n"))
	size += n
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rec, err := readRecording(bomb)
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	require.GreaterOrEqual(t, len(rec.rows[1]), 1_000_000)
	require.Less(t, held, int64(3*size), "held %d MB for %d MB of recording", held>>20, size>>20)
	runtime.KeepAlive(rec)
}

// FuzzReadRecording reads any bytes as a recording, plain or gzipped: it
// is a recording, or an error naming the file; never a panic, and never
// more memory than a few times what the bytes decompress to.
func FuzzReadRecording(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good.rec")
	if code, _, stderr := cli("run", "../../scripts/guard.lua", "--ticks", "3", "--record", good); code != exitOK {
		f.Fatal(stderr)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, false)
	f.Add(data, true)
	f.Add([]byte(`{"luaai_recording":1,"script":"x.lua","agents":1000000,"workers":1024,"dt":0.1}`+"\n"+`{"end":99999999999}`), false)
	f.Fuzz(func(t *testing.T, content []byte, zip bool) {
		p := filepath.Join(t.TempDir(), "f.rec")
		if zip {
			var b bytes.Buffer
			w := gzip.NewWriter(&b)
			w.Write(content)
			w.Close()
			content = b.Bytes()
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		rec, err := readRecording(p)
		if err != nil {
			require.Contains(t, err.Error(), p)
		}
		if rec != nil && err == nil {
			require.GreaterOrEqual(t, rec.end, rec.last)
			require.LessOrEqual(t, rec.end, rec.last+maxQuietTicks)
			require.LessOrEqual(t, rec.header.Workers, 1024)
		}
	})
}

// A replay names the module that changed, not the root script; and when
// the recorded script is gone it says to give one.
func TestReplayNamesTheChangedModule(t *testing.T) {
	dir := t.TempDir()
	squad := filepath.Join(dir, "squad.lua")
	unit := filepath.Join(dir, "unit.lua")
	require.NoError(t, os.WriteFile(unit, []byte(`local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = { transitions = { { to = "b", after = 0.2 } } }, b = {} } }`), 0o644))
	require.NoError(t, os.WriteFile(squad, []byte(`local ai = require("luaai")
local unit = require("unit")
return ai.fsm { initial = "u", states = { u = unit } }`), 0o644))
	rec := filepath.Join(dir, "run.jsonl")
	code, _, stderr := cli("run", squad, "--ticks", "4", "--record", rec)
	require.Equal(t, 0, code, stderr)

	require.NoError(t, os.WriteFile(unit, []byte(`local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = { transitions = { { to = "b", after = 0.1 } } }, b = {} } }`), 0o644))
	code, _, stderr = cli("replay", rec)
	require.Equal(t, 1, code, "the edit changes when the agent moves")
	require.Contains(t, stderr, "luaai replay: unit.lua differs from the recorded version: comparing")

	require.NoError(t, os.Rename(squad, filepath.Join(dir, "moved.lua")))
	code, _, stderr = cli("replay", rec)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "the recorded script "+squad+" is not there")
	require.Contains(t, stderr, "give the scripts to replay with, luaai replay "+rec+" SCRIPT...")
}

// A run of several scripts is recorded with every script and its digest;
// the replay runs them all, and after an edit to one of them names the
// first tick, agent and script that differ.
func TestRecordReplaySeveralScripts(t *testing.T) {
	dir := t.TempDir()
	guard := filepath.Join(dir, "guard.lua")
	villager := filepath.Join(dir, "villager.lua")
	require.NoError(t, os.WriteFile(guard, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  context = { villagers = { 2, 3 }, alarms = 0 },
  states = {
    patrol = { transitions = { { to = "alarm", on = "noise" } } },
    alarm = {
      enter = function(ctx)
        ctx.alarms = ctx.alarms + 1
        for _, id in ipairs(ctx.villagers) do ai.send_to(id, "alarm", { level = 2 }) end
      end,
      transitions = { { to = "patrol", after = 0.3 } },
    },
  },
}`), 0o644))
	require.NoError(t, os.WriteFile(villager, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "work",
  context = { fear = 0 },
  states = {
    work = { transitions = { { to = "hide", on = "alarm", run = function(ctx, a) ctx.fear = ctx.fear + a.level end } } },
    hide = { transitions = { { to = "work", after = 0.5 } } },
  },
}`), 0o644))
	input := filepath.Join(dir, "in.jsonl")
	require.NoError(t, os.WriteFile(input, []byte(`{"tick":3,"agent":1,"send":"noise"}`+"\n"), 0o644))
	rec := filepath.Join(dir, "game.rec")
	code, stdout, stderr := cli("run", guard, villager, "--agents", "1,2", "--ticks", "20", "--input", input, "--record", rec)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "agent 2 work -> hide")

	code, stdout, stderr = cli("replay", rec)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, "identical for 20 ticks\n", stdout)

	// An edit to the villager: its agents diverge, named with the script.
	require.NoError(t, os.WriteFile(villager, []byte(strings.Replace(readText(t, villager), "ctx.fear + a.level", "ctx.fear + 2 * a.level", 1)), 0o644))
	code, stdout, stderr = cli("replay", rec)
	require.Equal(t, exitFail, code)
	require.Contains(t, stderr, "luaai replay: villager.lua differs from the recorded version: comparing")
	require.NotContains(t, stderr, "guard.lua differs")
	require.Equal(t, "differs at tick 4 agent 2 (villager.lua) ctx.fear: recorded 2, now 4\n", stdout)

	code, _, stderr = cli("replay", rec, guard)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "recorded 2 scripts: give all of them, in order, or none (got 1)")
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// The command of the issue: several scripts with --agents, --record and
// --inspect together start, serve the page and record every script.
func TestRecordSeveralScriptsWithInspect(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.lua"), filepath.Join(dir, "b.lua")
	for _, p := range []string{a, b} {
		require.NoError(t, os.WriteFile(p, []byte(`local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = { update = function(ctx) ctx.n = ctx.n + 1 end } } }`), 0o644))
	}
	rec := filepath.Join(dir, "game.rec")
	r, url := startInspected(t, a, b, "--agents", "1,2", "--record", rec, "--hz", "50")
	res, err := http.Get(url)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	r.waitForFile(t, "ticks recorded", rec, func(data []byte) bool {
		return bytes.Contains(data, []byte(`"tick":3,`))
	})
	r.stop(t)
	head, _, _ := strings.Cut(readText(t, rec), "\n")
	var hd recHeader
	require.NoError(t, json.Unmarshal([]byte(head), &hd))
	require.Equal(t, 3, hd.Agents)
	require.Len(t, hd.Scripts, 2)
	require.Equal(t, []int{1, 2}, []int{hd.Scripts[0].Agents, hd.Scripts[1].Agents})
	require.Equal(t, b, hd.Scripts[1].Script)
}
