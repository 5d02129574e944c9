package host

// The rule of writes into a context from outside the scripts: luaai run's
// --set, --input and console set, the inspector's set, and ai.spawn's
// overrides all ask Behaviour.CheckWrite, so they accept and refuse the
// same values with the same messages.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/luaval"
	"github.com/luaai/luaai/internal/suggest"
	lua "github.com/yuin/gopher-lua"
)

// Errors of CheckWrite, wrapped by its *WriteError.
var (
	// ErrUnknownKey: the path names a key the behaviour's context
	// defaults do not have.
	ErrUnknownKey = errors.New("not a key of the context")
	// ErrValueType: the value is not of its default's type.
	ErrValueType = errors.New("not of the default's type")
)

// WriteError is a write CheckWrite refuses. Its message says what is
// wrong in a modder's words: `"hpp" is not a key of the context (did you
// mean "hp"?)`, `the default is a number, got a string`, `"hp" is a
// number, not a table`.
type WriteError struct {
	Path []string // the path written
	Msg  string
	Err  error // ErrUnknownKey, ErrBadPath or ErrValueType
}

// Error is the message, naming the path and what was wrong with the write.
func (e *WriteError) Error() string { return e.Msg }

// Unwrap is the kind of refusal: ErrUnknownKey, ErrBadPath or ErrValueType.
func (e *WriteError) Unwrap() error { return e.Err }

// CheckWrite says whether a write from outside the scripts may put value
// (plain data: numbers, strings, booleans, maps and slices, as JSON
// decodes them) at path of a context of b. The rule, for every such write
// (luaai run's --set, --input and console set, the inspector's set,
// ai.spawn's overrides):
//
//   - each key of the path must be a key of the defaults, or of the table
//     default it reaches into; below an empty table default ({}) anything
//     goes;
//   - the value must have the default's type (number, string, boolean,
//     table), except that a default of false or {} — the "none yet" idiom —
//     accepts any value.
//
// A Go game writing with Agent.Set or Spawn is not held to it. A nil error
// means the write is allowed.
func (b *Behaviour) CheckWrite(path []string, value any) error {
	if len(path) == 0 {
		return &WriteError{Path: path, Msg: "no key given", Err: ErrUnknownKey}
	}
	// Only the default under the first key is converted to Go (a spawn
	// checks its overrides), the whole defaults only for a did-you-mean.
	defaults := b.layout().defaults
	top := defaults.RawGetString(path[0])
	if top == lua.LNil {
		return unknownKey(path, 0, b.Defaults())
	}
	cur := luaval.ToGo(top)
	for i, k := range path[1:] {
		i++
		switch m := cur.(type) {
		case map[string]any:
			if len(m) == 0 {
				return nil // below {}: anything
			}
			d, ok := m[k]
			if !ok {
				return unknownKey(path, i, m)
			}
			cur = d
		case []any:
			return nil // a list default: its items are not checked
		default:
			return &WriteError{Path: path, Err: ErrBadPath,
				Msg: fmt.Sprintf("%q is %s, not a table", strings.Join(path[:i], "."), link.KindOf(cur))}
		}
	}
	if takesAny(cur) || link.KindOf(value) == link.KindOf(cur) {
		return nil
	}
	return &WriteError{Path: path, Err: ErrValueType,
		Msg: fmt.Sprintf("the default is %s, got %s", link.KindOf(cur), describeGot(value))}
}

// Default returns the default at path of b's contexts, and whether there
// is one.
func (b *Behaviour) Default(path []string) (any, bool) {
	var cur any = b.Defaults()
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// takesAny: a default of false or {} accepts any value.
func takesAny(def any) bool {
	switch d := def.(type) {
	case bool:
		return !d
	case map[string]any:
		return len(d) == 0
	case []any:
		return len(d) == 0
	}
	return false
}

func unknownKey(path []string, i int, m map[string]any) error {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	msg := fmt.Sprintf("%q is not a key of the context", strings.Join(path[:i+1], "."))
	if best := suggest.Closest(path[i], names); best != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", strings.Join(append(append([]string(nil), path[:i]...), best), "."))
	}
	return &WriteError{Path: path, Msg: msg, Err: ErrUnknownKey}
}

// describeGot says what a refused value is, with its type: `a number (3)`,
// `the string "lots"`, `a table`.
func describeGot(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", luatext.CutText(x, 40))
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case nil:
		return "nil"
	}
	if link.KindOf(v) == "a number" {
		return fmt.Sprintf("the number %v", v)
	}
	return link.KindOf(v)
}
