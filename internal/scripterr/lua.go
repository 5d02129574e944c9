package scripterr

import (
	"errors"
	"strings"
	"time"

	"github.com/luaai/luaai/internal/luatext"
	lua "github.com/yuin/gopher-lua"
)

// What a failed protected call of gopher-lua carries, read for people:
// its message, traceback and the position of the calling script.

// ErrNotANumber is returned by a Lua scorer whose result is not a number
// (NaN included).
var ErrNotANumber = errors.New("score is not a number")

// ErrorMessage is the message of an error from a protected call, without the
// traceback: "file:line: message".
// An error value that is not a string or a number reads "(error object is a
// table value)", as the lua command says; a table with __tostring gives that
// instead (see VM.pcall). Messages longer than MaxErrorText are cut there,
// so a script cannot make the host keep megabytes per error.
func ErrorMessage(err error) string {
	var ae *lua.ApiError
	msg := ""
	switch {
	case errors.As(err, &ae) && ae.Object != nil:
		switch o := ae.Object.(type) {
		case lua.LString, lua.LNumber:
			msg = o.String()
		default:
			msg = "(error object is a " + o.Type().String() + " value)"
		}
	default:
		msg = err.Error()
	}
	return luatext.CutText(msg, MaxErrorText)
}

// MaxErrorText is the longest error message or traceback kept, in bytes.
const MaxErrorText = 4096

// Detach returns err without the Lua value it carries when that value is
// not a string or number (an error raised with a table or userdata), so a
// caller that keeps errors keeps their message, not what the script
// built. Anything else is returned as it is.
func Detach(err error) error {
	var ae *lua.ApiError
	if !errors.As(err, &ae) || ae.Object == nil {
		return err
	}
	switch ae.Object.(type) {
	case lua.LString, lua.LNumber:
		return err
	}
	if ae2, ok := err.(*lua.ApiError); ok {
		c := *ae2
		c.Object = lua.LString(ErrorMessage(err))
		return &c
	}
	return err
}

// Traceback is the Lua stack traceback of an error from a protected call, or "".
func Traceback(err error) string {
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		return luatext.CutText(ae.StackTrace, MaxErrorText)
	}
	return ""
}

// CallerFile is the chunk name of the Lua function that called the running Go
// function, or "" when there is none.
func CallerFile(L *lua.LState) string {
	for level := 1; level < 8; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			return ""
		}
		if _, err := L.GetInfo("S", dbg, lua.LNil); err != nil {
			return ""
		}
		if dbg.What != "G" && dbg.Source != "" && !strings.HasPrefix(dbg.Source, "=") && !strings.HasPrefix(dbg.Source, "<") {
			return dbg.Source
		}
	}
	return ""
}

// CallerPos is the file and line of the Lua code that called the running Go
// function.
func CallerPos(L *lua.LState) Pos {
	p, _ := SplitPos(L.Where(1) + " ")
	return p
}

// NewTickBudgetError is the error of an agent's tick stopped by its tick
// budget d (Options.TickBudget) while the engine itself was working between
// callbacks, so that no callback's error carries the stop: a *BudgetError
// with Tick set and no position, which ErrorMessage and errors.Is(err,
// ErrBudget) treat as a callback's.
func NewTickBudgetError(d time.Duration) *BudgetError {
	e := &BudgetError{Budget: d, Tick: true}
	SetAPI(e, &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(e.Msg())})
	return e
}

// FuncPos is where a Lua function was written, or def when unknown.
func FuncPos(fn *lua.LFunction, def Pos) Pos {
	if fn != nil && fn.Proto != nil && fn.Proto.LineDefined > 0 {
		return Pos{File: fn.Proto.SourceName, Line: fn.Proto.LineDefined}
	}
	return def
}
