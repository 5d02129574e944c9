package luatest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// What a run says: the failure record an assertion raises, how a failure,
// a file error and a passing test's unread agent errors are written.

// trackingSpawner is the host's ai.spawn, remembering the agents made.
type trackingSpawner struct {
	defs.Spawner
	r *runner
}

func (s trackingSpawner) Spawn(def *defs.State, overrides *lua.LTable) (defs.LuaAgent, error) {
	a, err := s.Spawner.Spawn(def, overrides)
	if err == nil {
		s.r.spawned = append(s.r.spawned, a)
	}
	return a, err
}

// Agents is ai.agents from the test file's code: the host's.
func (s trackingSpawner) Agents(what string) []int {
	if l, ok := s.Spawner.(defs.AgentLister); ok {
		return l.Agents(what)
	}
	return nil
}

// reportUnread says when a passing test left errors of its agents unread:
// "guard_test.lua:5: patrols: 2 agent errors not asserted (guard.lua:11:
// boom); agent:errors() returns them".
func (r *runner) reportUnread(w io.Writer, t *testCase) {
	n, first := 0, ""
	for _, a := range r.spawned {
		errs := a.Errors()
		if len(errs) > 0 && first == "" {
			first = errs[0].Message
		}
		n += len(errs)
	}
	if n > 0 {
		s := "s"
		if n == 1 {
			s = ""
		}
		fmt.Fprintf(w, "%s: %s: %d agent error%s not asserted (%s); agent:errors() returns them\n", t.pos, t.name, n, s, first)
	}
}

// failure is the Go-side record an assertion raises (as the Value of a
// userdata), so a failed assertion is told from any other error without
// parsing messages. Lua code cannot make one.
type failure struct {
	Pos      scripterr.Pos
	Msg      string // the message given to the assertion, or plain assert's
	Expected string
	Actual   string
	Note     string // an extra hint, e.g. where two tables differ
	values   bool   // Expected and Actual are set
}

// Desc is the failure without its position, on one line.
func (f *failure) Desc() string {
	var parts []string
	if f.Msg != "" {
		parts = append(parts, f.Msg)
	}
	if f.values {
		parts = append(parts, "expected: "+f.Expected, "actual: "+f.Actual)
	}
	if f.Note != "" {
		parts = append(parts, f.Note)
	}
	if len(parts) == 0 {
		return "assertion failed!"
	}
	return strings.Join(parts, ", ")
}

// String is "file:line: " and Desc, as tostring() shows a caught failure.
func (f *failure) String() string {
	if f.Pos.File == "" {
		return f.Desc()
	}
	return f.Pos.String() + ": " + f.Desc()
}

func failureOf(v lua.LValue) *failure {
	if ud, ok := v.(*lua.LUserData); ok {
		if f, ok := ud.Value.(*failure); ok {
			return f
		}
	}
	return nil
}

// errorObject is the Lua value an error from a protected call carries.
func errorObject(err error) lua.LValue {
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Object != nil {
		return ae.Object
	}
	return lua.LString(err.Error())
}

// callerPos is the position of the Lua code that called the running Go
// function; zero when that is not Lua code.
func callerPos(L *lua.LState) scripterr.Pos {
	p, _ := scripterr.SplitPos(L.Where(1) + " ")
	return p
}

// calledFrom is the innermost line of the test file (file) in the stack
// trace err carries, when the error was raised elsewhere (at pos, in a
// library the test called): "" when there is none.
func calledFrom(err error, file string, pos scripterr.Pos) scripterr.Pos {
	var ae *lua.ApiError
	if file == "" || pos.File == file || !errors.As(err, &ae) {
		return scripterr.Pos{}
	}
	for _, line := range strings.Split(ae.StackTrace, "\n") {
		p, _ := scripterr.SplitPos(strings.TrimSpace(line))
		if p.File == file && p.Line > 0 {
			return p
		}
	}
	return scripterr.Pos{}
}

// shortPos shows a position in a file below the folder the run started
// in (a library the roots found) relative to it, as the test files are.
func shortPos(p scripterr.Pos) scripterr.Pos {
	if !filepath.IsAbs(p.File) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p.File); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		p.File = rel
	}
	return p
}

// writeCalledFrom adds where the test file called the library that
// failed at pos.
func writeCalledFrom(b *strings.Builder, err error, t *testCase, pos scripterr.Pos) {
	if at := calledFrom(err, t.pos.File, pos); at.File != "" {
		fmt.Fprintf(b, "  called from %s\n", at)
	}
}

// writeFailure writes what failed in test t (a failed assertion or an
// error it raised) and reports it to Options.OnCase.
func (r *runner) writeFailure(w io.Writer, t *testCase, err error, took time.Duration) {
	obj := errorObject(err)
	var b strings.Builder
	status := Errored
	if f := failureOf(obj); f != nil {
		status = Failed
		pos := f.Pos
		if pos.File == "" {
			pos = t.pos
		}
		fmt.Fprintf(&b, "FAIL %s: %s\n", shortPos(pos), t.name)
		if f.Msg != "" {
			fmt.Fprintf(&b, "  %s\n", f.Msg)
		}
		if f.values {
			fmt.Fprintf(&b, "  expected: %s\n  actual:   %s\n", f.Expected, f.Actual)
		}
		if f.Note != "" {
			fmt.Fprintf(&b, "  %s\n", f.Note)
		}
		if f.Msg == "" && !f.values && f.Note == "" {
			b.WriteString("  assertion failed!\n")
		}
		writeCalledFrom(&b, err, t, pos)
	} else {
		pos, msg := errorText(obj)
		if pos.File == "" {
			pos = t.pos
		}
		fmt.Fprintf(&b, "FAIL %s: %s\n  error: %s\n", shortPos(pos), t.name, msg)
		writeCalledFrom(&b, err, t, pos)
	}
	text := printable(b.String())
	io.WriteString(w, text)
	r.emit(t, status, text, took)
}

// emit reports one test's outcome to Options.OnCase; text is what was
// printed of it.
func (r *runner) emit(t *testCase, status Status, text string, took time.Duration) {
	if r.onCase == nil {
		return
	}
	r.onCase(caseOf(r.file, t.name, t.pos, status, text, took))
}

// caseOf makes a Case: its Message is the report without its FAIL
// line, unindented.
func caseOf(file, name string, pos scripterr.Pos, status Status, text string, took time.Duration) Case {
	c := Case{File: file, Name: name, Pos: pos, Status: status, Output: text, Duration: took}
	if status == Failed || status == Errored {
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		for i, l := range lines[1:] {
			lines[i+1] = strings.TrimPrefix(l, "  ")
		}
		c.Message = strings.TrimPrefix(strings.Join(lines[1:], "\n"), "error: ")
	}
	return c
}

// printable shows the control characters a script's message may hold
// (a carriage return, a terminal escape) as escapes, so a test's output
// cannot rewrite the terminal; line breaks and tabs stay.
func printable(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, `\x%02x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }

// writeFileError reports a test file that did not load (its body
// raised, or a file it requires failed) as a failure named after it.
func (r *runner) writeFileError(w io.Writer, path string, err error) {
	obj := errorObject(err)
	pos, msg := errorText(obj)
	at := scripterr.Pos{File: path}
	if pos.File == path {
		at = pos
	} else if from := calledFrom(err, path, pos); from.File != "" {
		at = from
	}
	writeFileFailure(w, r.onCase, path, at, pos, msg)
}

// writeFileFailure writes "FAIL file:line: file" and the error of a file
// that did not load (at: where in the file; pos, msg: the error), and
// reports it to onCase as an errored test named after the file.
func writeFileFailure(w io.Writer, onCase func(Case), path string, at, pos scripterr.Pos, msg string) {
	var b strings.Builder
	fmt.Fprintf(&b, "FAIL %s: %s\n  error: ", at, path)
	if pos.File != "" && pos != at {
		fmt.Fprintf(&b, "%s: ", shortPos(pos))
	}
	fmt.Fprintf(&b, "%s\n", msg)
	text := printable(b.String())
	io.WriteString(w, text)
	if onCase != nil {
		onCase(caseOf(path, path, at, Errored, text, 0))
	}
}

// errorText takes an error value apart into the position its message
// names (zero if none) and the message without it.
func errorText(obj lua.LValue) (scripterr.Pos, string) {
	if f := failureOf(obj); f != nil {
		return f.Pos, f.Desc()
	}
	if s, ok := obj.(lua.LString); ok {
		return scripterr.SplitPos(string(s))
	}
	return scripterr.Pos{}, formatValue(obj)
}
