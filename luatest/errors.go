package luatest

import (
	"strings"

	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// Assertions about errors: has_error, error_matches and what a raised
// value reads as in a failure.

func checkError(r *runner, L *lua.LState, a args, neg bool, _ *chain) *failure {
	fn, want := a.at(1), a.at(2)
	if !callable(fn) {
		L.ArgError(1, "a function (or a callable table) expected, got "+fn.Type().String())
	}
	switch want.(type) {
	case *lua.LNilType, lua.LString, lua.LNumber, *lua.LTable:
	default:
		L.ArgError(2, "a pattern string or an error value expected, got "+want.Type().String())
	}
	obj, errored := r.protect(L, fn)
	matches := errored
	if errored && want != lua.LNil {
		matches = errorMatches(obj, want, r.vm)
	}
	if matches != neg {
		return nil
	}
	expected := "an error"
	if want != lua.LNil {
		if _, isTable := want.(*lua.LTable); isTable {
			expected = "an error with value " + formatValue(want)
		} else {
			expected = "an error matching " + formatValue(lua.LString(lua.LVAsString(want)))
		}
	}
	if neg {
		expected = "no " + strings.TrimPrefix(expected, "an ")
	}
	return &failure{Expected: expected, Actual: errorActual(obj, errored), values: true}
}

// checkErrorMatches is error_matches(fn, pattern [, init [, plain]]): the
// message fn raises, without its position, matches the pattern.
func checkErrorMatches(r *runner, L *lua.LState, a args, neg bool, _ *chain) *failure {
	fn, pat := a.at(1), a.at(2)
	if !callable(fn) {
		L.ArgError(1, "a function (or a callable table) expected, got "+fn.Type().String())
	}
	if _, ok := pat.(lua.LString); !ok && pat != lua.LNil {
		L.ArgError(2, "a pattern string expected, got "+pat.Type().String())
	}
	obj, errored := r.protect(L, fn)
	ok := false
	if errored {
		if pat == lua.LNil {
			ok = obj == lua.LNil
		} else if msg, isText := errorMessage(obj); isText {
			ok = findIn(r, L, msg, pat, a.at(3), a.at(4))
		}
	}
	if ok != neg {
		return nil
	}
	expected := "an error matching " + formatValue(pat)
	if neg {
		expected = "no error matching " + formatValue(pat)
	}
	return &failure{Expected: expected, Actual: errorActual(obj, errored), values: true}
}

// protect calls fn under the budget and returns the error value it raised.
func (r *runner) protect(L *lua.LState, fn lua.LValue) (lua.LValue, bool) {
	f, ok := fn.(*lua.LFunction)
	if !ok {
		// A callable table (luassert takes any callable): called through
		// its __call.
		f = L.NewFunction(func(L *lua.LState) int {
			L.Push(fn)
			L.Call(0, 0)
			return 0
		})
	}
	if err := r.call(f); err != nil {
		return errorObject(err), true
	}
	return nil, false
}

func errorActual(obj lua.LValue, errored bool) string {
	if !errored {
		return "no error"
	}
	return errorValue(obj)
}

// errorMessage is an error value's message without its position, when it
// has one (a string, a number, a failed assertion).
func errorMessage(obj lua.LValue) (string, bool) {
	switch o := obj.(type) {
	case lua.LString:
		_, msg := scripterr.SplitPos(string(o))
		return msg, true
	case lua.LNumber:
		return formatNumber(float64(o)), true
	}
	if f := failureOf(obj); f != nil {
		return f.Desc(), true
	}
	return "", false
}

// errorValue shows an error value: a message quoted without its
// position, anything else Lua-style.
func errorValue(obj lua.LValue) string {
	if msg, ok := errorMessage(obj); ok {
		if _, isNum := obj.(lua.LNumber); !isNum {
			return luatext.Quote(msg)
		}
	}
	return formatValue(obj)
}

// The pattern runs on the budgeted matcher: a pathological pattern is
// stopped with the test's budget like anything else the test does.
func errorMatches(obj, want lua.LValue, vm *defs.VM) bool {
	if wt, ok := want.(*lua.LTable); ok {
		same, _ := deepSame(wt, obj, "", nil)
		return same
	}
	msg, ok := errorMessage(obj)
	if !ok {
		return false
	}
	pat := lua.LVAsString(want)
	if strings.Contains(msg, pat) {
		return true
	}
	ok, err := vm.Find(msg, pat)
	return err == nil && ok
}

// checkReturnedArguments is returned_arguments(n, ...): the call inside
// returned n values.
