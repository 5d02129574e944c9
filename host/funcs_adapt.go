package host

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The helpers of the generated adapters (funcs_fast.go): each converts
// like the reflective path (argConverter, toLua) with the same checks and
// messages, for one concrete type, without allocating.

// fastFloat reads argument n of a call to name as a float64.
func fastFloat(L *lua.LState, n int, name string) float64 {
	if v, ok := L.Get(n).(lua.LNumber); ok {
		return float64(v)
	}
	return float64(check(L, n, name, lua.LTNumber).(lua.LNumber))
}

// fastInt reads argument n of a call to name as an int: a number without
// a fraction, as argConverter reads one.
func fastInt(L *lua.LState, n int, name string) int {
	f := fastFloat(L, n, name)
	if f != math.Trunc(f) || math.IsInf(f, 0) {
		argError(L, n, name, fmt.Sprintf("number %v is not an integer that fits int", f))
	}
	return int(int64(f))
}

// fastBool reads argument n of a call to name as a bool.
func fastBool(L *lua.LState, n int, name string) bool {
	if v, ok := L.Get(n).(lua.LBool); ok {
		return bool(v)
	}
	return bool(check(L, n, name, lua.LTBool).(lua.LBool))
}

// fastString reads argument n of a call to name as a string.
func fastString(L *lua.LState, n int, name string) string {
	if v, ok := L.Get(n).(lua.LString); ok {
		return string(v)
	}
	return string(check(L, n, name, lua.LTString).(lua.LString))
}

// fastAgent is Caller's agent, raising outside an agent's callback.
func fastAgent(L *lua.LState, name string) *Agent {
	a, ok := Caller(L)
	if !ok {
		L.RaiseError("%s: called outside an agent's callback", name)
	}
	return a
}

// fastNumbers is the number block of the worker whose Lua state L is (the
// Lua numbers a typed function returns are boxed in blocks, as gopher-lua
// boxes the numbers scripts compute), nil for a state no Host made.
func fastNumbers(L *lua.LState) *numberBlock {
	if ud, ok := L.G.Registry.RawGetString(workerKey).(*lua.LUserData); ok {
		if w, ok := ud.Value.(*worker); ok {
			return &w.nums
		}
	}
	return nil
}

// fastRaise raises a function's returned error at the calling line.
func fastRaise(L *lua.LState, err error) {
	L.RaiseError("%s", err.Error())
}
