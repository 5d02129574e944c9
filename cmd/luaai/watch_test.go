package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/require"
)

// waitTimeout bounds the waits that remain on a clock (a process that
// should have ended): generous, since the race detector and a loaded
// machine slow everything down. The waits for output have no bound but
// go test's timeout: they end when the output comes.
const waitTimeout = 20 * time.Second

// syncBuffer is a bytes.Buffer the run's goroutine writes while the test
// reads it, and waits on.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed at the next write (made by next)
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != nil {
		close(s.written)
		s.written = nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// next is what was written so far, and a channel closed at the next write.
func (s *syncBuffer) next() (string, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written == nil {
		s.written = make(chan struct{})
	}
	return s.b.String(), s.written
}

// waitUntil waits until cond holds for what was written: no clock, each
// write is a chance.
func (s *syncBuffer) waitUntil(cond func(string) bool) string {
	for {
		text, written := s.next()
		if cond(text) {
			return text
		}
		<-written
	}
}

// bgRun is "luaai run" running in a goroutine until cancelled.
type bgRun struct {
	stdout, stderr syncBuffer
	cancel         context.CancelFunc
	code           chan int
}

// startRun starts "luaai run args…" in the background.
func startRun(t *testing.T, args ...string) *bgRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &bgRun{cancel: cancel, code: make(chan int, 1)}
	go func() { r.code <- runCmdContext(ctx, args, &r.stdout, &r.stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.code:
		case <-time.After(waitTimeout):
			t.Error("the run did not end after cancel")
		}
	})
	return r
}

// stop cancels the run (what Ctrl-C does) and returns its exit code.
func (r *bgRun) stop(t *testing.T) int {
	t.Helper()
	r.cancel()
	select {
	case code := <-r.code:
		r.code <- code // for the cleanup
		return code
	case <-time.After(waitTimeout):
		t.Fatalf("the run did not end after cancel\nstderr:\n%s", r.stderr.String())
		return -1
	}
}

// waitFor waits until cond holds for the output so far, looking again at
// each write, and fails the test when the run ends first. It has no clock:
// on a busy machine it waits as long as the output takes.
func (r *bgRun) waitFor(t *testing.T, what string, cond func(stdout, stderr string) bool) {
	t.Helper()
	for {
		stdout, outWritten := r.stdout.next()
		stderr, errWritten := r.stderr.next()
		if cond(stdout, stderr) {
			return
		}
		select {
		case <-outWritten:
		case <-errWritten:
		case code := <-r.code:
			r.code <- code
			if stdout, stderr := r.stdout.String(), r.stderr.String(); cond(stdout, stderr) {
				return // its last words came with its end
			}
			t.Fatalf("the run ended (exit %d) before %s\nstdout (end):\n%s\nstderr:\n%s", code, what, lastLines(stdout, 20), stderr)
		}
	}
}

// waitForFile waits until cond holds for the file's content, looking again
// at each change the file system reports in its folder, and fails the test
// when the run ends first. Like waitFor, it has no clock.
func (r *bgRun) waitForFile(t *testing.T, what, path string, cond func([]byte) bool) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	require.NoError(t, err)
	defer w.Close()
	require.NoError(t, w.Add(filepath.Dir(path)))
	for {
		data, _ := os.ReadFile(path)
		if cond(data) {
			return
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			require.NoError(t, err, "watching %s", path)
		case code := <-r.code:
			r.code <- code
			if data, _ := os.ReadFile(path); cond(data) {
				return
			}
			t.Fatalf("the run ended (exit %d) before %s\nstderr:\n%s", code, what, r.stderr.String())
		}
	}
}

func lastLines(s string, n int) string {
	l := lines(s)
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// toggler is a behaviour that goes x -> y -> x … one change a tick.
func toggler(x, y string) string {
	return fmt.Sprintf(`local ai = require("luaai")

return ai.fsm {
  initial = %q,
  states = {
    %s = { transitions = { { to = %q } } },
    %s = { transitions = { { to = %q } } },
  },
}
`, x, x, y, y, x)
}

// moduleToggler is toggler with its state names from a required module.
func moduleToggler(module string) string {
	return fmt.Sprintf(`local ai = require("luaai")
local names = require(%q)

return ai.fsm {
  initial = names.first,
  states = {
    [names.first] = { transitions = { { to = names.second } } },
    [names.second] = { transitions = { { to = names.first } } },
  },
}
`, module)
}

func names(first, second string) string {
	return fmt.Sprintf("return { first = %q, second = %q }\n", first, second)
}

// broken does not load: its ai.fsm (line 3) names an initial state that
// does not exist.
const broken = `local ai = require("luaai")

return ai.fsm {
  initial = "nowhere",
  states = { a = {} },
}
`

// lastReload is the last "reload …" line of stderr.
func lastReload(stderr string) string {
	l := lines(stderr)
	for i := len(l) - 1; i >= 0; i-- {
		if strings.HasPrefix(l[i], "reload ") {
			return l[i]
		}
	}
	return ""
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// renameOver saves the way many editors do: a temporary file in the same
// folder, renamed over the old one.
func renameOver(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	writeFile(t, tmp, content)
	require.NoError(t, os.Rename(tmp, path))
}

func TestRunWatch(t *testing.T) {
	for _, mode := range []string{"text", "json"} {
		t.Run(mode, func(t *testing.T) { testRunWatch(t, mode == "json") })
	}
}

func testRunWatch(t *testing.T, jsonMode bool) {
	dir := t.TempDir()
	script := filepath.Join(dir, "toggle.lua")
	module := filepath.Join(dir, "names.lua")
	extra := filepath.Join(dir, "extra.lua")
	snap := filepath.Join(dir, "snap.json")
	writeFile(t, script, toggler("a", "b"))

	// transition is how a state change x -> y prints.
	transition := func(x, y, kind string) string {
		if jsonMode {
			return fmt.Sprintf(`"from":%q,"to":%q,"kind":%q}`, x, y, kind)
		}
		if kind == "to" {
			return fmt.Sprintf("agent 1 %s -> %s\n", x, y)
		}
		return fmt.Sprintf("agent 1 %s -> %s (%s)\n", x, y, kind)
	}

	args := []string{"--watch", "--hz", "50", "--save", snap, script}
	if jsonMode {
		args = append(args, "--json")
	}
	r := startRun(t, args...)
	// Ticks start once the watcher is in place.
	r.waitFor(t, "the first ticks", func(stdout, _ string) bool {
		return strings.Contains(stdout, transition("b", "a", "to"))
	})

	quote := regexp.QuoteMeta
	steps := []struct {
		name   string
		change func(t *testing.T)
		// stderr is a regexp the step's last reload report on stderr must match
		// (a slow machine may see a save as two changes, the first of a half
		// written file: only the last report counts).
		stderr string
		// reload is a regexp the step's {"reload": …} line must match (JSON mode).
		reload string
		// entered is the state agents are moved to when theirs vanished ("" when
		// the reload failed), after is a transition of the behaviour that must
		// run after the reload.
		entered     string
		after       [2]string
		wantModules []string // b.Files() after the step, beyond the script
	}{
		{
			name:    "rewritten in place",
			change:  func(t *testing.T) { writeFile(t, script, toggler("c", "d")) },
			stderr:  `^reload ok: ` + quote(script) + `( \(1 agent left \w+, which the new version does not have, .*\))?$`,
			reload:  `^ok$`,
			entered: "c", after: [2]string{"c", "d"},
		},
		{
			name:    "temporary file renamed over it",
			change:  func(t *testing.T) { renameOver(t, script, toggler("e", "f")) },
			stderr:  `^reload ok: ` + quote(script) + `( \(1 agent left \w+, which the new version does not have, .*\))?$`,
			reload:  `^ok$`,
			entered: "e", after: [2]string{"e", "f"},
		},
		{
			name:   "broken: the old behaviour keeps running",
			change: func(t *testing.T) { writeFile(t, script, broken) },
			stderr: `^reload failed: ` + quote(script) + `:3: .*"nowhere"`,
			reload: `^` + quote(script) + `:3: .*"nowhere"`,
			after:  [2]string{"e", "f"},
		},
		{
			name: "fixed, with a module",
			change: func(t *testing.T) {
				writeFile(t, module, names("g", "h"))
				renameOver(t, script, moduleToggler("names"))
			},
			stderr:  `^reload ok: ` + quote(script) + `( \(1 agent left \w+, which the new version does not have, .*\))?$`,
			reload:  `^ok$`,
			entered: "g", after: [2]string{"g", "h"},
		},
		{
			name:    "the module changed",
			change:  func(t *testing.T) { writeFile(t, module, names("i", "jj")) },
			stderr:  `^reload ok: ` + quote(script) + `( \(1 agent left \w+, which the new version does not have, .*\))?$`,
			reload:  `^ok$`,
			entered: "i", after: [2]string{"i", "jj"},
		},
		{
			name:   "a module that does not exist yet",
			change: func(t *testing.T) { writeFile(t, script, moduleToggler("extra")) },
			stderr: `^reload failed: ` + quote(script) + `:2: require "extra": .*not found`,
			reload: `^` + quote(script) + `:2: require "extra"`,
			after:  [2]string{"i", "jj"},
		},
		{
			name:    "the missing module created",
			change:  func(t *testing.T) { renameOver(t, extra, names("k", "l")) },
			stderr:  `^reload ok: ` + quote(script) + `( \(1 agent left \w+, which the new version does not have, .*\))?$`,
			reload:  `^ok$`,
			entered: "k", after: [2]string{"k", "l"},
		},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			outStart, errStart := len(r.stdout.String()), len(r.stderr.String())
			step.change(t)
			re := regexp.MustCompile(step.stderr)
			r.waitFor(t, "the reload report", func(_, stderr string) bool {
				return re.MatchString(lastReload(stderr[errStart:]))
			})
			// Everything printed from now on comes after the reload.
			mark := len(r.stdout.String())
			r.waitFor(t, fmt.Sprintf("%s -> %s after the reload", step.after[0], step.after[1]), func(stdout, _ string) bool {
				return strings.Contains(stdout[mark:], transition(step.after[0], step.after[1], "to"))
			})
			out := r.stdout.String()[outStart:]
			if step.entered != "" { // the agent's state vanished
				if jsonMode {
					require.Contains(t, out, fmt.Sprintf(`"to":%q,"kind":"reload"}`, step.entered))
				} else {
					require.Contains(t, out, fmt.Sprintf(" -> %s (reload)\n", step.entered))
				}
			}
			if jsonMode {
				var reloads []string
				for _, m := range jsonLines(t, out) {
					if v, ok := m["reload"]; ok {
						reloads = append(reloads, v.(string))
						require.IsType(t, 0.0, m["tick"])
					}
				}
				require.NotEmpty(t, reloads, out)
				require.Regexp(t, step.reload, reloads[len(reloads)-1])
			}
		})
		if t.Failed() {
			return
		}
	}

	require.Equal(t, 0, r.stop(t), "a failed reload does not change the exit code\nstderr:\n%s", r.stderr.String())
	require.True(t, strings.HasSuffix(r.stdout.String(), "\n"), "stdout is flushed whole")
	// --save was written when interrupted, and runs on.
	code, _, stderr := cli("run", script, "--load", snap, "--ticks", "2")
	require.Equal(t, 0, code, stderr)
}

func TestRunInterrupt(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send to oneself")
	}
	tests := []struct {
		name string
		args []string
	}{
		{"watch runs until interrupted", []string{"--watch", "--hz", "100", "testdata/guard.lua"}},
		{"a long run stops early", []string{"--ticks", "1000000", "--hz", "100", "testdata/guard.lua", "--json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr syncBuffer
			code := make(chan int, 1)
			go func() { code <- runCmd(tt.args, &stdout, &stderr) }()
			// Ticks print once the signal handler is in place.
			stdout.waitUntil(func(s string) bool { return strings.Contains(s, "tick") })
			require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
			select {
			case c := <-code:
				require.Equal(t, 0, c, stderr.String())
			case <-time.After(waitTimeout):
				t.Fatal("SIGINT did not end the run")
			}
			require.Empty(t, stderr.String())
			require.True(t, strings.HasSuffix(stdout.String(), "\n"))
		})
	}
}

func TestRunWatchUnpacedTicks(t *testing.T) {
	// --watch with --ticks and no --hz runs its ticks as fast as it can and
	// ends by itself.
	code, stdout, stderr := cli("run", "testdata/guard.lua", "--watch", "--ticks", "6")
	require.Equal(t, 0, code, stderr)
	require.Len(t, lines(stdout), 5)
}

// A folder deleted and made again (git checkout, some editors) is watched
// again: the run reloads what it holds now.
func TestRunWatchFolderReplaced(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "mod")
	require.NoError(t, os.Mkdir(dir, 0o755))
	script := filepath.Join(dir, "toggle.lua")
	writeFile(t, script, toggler("a", "b"))
	r := startRun(t, "--watch", "--hz", "50", script)
	r.waitFor(t, "the first ticks", func(stdout, _ string) bool {
		return strings.Contains(stdout, "agent 1 b -> a\n")
	})
	require.NoError(t, os.RemoveAll(dir))
	r.waitFor(t, "the folder said gone", func(_, stderr string) bool {
		return strings.Contains(stderr, "luaai run: --watch: "+dir+": folder gone; watched again when it comes back\n")
	})
	require.NoError(t, os.Mkdir(dir, 0o755))
	writeFile(t, script, toggler("p", "q"))
	r.waitFor(t, "the reload of the new folder's script", func(stdout, stderr string) bool {
		return strings.Contains(lastReload(stderr), "reload ok") && strings.Contains(stdout, "agent 1 q -> p\n")
	})
	require.Equal(t, 0, r.stop(t))
}

// A reload that declares new context defaults says which keys it added to
// the live agents.
func TestWatchReloadAddsContextKeys(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "keys.lua")
	v := func(ctx string) string {
		return `local ai = require("luaai")
return ai.fsm { initial = "s", context = { ` + ctx + ` }, states = { s = { update = function(ctx) ctx.hp = ctx.hp + 0 end } } }`
	}
	writeFile(t, script, v("hp = 1"))
	r := startRun(t, "--watch", "--hz", "50", "--agents", "3", "--trace", script)
	// Ticks start once the watcher is in place.
	r.waitFor(t, "the first ticks", func(stdout, _ string) bool { return strings.Contains(stdout, "tick 1 agent 1 ") })
	renameOver(t, script, v("hp = 1, ammo = 2, bag = {}"))
	r.waitFor(t, "the reload report", func(_, stderr string) bool {
		return strings.Contains(lastReload(stderr), "reload ok: "+script+" (context keys added: ammo, bag)")
	})
	require.Equal(t, 0, r.stop(t))
}

// A script broken at start does not end a --watch run: it reports, waits,
// and runs once the script is fixed.
func TestWatchBrokenAtStart(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "late.lua")
	writeFile(t, script, `local ai = require("luaai")
return ai.fsm { initial = "nowhere", states = { a = {} } }`)
	r := startRun(t, "--watch", "--hz", "50", "--trace", script)
	r.waitFor(t, "the report", func(_, stderr string) bool {
		return strings.Contains(stderr, `initial state "nowhere"`) && strings.Contains(stderr, "waiting for a version of "+script+" that loads")
	})
	renameOver(t, script, `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = {} } }`)
	r.waitFor(t, "ticks of the fixed script", func(stdout, _ string) bool {
		return strings.Contains(stdout, "tick 2 agent 1 state a")
	})
	require.Contains(t, r.stderr.String(), "reload ok: "+script)
	require.Equal(t, 0, r.stop(t))
}

// Ctrl-C while waiting for a script that loads ends the run at once, with
// exit 1: nothing ran.
func TestWatchBrokenAtStartInterrupted(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "never.lua")
	writeFile(t, script, `return 42`)
	r := startRun(t, "--watch", script)
	r.waitFor(t, "the report", func(_, stderr string) bool { return strings.Contains(stderr, "waiting for a version") })
	require.Equal(t, 1, r.stop(t))
	require.Contains(t, r.stderr.String(), "luaai run: "+script+" never loaded")
}

// A script that does not start because a module it requires is broken:
// fixing the module (the script itself unchanged) starts the run.
func TestWatchBrokenModuleAtStart(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "squad.lua")
	module := filepath.Join(dir, "guard.lua")
	writeFile(t, script, `local ai = require("luaai")
local guard = require("guard")
return ai.fsm { initial = "a", context = { n = guard.n }, states = { a = {} } }`)
	writeFile(t, module, "local M = {\nreturn M\n")
	r := startRun(t, "--watch", "--hz", "50", "--trace", script)
	r.waitFor(t, "the report", func(_, stderr string) bool {
		return strings.Contains(stderr, `require "guard"`) && strings.Contains(stderr, "waiting for a version of "+script+" that loads")
	})
	renameOver(t, module, "return { n = 7 }\n")
	r.waitFor(t, "ticks of the fixed script", func(stdout, _ string) bool {
		return strings.Contains(stdout, `tick 2 agent 1 state a ctx {"n":7}`)
	})
	require.Equal(t, 0, r.stop(t))
}

// A runaway suspended by --watch's run comes back when its fix is saved,
// and the reload line says so.
func TestWatchResumesFixedRunaway(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "loop.lua")
	v := func(body string) string {
		return `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx)
    ` + body + `
  end } } }`
	}
	writeFile(t, script, v("while true do end"))
	r := startRun(t, "--watch", "--hz", "50", "--budget", "20ms", "--agents", "3", "--trace", script)
	r.waitFor(t, "the suspensions, one line for the three agents", func(_, stderr string) bool {
		return strings.Contains(stderr, "; agents 1, 2, 3 suspended)")
	})
	r.waitFor(t, "the suspended agents marked in the trace", func(stdout, _ string) bool {
		return strings.Contains(stdout, `agent 3 state s suspended (overruns) ctx {"n":0}`)
	})
	stderr := r.stderr.String()
	require.Equal(t, 1, strings.Count(stderr, "the agent is suspended after 3 callbacks"), stderr)
	require.Contains(t, stderr, "(resume A at the console or in the inspector, or a fix saved under --watch, lets it tick again)")
	renameOver(t, script, v("ctx.n = ctx.n + 1"))
	r.waitFor(t, "the reload report", func(_, stderr string) bool {
		return strings.Contains(lastReload(stderr), "reload ok: "+script+" (3 suspended agents resumed)")
	})
	r.waitFor(t, "ticks of the fixed agents", func(stdout, _ string) bool {
		return strings.Contains(stdout, `agent 3 state s ctx {"n":2}`)
	})
	r.stop(t)
}

// --watch with several scripts reloads the one whose file changed.
func TestWatchSeveralScripts(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.lua")
	b := filepath.Join(dir, "b.lua")
	fsm := func(state string) string {
		return `local ai = require("luaai")
return ai.fsm { initial = "` + state + `", states = { ` + state + ` = {} } }`
	}
	writeFile(t, a, fsm("x"))
	writeFile(t, b, fsm("y"))
	r := startRun(t, "--watch", "--hz", "50", "--trace", a, b)
	r.waitFor(t, "both running", func(stdout, _ string) bool {
		return strings.Contains(stdout, "agent 1 state x") && strings.Contains(stdout, "agent 2 state y")
	})
	renameOver(t, b, fsm("z"))
	r.waitFor(t, "b reloaded, its agent moved", func(stdout, stderr string) bool {
		return strings.Contains(stderr, "reload ok: "+b) && strings.Contains(stdout, "agent 2 state z")
	})
	require.NotContains(t, r.stderr.String(), "reload ok: "+a, "a did not change")
	r.stop(t)
}
