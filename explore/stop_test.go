package explore_test

import (
	"context"
	"github.com/luaai/luaai/host"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/luaai/luaai/explore"
	"github.com/stretchr/testify/require"
)

// writeScript writes src as name in a fresh folder and returns its path.
func writeScript(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// updateDoing is a one-state behaviour whose update runs body.
func updateDoing(body string) string {
	return `local ai = require("luaai")
local calls = 0
return ai.fsm {
  initial = "idle",
  states = {
    idle = {
      update = function(ctx)
        calls = calls + 1
        ` + body + `
      end,
    },
  },
}
`
}

// However costly one input is — one instruction that compares long
// strings, a loop no instruction budget stops — the search ends at its
// time limit: the call running is stopped, the sequence it cut short is
// left out, and the report says it stopped at the time limit. What was
// met before the stop is kept. (The assertions are on the report, not on
// the clock: without the stop, each of these runs for minutes or never
// ends.)
func TestStopsAtTheTimeLimit(t *testing.T) {
	for _, c := range []struct {
		name    string
		body    string
		steps   int64 // BudgetSteps
		workers int
		finding string // the one failure met, "" for none
	}{
		{"long string compares", `local s = string.rep("a", 16777216)
        for i = 1, 1e9 do local _ = s < s .. "" end`, 0, 1, ""},
		{"while true under a huge instruction budget", `while true do end`, 1 << 62, 1, ""},
		{"four workers in while true", `while true do end`, 1 << 62, 4, ""},
		{"a failure, then a runaway", `if calls == 1 then error("first call") end
        while true do end`, 1 << 62, 1, "first call"},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := writeScript(t, "costly.lua", updateDoing(c.body))
			rep, err := explore.Run(context.Background(), script, explore.Options{
				Duration: time.Second, Stale: -1, Host: host.Options{BudgetSteps: c.steps}, Searchers: c.workers,
			})
			require.NoError(t, err)
			require.Equal(t, "time", rep.Stopped)
			require.Empty(t, rep.Unreached(), "what the cut sequence reached counts")
			if c.finding == "" {
				require.Empty(t, rep.Findings, "the stop is not the script's failure")
				return
			}
			require.Len(t, rep.Findings, 1, "%+v", rep.Findings)
			f := rep.Findings[0]
			require.Contains(t, f.Message, c.finding)
			require.NotContains(t, f.Message, "stopped")
			// Shortened and checked on fresh hosts, where the first call
			// fails again at once.
			require.True(t, f.Fresh)
			require.False(t, f.CutShort)
			path, err := rep.WriteTest(filepath.Dir(script))
			require.NoError(t, err)
			require.FileExists(t, path)
			require.False(t, f.Unchecked)
			require.True(t, f.Verified)
		})
	}
}

// An interrupt (Run's context) stops the running call too, and the report
// says so.
func TestInterruptStopsTheRunningCall(t *testing.T) {
	script := writeScript(t, "spin.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm {
  initial = "idle",
  states = { idle = { update = function(ctx) game.spinning() while true do end end } },
}
`)
	ctx, cancel := context.WithCancel(context.Background())
	o := explore.Options{Duration: time.Hour, Stale: -1, Host: host.Options{BudgetSteps: 1 << 62}}
	// The game function cancels once the loop is about to run.
	o.Host.Funcs = map[string]map[string]any{"game": {"spinning": func() { cancel() }}}
	rep, err := explore.Run(ctx, script, o)
	require.NoError(t, err)
	require.Equal(t, "interrupted", rep.Stopped)
	require.Empty(t, rep.Findings)
	require.Empty(t, rep.Unreached())
}

// A finding whose tests the time limit (or the context) leaves no time to
// run is Unchecked, not a test that fails to fail; the file is written.
func TestUncheckedWhenTimeIsUp(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "timing.lua")
	copyFile(t, "testdata/timing.lua", script)
	rep, err := explore.Run(context.Background(), script, opts(1, 1))
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path, err := rep.WriteTestContext(ctx, dir)
	require.NoError(t, err)
	require.FileExists(t, path)
	for _, f := range rep.Findings {
		require.True(t, f.Unchecked, f.Test)
		require.False(t, f.Verified, f.Test)
	}
	// With time, the same file's tests are checked.
	path, err = rep.WriteTest(dir)
	require.NoError(t, err)
	for _, f := range rep.Findings {
		require.False(t, f.Unchecked, f.Test)
		require.True(t, f.Verified, f.Test)
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(data), "-- Written by luaai explore"))
}

// WriteTest writes nothing through a symbolic link or into anything but a
// regular file, as a mod folder may ship one under the test file's name
// (or as the folder itself) to replace a file elsewhere; the error names
// the path. A regular file there is replaced, and a hard link's other
// name keeps its content.
func TestWriteTestRefusesLinks(t *testing.T) {
	script := filepath.Join(t.TempDir(), "timing.lua")
	copyFile(t, "testdata/timing.lua", script)
	rep, err := explore.Run(context.Background(), script, opts(1, 1))
	require.NoError(t, err)
	require.NotEmpty(t, rep.Findings)
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir, testFile, outside string) (writeTo string)
		err   string // "" when it is written
	}{
		{"a link to a file outside", func(t *testing.T, dir, testFile, outside string) string {
			require.NoError(t, os.Symlink(outside, testFile))
			return dir
		}, "a symbolic link"},
		{"a dangling link", func(t *testing.T, dir, testFile, outside string) string {
			require.NoError(t, os.Symlink(outside+".new", testFile))
			return dir
		}, "a symbolic link"},
		{"a folder", func(t *testing.T, dir, testFile, outside string) string {
			require.NoError(t, os.Mkdir(testFile, 0o755))
			return dir
		}, "a folder"},
		{"a named pipe", func(t *testing.T, dir, testFile, outside string) string {
			require.NoError(t, syscall.Mkfifo(testFile, 0o644))
			return dir
		}, "a named pipe"},
		{"the folder is a link", func(t *testing.T, dir, testFile, outside string) string {
			link := filepath.Join(dir, "out")
			require.NoError(t, os.Symlink(filepath.Dir(outside), link))
			return link
		}, "a symbolic link, not a folder"},
		{"a regular file", func(t *testing.T, dir, testFile, outside string) string {
			require.NoError(t, os.WriteFile(testFile, []byte("old"), 0o644))
			return dir
		}, ""},
		{"a hard link to a file outside", func(t *testing.T, dir, testFile, outside string) string {
			require.NoError(t, os.Link(outside, testFile))
			return dir
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			outside := filepath.Join(t.TempDir(), "precious.txt")
			require.NoError(t, os.WriteFile(outside, []byte("precious"), 0o644))
			testFile := explore.TestPath(script, dir)
			writeTo := c.setup(t, dir, testFile, outside)

			path, err := rep.WriteTest(writeTo)
			data, rerr := os.ReadFile(outside)
			require.NoError(t, rerr)
			require.Equal(t, "precious", string(data), "the file outside is untouched")
			require.NoFileExists(t, outside+".new")
			if c.err != "" {
				require.ErrorIs(t, err, explore.ErrNotRegular)
				require.Contains(t, err.Error(), c.err)
				if writeTo == dir {
					require.Contains(t, err.Error(), testFile)
				} else {
					require.Contains(t, err.Error(), writeTo)
				}
				return
			}
			require.NoError(t, err)
			written, err := os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(string(written), "-- Written by luaai explore"))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, entries, 1, "no temporary file left: %v", entries)
		})
	}
}
