package defs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// The small readers of a definition's optional fields, and how a value is
// named in a definition error.

// The small readers of optional fields: absent (nil) reads as the zero
// value; a value of another type is reported as "what: key must be …, got
// type" and reads as the zero value.

func (d *decoder) optTable(t *lua.LTable, key, what, want string) *lua.LTable {
	v := t.RawGetString(key)
	if v == lua.LNil {
		return nil
	}
	tv, ok := v.(*lua.LTable)
	if !ok {
		d.fieldErrorf(key, "%s: %s must be %s, got %s", what, key, want, describeLua(v))
	}
	return tv
}

func (d *decoder) optBool(t *lua.LTable, key, what string) bool {
	v := t.RawGetString(key)
	if v == lua.LNil {
		return false
	}
	b, ok := v.(lua.LBool)
	if !ok {
		d.fieldErrorf(key, "%s: %s must be a boolean, got %s", what, key, describeLua(v))
	}
	return bool(b)
}

func (d *decoder) optFunc(t *lua.LTable, key, what string) *lua.LFunction {
	v := t.RawGetString(key)
	if v == lua.LNil {
		return nil
	}
	fn, ok := v.(*lua.LFunction)
	if !ok {
		d.fieldErrorf(key, "%s: %s must be a function, got %s", what, key, describeLua(v))
	}
	return fn
}

func (d *decoder) optNumber(t *lua.LTable, key, what string) float64 {
	v := t.RawGetString(key)
	if v == lua.LNil {
		return 0
	}
	n, ok := luabind.NumberOf(v)
	if !ok {
		d.fieldErrorf(key, "%s: %s must be a number, got %s", what, key, describeLua(v))
	}
	return n
}

// noReturnHint explains a state that is true when a module forgot its
// return: ` (require("guard") returned true: does guard.lua end with
// return ai.fsm{…}?)`.
func (d *decoder) noReturnHint(v lua.LValue) string {
	if v != lua.LTrue {
		return ""
	}
	var hints []string
	for name, file := range luabind.ModulesWithoutReturn(d.L) {
		hints = append(hints, fmt.Sprintf("require(%q) returned true: does %s end with return ai.fsm{…}?", name, file))
	}
	if len(hints) == 0 {
		return ""
	}
	sort.Strings(hints)
	return " (" + strings.Join(hints, "; ") + ")"
}

// describeLua writes a value for an error with its type: `the boolean
// true`, `the string "2"`, `the number 3`, `a function`; never empty.
func describeLua(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LBool:
		return fmt.Sprintf("the boolean %v", bool(v))
	case lua.LString:
		return fmt.Sprintf("the string %q", luatext.CutText(string(v), 40))
	case lua.LNumber:
		return "the number " + formatNumber(float64(v))
	case *lua.LNilType:
		return "nil"
	}
	t := v.Type().String()
	if strings.IndexByte("aeiou", t[0]) >= 0 {
		return "an " + t
	}
	return "a " + t
}
