package explore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/safefile"
	"github.com/luaai/luaai/luatest"
)

// TestPath is where WriteTest writes the tests of script: in dir,
// <name>_explore_test.lua.
func TestPath(script, dir string) string {
	base := strings.TrimSuffix(filepath.Base(script), ".lua")
	return filepath.Join(dir, base+"_explore_test.lua")
}

// WriteTest writes a busted-style test file with one test per finding —
// its inputs replayed on fresh agents, failing while the failure is there
// — to TestPath(r.Script, dir), replacing an earlier regular file there,
// then runs each test by itself and records whether it failed as it
// should (Verified). It returns the file's path; with no findings it
// writes nothing.
//
// It writes nothing through a symbolic link or into something other than
// a regular file: when dir or the test file is a link, a folder, a named
// pipe or a device, the error (wrapping ErrNotRegular) names it. A mod
// folder may ship such a link to make the test file replace a file
// elsewhere.
//
// The tests are run until Options.Duration and FinishGrace after the
// search began (Run's report): those left are Unchecked.
func (r *Report) WriteTest(dir string) (string, error) {
	return r.WriteTestContext(context.Background(), dir)
}

// WriteTestContext is WriteTest whose checking of the tests ctx also ends:
// the test running is stopped, and it and those left are Unchecked.
func (r *Report) WriteTestContext(ctx context.Context, dir string) (string, error) {
	if len(r.Findings) == 0 {
		return "", nil
	}
	if err := checkFolder(dir); err != nil {
		return "", err
	}
	path := r.testPath(dir)
	var spawn []string
	for _, c := range r.cast() {
		for range c.Agents {
			spawn = append(spawn, spawnPath(c.Script, dir))
		}
	}
	src := r.testSource(spawn)
	if err := writeRegular(path, []byte(src)); err != nil {
		return "", err
	}
	if !r.finishBy.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadlineCause(ctx, r.finishBy, ErrTimeLimit)
		defer cancel()
	}
	for _, f := range r.Findings {
		ok, err := failsAlone(ctx, path, f.Test, r.game)
		if errors.Is(err, errCut) {
			f.Verified, f.Unchecked = false, true
			continue
		}
		if err != nil {
			return path, err
		}
		f.Verified, f.Unchecked = ok, false
	}
	return path, nil
}

// ErrNotRegular: WriteTest's folder or file is a symbolic link, or not a
// folder or a regular file (a named pipe, a device...).
var ErrNotRegular = errors.New("not a regular file or folder")

// notRegular is ErrNotRegular saying what is there and what was wanted:
// "a symbolic link, not a regular file".
type notRegular struct{ is, want string }

func (e *notRegular) Error() string        { return e.is + ", not " + e.want }
func (e *notRegular) Is(target error) bool { return target == ErrNotRegular }

// checkFolder refuses a dir that is a symbolic link or not a folder.
func checkFolder(dir string) error {
	st, err := os.Lstat(filepath.Clean(dir))
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return &fs.PathError{Op: "write", Path: dir, Err: &notRegular{safefile.Kind(st.Mode()), "a folder"}}
	}
	return nil
}

// writeRegular writes data to path as a new file renamed over the old
// one: a regular file there is replaced, never written through (a hard
// link elsewhere keeps its content), and anything else there — a symbolic
// link, a folder, a named pipe — is refused.
func writeRegular(path string, data []byte) error {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return &fs.PathError{Op: "write", Path: path, Err: &notRegular{safefile.Kind(st.Mode()), "a regular file"}}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a rename: nothing there
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// cast is the report's cast: Run's one script when it was made by hand.
func (r *Report) cast() []Cast {
	if len(r.Cast) > 0 {
		return r.Cast
	}
	return []Cast{{Script: r.Script, Agents: max(r.Agents, 1)}}
}

// testPath is where WriteTest writes: TestPath of the script, or with
// several scripts, of their names joined by "_" in the first one's folder
// ("guard_villager_explore_test.lua").
func (r *Report) testPath(dir string) string {
	cast := r.cast()
	if len(cast) == 1 {
		return TestPath(cast[0].Script, dir)
	}
	var names []string
	for _, c := range cast {
		if n := strings.TrimSuffix(filepath.Base(c.Script), ".lua"); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	name := strings.Join(names, "_")
	if len(name) > 120 {
		name = strings.ToValidUTF8(name[:120], "")
	}
	return TestPath(name+".lua", dir)
}

// spawnPath is how the test names the script: relative to the test's
// folder when the script is inside it, else as given (ai.spawn also looks
// in the folder luaai test runs from).
func spawnPath(script, dir string) string {
	as, err1 := filepath.Abs(script)
	ad, err2 := filepath.Abs(dir)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(ad, as); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(script)
}

// testName is the name of the test of the i-th finding (1-based).
func testName(i int, f *Finding) string {
	msg := f.Message
	if len(msg) > 60 {
		msg = strings.ToValidUTF8(msg[:60], "") + "..."
	}
	return fmt.Sprintf("failure %d: %s", i, oneLine(msg))
}

// testSource is the test file; spawn is each agent's script as the test
// spawns it.
func (r *Report) testSource(spawn []string) string {
	var b strings.Builder
	var names []string
	for _, c := range r.cast() {
		names = append(names, filepath.Base(c.Script))
	}
	name := strings.Join(names, ", ")
	fmt.Fprintf(&b, "-- Written by luaai explore (seed %d, %d agent%s). Each test replays the\n", r.Seed, len(spawn), plural(len(spawn)))
	fmt.Fprintf(&b, "-- fewest inputs found that make %s fail, on fresh agents, and fails\n", name)
	b.WriteString("-- until the script is fixed: keep them as regression tests. Run one by\n")
	b.WriteString("-- itself (luaai test --filter \"failure 1:\") to replay it exactly.\n")
	b.WriteString("local ai = require(\"luaai\")\n\n")
	b.WriteString("-- first_error tells the first error the agent reported (nil: none).\n")
	b.WriteString("local function first_error(agent)\n")
	b.WriteString("  local first = agent:errors()[1]\n")
	b.WriteString("  return first and (first.message .. \" (state \" .. first.state .. \", \" .. first.callback .. \")\")\n")
	b.WriteString("end\n\n")
	fmt.Fprintf(&b, "describe(%s, function()\n", luatext.Quote(oneLine(name)+" explored"))
	for i, f := range r.Findings {
		f.Test = testName(i+1, f)
		comment(&b, fmt.Sprintf("%s (state %s, %s; agent %d)", oneLine(f.Message), f.State, f.Callback, f.Agent))
		comment(&b, "inputs: "+oneLine(f.Words))
		fmt.Fprintf(&b, "  it(%s, function()\n", luatext.Quote(f.Test))
		for a, path := range spawn {
			fmt.Fprintf(&b, "    local a%d = ai.spawn(%s)\n", a+1, luatext.Quote(path))
		}
		for _, s := range f.Inputs {
			writeStep(&b, s, len(spawn))
		}
		for a := 1; a <= len(spawn); a++ {
			// Asserted in the test itself: a failure is reported at its line.
			fmt.Fprintf(&b, "    assert.is_nil(first_error(a%d))\n", a)
		}
		b.WriteString("  end)\n")
		if i < len(r.Findings)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString("end)\n")
	return b.String()
}

// comment writes text as Lua comments of at most about 100 characters a
// line, broken at spaces.
func comment(b *strings.Builder, text string) {
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > 96 {
			fmt.Fprintf(b, "  -- %s\n", line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	fmt.Fprintf(b, "  -- %s\n", line)
}

func writeStep(b *strings.Builder, s Step, agents int) {
	switch s.Op {
	case OpTick:
		var ticks []string
		for a := 1; a <= agents; a++ {
			ticks = append(ticks, fmt.Sprintf("a%d:tick(%s)", a, luaNumber(s.Dt)))
		}
		if s.N == 1 {
			fmt.Fprintf(b, "    %s\n", strings.Join(ticks, "; "))
			return
		}
		fmt.Fprintf(b, "    for _ = 1, %d do %s end\n", s.N, strings.Join(ticks, "; "))
	case OpSend:
		payload := ""
		if s.Payload != nil {
			payload = ", " + s.Payload.lua()
		}
		fmt.Fprintf(b, "    a%d:send(%s%s)\n", s.Agent%agents+1, luatext.Quote(s.Event), payload)
	case OpSet:
		fmt.Fprintf(b, "    a%d.ctx%s = %s\n", s.Agent%agents+1, fieldAccess(s.Key), s.Value.lua())
	}
}

func fieldAccess(key string) string {
	if luatext.IsName(key) {
		return "." + key
	}
	return "[" + luatext.Quote(key) + "]"
}

// oneLine makes a message safe in a Lua comment: every control character
// (a "\r" would end the comment, and what follows would run) becomes a
// space.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// verifyBudget is how long one callback of a written test may run when
// WriteTest runs it.
var verifyBudget = 2 * time.Second

// failsAlone runs the one test named name of the file at path, by itself
// in a fresh host as luaai test --filter would (with the game's modules
// and functions), and tells whether it failed. When ctx ends first, the
// test is stopped and the error is errCut.
func failsAlone(ctx context.Context, path, name string, game host.Options) (bool, error) {
	if ctx.Err() != nil {
		return false, errCut
	}
	h, err := host.New(host.Options{
		Roots: []string{filepath.Dir(path), "."}, Budget: verifyBudget, Stdout: io.Discard,
		Modules: game.Modules, Funcs: game.Funcs, Workers: 1,
	})
	if err != nil {
		return false, err
	}
	defer h.Close()
	release := stopOn(h, ctx)
	defer release()
	res := luatest.RunFile(h, path, io.Discard, luatest.Options{Filter: literalPattern(name) + "$"})
	if ctx.Err() != nil {
		return false, errCut
	}
	return res.Failed == 1 && res.Passed == 0, nil
}

// literalPattern is a Lua pattern matching s literally.
func literalPattern(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c < 0x80 && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ') {
			b.WriteByte('%')
		}
		b.WriteRune(c)
	}
	return b.String()
}
