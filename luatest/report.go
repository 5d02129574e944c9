package luatest

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/luaai/luaai/luabind"
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
	Pos      luabind.Pos
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
func callerPos(L *lua.LState) luabind.Pos {
	p, _ := luabind.SplitPos(L.Where(1) + " ")
	return p
}

func (r *runner) writeFailure(w io.Writer, t *testCase, err error) {
	obj := errorObject(err)
	if f := failureOf(obj); f != nil {
		pos := f.Pos
		if pos.File == "" {
			pos = t.pos
		}
		var b strings.Builder
		fmt.Fprintf(&b, "FAIL %s: %s\n", pos, t.name)
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
		io.WriteString(w, printable(b.String()))
		return
	}
	pos, msg := errorText(obj)
	if pos.File == "" {
		pos = t.pos
	}
	io.WriteString(w, printable(fmt.Sprintf("FAIL %s: %s\n  error: %s\n", pos, t.name, msg)))
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

func (r *runner) writeFileError(w io.Writer, path string, err error) {
	obj := errorObject(err)
	if f := failureOf(obj); f != nil {
		pos := f.Pos
		if pos.File == "" {
			pos.File = path
		}
		io.WriteString(w, printable(fmt.Sprintf("%s: %s\n", pos, f.Desc())))
		return
	}
	pos, msg := errorText(obj)
	if pos.File == "" {
		pos.File = path
	}
	io.WriteString(w, printable(fmt.Sprintf("%s: %s\n", pos, msg)))
}

// errorText takes an error value apart into the position its message
// names (zero if none) and the message without it.
func errorText(obj lua.LValue) (luabind.Pos, string) {
	if f := failureOf(obj); f != nil {
		return f.Pos, f.Desc()
	}
	if s, ok := obj.(lua.LString); ok {
		return luabind.SplitPos(string(s))
	}
	return luabind.Pos{}, formatValue(obj)
}
