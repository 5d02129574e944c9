// Package scripterr holds the errors of scripts that luabind, luabind/defs
// and host share: a position in a script (Pos), a problem (Error) and the
// list of them (ErrorList), the error of a call stopped by a budget
// (BudgetError) and the sentinels they wrap. host re-exports the ones a
// game names.
package scripterr

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Pos is a place in a script: the file as it was loaded and a 1-based line.
// A zero Line means the line is unknown.
type Pos struct {
	File string
	Line int
}

// String formats the position as "file:line", or "file" when the line is unknown.
func (p Pos) String() string {
	if p.Line <= 0 {
		return p.File
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

// Error is one problem found in a script, in the shape of go/scanner.Error.
type Error struct {
	Pos Pos
	Msg string
}

// Error formats the problem as "file:line: message".
func (e *Error) Error() string {
	if e.Pos.File == "" {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// ErrorList is every problem found while loading a behaviour. It is sorted by
// position when built by the loader, and prints one "file:line: message" a line.
type ErrorList []*Error

// Add appends a problem.
func (l *ErrorList) Add(pos Pos, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Sort orders the list by file, then line, keeping the order of equal positions.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].Pos.File != l[j].Pos.File {
			return l[i].Pos.File < l[j].Pos.File
		}
		return l[i].Pos.Line < l[j].Pos.Line
	})
}

// Error joins every problem, one a line.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns nil for an empty list, else the list itself.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Unwrap lets errors.Is and errors.As look at each problem.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// ErrInvalidDefinition is matched (errors.Is) by every non-empty ErrorList:
// a script that does not compile, fails while it runs, or returns an
// invalid definition. A caller tells a refused behaviour from a file that
// cannot be read (fs errors) or a load stopped by its budget (ErrBudget).
var ErrInvalidDefinition = errors.New("invalid behaviour definition")

// Is reports whether target is ErrInvalidDefinition, for a non-empty list.
func (l ErrorList) Is(target error) bool { return target == ErrInvalidDefinition && len(l) > 0 }

// SplitPos takes a Lua error message of the form "file:line: message" apart.
// It returns a zero Pos and the whole message when there is no position.
func SplitPos(msg string) (Pos, string) {
	// Lua messages look like "scripts/a.lua:12: boom". The file may itself
	// contain ':' (Windows drive letters), so look for ":<digits>:" from the left.
	for i := 0; i < len(msg); i++ {
		if msg[i] != ':' {
			continue
		}
		j := i + 1
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(msg) && msg[j] == ':' {
			line, err := strconv.Atoi(msg[i+1 : j])
			if err != nil {
				return Pos{}, msg
			}
			rest := strings.TrimPrefix(msg[j+1:], " ")
			file := msg[:i]
			if strings.ContainsAny(file, " \n\t") {
				return Pos{}, msg
			}
			return Pos{File: file, Line: line}, rest
		}
	}
	return Pos{}, msg
}

// ErrLongList: a list longer than a luaai table's sequence holds
// (luabind.MaxSequence): its later elements would be ordinary keys, which #
// and ipairs do not see.
var ErrLongList = errors.New("list too long")
