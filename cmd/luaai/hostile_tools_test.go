package main

// What a hostile mod (or a crafted recording) tries against the tools:
// inputs that never end, links where they write or read, names that
// forge lines or drive the terminal.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forgedLine is what the hostile names try to print as a line of their own.
const forgedLine = "FORGED: 0 failures, all clear"

// controls are the characters a name carries to forge output, as Lua
// escapes (a line break, a carriage return, ESC starting "clear the
// screen", and the 8-bit CSI some terminals act on), as the bytes a
// terminal would get,
// and as the CLI shows the Lua string escaped.
var controls = []struct{ name, lua, raw, shown string }{
	{"newline", `\n`, "\n", `\n`},
	{"carriage return", `\r`, "\r", `\r`},
	{"ESC", `\27[2J`, "\x1b", `\x1b[2J`},
	{"8-bit CSI", `\194\155`, "\u009b", `\u009b`},
}

// requireNoForgery checks that out has no raw control character (but line
// breaks between records and tabs) and no line that starts with what the
// names tried to forge.
func requireNoForgery(t *testing.T, out, raw string) {
	t.Helper()
	if raw != "\n" {
		require.NotContains(t, out, raw)
	}
	for _, l := range lines(out) {
		require.False(t, strings.HasPrefix(strings.TrimLeft(l, " \t"), "FORGED"), "a forged line: %q\n%s", l, out)
		require.False(t, strings.HasPrefix(l, "identical for"), "a forged line: %q\n%s", l, out)
	}
}

// explore stops within its --seconds whatever one input costs: one that
// compares long strings (each compare one instruction) ends at the time
// limit and the command ends cleanly, as after any search.
func TestExploreSecondsBoundsACostlyInput(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "compare.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  states = {
    idle = {
      update = function(ctx)
        local s = string.rep("a", 16777216)
        for i = 1, 1e9 do local _ = s < s .. "" end
      end,
    },
  },
}
`), 0o644))
	code, stdout, stderr := cli("explore", script, "--seconds", "1")
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "(stopped: time limit)")
	require.Contains(t, stdout, "no failures found")

	code, stdout, stderr = cli("explore", script, "--seconds", "1", "--json")
	require.Equal(t, exitOK, code, stderr)
	var rep struct{ Stopped string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	require.Equal(t, "time", rep.Stopped)
}

// explore writes its test file through no link and into nothing but a
// regular file: a mod folder that ships the test file's name as a link
// leading out of it gets an error naming the path, and the file the link
// leads to is untouched. An --out folder that is a link is a usage error.
func TestExploreRefusesLinksWhereItWrites(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "precious.txt")
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, testFile string)
		want  string
	}{
		{"a link out of the folder", func(t *testing.T, testFile string) {
			require.NoError(t, os.Symlink(outside, testFile))
		}, "a symbolic link"},
		{"a named pipe", func(t *testing.T, testFile string) {
			require.NoError(t, syscall.Mkfifo(testFile, 0o644))
		}, "a named pipe"},
		{"a folder", func(t *testing.T, testFile string) {
			require.NoError(t, os.Mkdir(testFile, 0o755))
		}, "a folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(outside, []byte("precious"), 0o644))
			script := inTemp(t, "../../explore/testdata/timing.lua")
			testFile := filepath.Join(filepath.Dir(script), "timing_explore_test.lua")
			c.setup(t, testFile)
			code, stdout, stderr := cli("explore", script, "--seconds", "3600", "--runs", "3000", "--seed", "1")
			assert.Equal(t, exitFail, code, stdout)
			assert.Contains(t, stderr, testFile+": "+c.want+", not a regular file: the test file is not written through it")
			assert.Contains(t, stderr, "the test file is not written through it")
			data, err := os.ReadFile(outside)
			require.NoError(t, err)
			assert.Equal(t, "precious", string(data))
		})
	}

	script := inTemp(t, "../../explore/testdata/timing.lua")
	link := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.Symlink(filepath.Dir(outside), link))
	code, _, stderr := cli("explore", script, "--runs", "10", "--out", link)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--out "+link+": a symbolic link")
}

// Event names, context keys and messages a script chooses are escaped in
// explore's report: none forges a line or reaches the terminal raw.
func TestExploreEscapesNames(t *testing.T) {
	for _, c := range controls {
		t.Run(c.name, func(t *testing.T) {
			src := strings.NewReplacer("@", c.lua).Replace(`local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  context = { ["k@FORGED: key"] = 0 },
  states = {
    idle = { transitions = {
      { to = "bad", on = "go@` + forgedLine + `" },
      { to = "never", when = function(ctx) return ctx["k@FORGED: key"] == "zz" end },
    } },
    bad = { enter = function(ctx) error("x@FORGED: message") end },
    never = {},
  },
}
`)
			dir := t.TempDir()
			script := filepath.Join(dir, "forged.lua")
			require.NoError(t, os.WriteFile(script, []byte(src), 0o644))
			code, stdout, stderr := cli("explore", script, "--seconds", "3600", "--runs", "500")
			require.Equal(t, exitFail, code, stderr)
			require.Contains(t, stdout, "1 failure:")
			require.Contains(t, stdout, "inputs: send \"go")
			require.Contains(t, stdout, "sends of \"go")
			requireNoForgery(t, stdout, c.raw)
			requireNoForgery(t, stderr, c.raw)
		})
	}
}

// check refuses a .lua link that leads out of the folder it checks (or,
// for a SCRIPT, out of its own folder), as require refuses one, without
// compiling what it leads to; and a .lua that is not a regular file. A
// link that stays inside is checked.
func TestCheckRefusesLinksOutOfTheFolder(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(secret, []byte("secret-token = 1\n"), 0o644))
	dir := t.TempDir()
	guard, err := os.ReadFile("../../scripts/guard.lua")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "guard.lua"), guard, 0o644))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "evil.lua")))
	require.NoError(t, os.Symlink("guard.lua", filepath.Join(dir, "alias.lua")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.lua"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Symlink("../guard.lua", filepath.Join(dir, "sub", "up.lua")))

	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"a folder", []string{dir}, []string{
			filepath.Join(dir, "evil.lua") + ": a symbolic link leads out of " + dir + ": path outside the allowed script roots",
			filepath.Join(dir, "pipe.lua") + ": not a regular file (a named pipe)",
		}},
		{"a script", []string{filepath.Join(dir, "evil.lua")}, []string{
			filepath.Join(dir, "evil.lua") + ": a symbolic link leads out of " + dir + ": path outside the allowed script roots",
		}},
		{"a link out of a subfolder, within the folder", []string{filepath.Join(dir, "sub", "up.lua")}, []string{
			filepath.Join(dir, "sub", "up.lua") + ": a symbolic link leads out of " + filepath.Join(dir, "sub"),
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := cli(append([]string{"check"}, c.args...)...)
			assert.Equal(t, exitFail, code, stderr)
			for _, w := range c.want {
				assert.Contains(t, stdout, w)
			}
			assert.NotContains(t, stdout, "secret")
			assert.Len(t, lines(stdout), len(c.want), "the other files check clean:\n%s", stdout)
		})
	}
	// A file whose name carries a line break is escaped where check names it.
	for _, c := range controls {
		t.Run("a name with a "+c.name, func(t *testing.T) {
			d := t.TempDir()
			name := "bad" + c.raw + forgedLine + ".lua"
			require.NoError(t, os.WriteFile(filepath.Join(d, name), []byte("return ai.fsm {"), 0o644))
			code, stdout, _ := cli("check", d)
			assert.Equal(t, exitFail, code)
			requireNoForgery(t, stdout, c.raw)
		})
	}
}

// A crafted recording's file names, script, states and keys are escaped
// where replay prints them: none forges "identical for 3 ticks" or clears
// the screen.
func TestReplayEscapesRecordedNames(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "guard.lua")
	guard, err := os.ReadFile("../../scripts/guard.lua")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(script, guard, 0o644))
	good := filepath.Join(dir, "good.rec")
	code, _, stderr := cli("run", script, "--ticks", "3", "--record", good)
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	recLines := lines(string(data))
	var header map[string]any
	require.NoError(t, json.Unmarshal([]byte(recLines[0]), &header))

	for _, c := range controls {
		for _, k := range []struct {
			name   string
			forge  func(h map[string]any, rows []string, bad string) []string
			stream string // where the forged name is printed
			code   int
		}{
			{"file names", func(h map[string]any, rows []string, bad string) []string {
				h["sha256"] = strings.Repeat("0", 64)
				h["files"] = []map[string]string{{"name": bad, "sha256": strings.Repeat("0", 64)}}
				return rows
			}, "stderr", exitOK},
			{"a state", func(h map[string]any, rows []string, bad string) []string {
				rows[1] = strings.Replace(rows[1], `"state":"patrol.walk_to_waypoint"`, `"state":`+jsonString(bad), 1)
				return rows
			}, "stdout", exitFail},
			{"a key", func(h map[string]any, rows []string, bad string) []string {
				rows[1] = strings.Replace(rows[1], `"ctx":{`, `"ctx":{`+jsonString(bad)+`:1,`, 1)
				return rows
			}, "stdout", exitFail},
			{"the script", func(h map[string]any, rows []string, bad string) []string {
				h["script"] = filepath.Join(dir, bad)
				return rows
			}, "stderr", exitFail},
		} {
			t.Run(c.name+" in "+k.name, func(t *testing.T) {
				bad := "x" + c.raw + "identical for 3 ticks" + c.raw + forgedLine
				h := map[string]any{}
				for key, v := range header {
					h[key] = v
				}
				rows := k.forge(h, append([]string(nil), recLines[1:]...), bad)
				hd, err := json.Marshal(h)
				require.NoError(t, err)
				rec := filepath.Join(t.TempDir(), "crafted.rec")
				if k.name == "the script" {
					rec = filepath.Join(dir, "crafted.rec")
				}
				require.NoError(t, os.WriteFile(rec, []byte(string(hd)+"\n"+strings.Join(rows, "\n")+"\n"), 0o644))
				args := []string{"replay", rec, script}
				if k.name == "the script" {
					args = args[:2]
				}
				code, stdout, stderr := cli(args...)
				assert.Equal(t, k.code, code, stdout+stderr)
				out := map[string]string{"stdout": stdout, "stderr": stderr}
				assert.Contains(t, out[k.stream], "x"+strings.TrimSuffix(c.shown, "[2J")+"identical for 3 ticks", "the name shows, escaped")
				if k.code == exitOK {
					// The replay itself is identical: its one line is the
					// true one.
					assert.Equal(t, "identical for 3 ticks\n", stdout)
				} else {
					requireNoForgery(t, stdout, c.raw)
				}
				requireNoForgery(t, stderr, c.raw)
			})
		}
	}
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

// A message a script raises while it loads, and a warning quoting a name
// it chose, are escaped where run and check print them.
func TestLoadErrorsAndWarningsEscaped(t *testing.T) {
	for _, c := range controls {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			broken := filepath.Join(dir, "broken.lua")
			require.NoError(t, os.WriteFile(broken, []byte(`error("x`+c.lua+forgedLine+`")`), 0o644))
			warned := filepath.Join(dir, "warned.lua")
			require.NoError(t, os.WriteFile(warned, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "a",
  states = {
    a = { transitions = { { to = "b", when = ai.gt("hp`+c.lua+forgedLine+`", 1) } } },
    b = {},
  },
}
`), 0o644))
			code, stdout, stderr := cli("run", broken, "--ticks", "1")
			assert.Equal(t, exitFail, code)
			assert.Contains(t, stderr, "x"+c.shown+forgedLine)
			requireNoForgery(t, stdout, c.raw)
			requireNoForgery(t, stderr, c.raw)

			code, stdout, _ = cli("check", broken, warned)
			assert.Equal(t, exitFail, code)
			assert.Contains(t, stdout, "x"+c.shown+forgedLine)
			assert.Contains(t, stdout, "warning:")
			requireNoForgery(t, stdout, c.raw)

			_, _, stderr = cli("run", warned, "--ticks", "1")
			assert.Contains(t, stderr, "warning:")
			requireNoForgery(t, stderr, c.raw)
		})
	}
}

// A reload that fails with a message the script chose prints one escaped
// "reload failed:" line per problem.
func TestReloadFailedEscaped(t *testing.T) {
	for _, c := range controls {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			o := newRunOutput(&stdout, &stderr, false)
			err := host.ErrorList{
				{Pos: host.Pos{File: "a.lua", Line: 1}, Msg: "x" + c.raw + forgedLine},
				{Pos: host.Pos{File: "a.lua", Line: 2}, Msg: "second"},
			}
			require.Error(t, o.reload(1, "a"+c.raw+".lua", func() error { return err }))
			requireNoForgery(t, stderr.String(), c.raw)
			got := lines(stderr.String())
			require.Len(t, got, 2, stderr.String())
			require.Equal(t, "reload failed: a.lua:1: x"+strings.TrimSuffix(c.shown, "[2J")+forgedLine, got[0])
			require.Equal(t, "reload failed: a.lua:2: second", got[1])
		})
	}
}
