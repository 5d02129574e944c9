package host

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The helpers of the generated adapters (funcs_fast.go): each converts
// like the reflective path (argConverter, toLua) with the same checks and
// messages, for one concrete type, without allocating.

// fastIn is a parameter type the generated adapters read.
type fastIn interface{ float64 | int | bool | string }

// fastOut is a result type the generated adapters push.
type fastOut interface{ float64 | int | bool | string }

// fastArg reads argument n of a call to name as a T, raising as
// argConverter does for a value of another type.
func fastArg[T fastIn](L *lua.LState, n int, name string) (v T) {
	switch p := any(&v).(type) {
	case *float64:
		*p = float64(check(L, n, name, lua.LTNumber).(lua.LNumber))
	case *int:
		f := float64(check(L, n, name, lua.LTNumber).(lua.LNumber))
		if f != math.Trunc(f) || math.IsInf(f, 0) {
			argError(L, n, name, fmt.Sprintf("number %v is not an integer that fits int", f))
		}
		*p = int(int64(f))
	case *bool:
		*p = bool(check(L, n, name, lua.LTBool).(lua.LBool))
	case *string:
		*p = string(check(L, n, name, lua.LTString).(lua.LString))
	}
	return v
}

// fastPush pushes v as toLua converts it.
func fastPush[T fastOut](L *lua.LState, v T) {
	switch p := any(&v).(type) {
	case *float64:
		L.Push(lua.LNumber(*p))
	case *int:
		L.Push(lua.LNumber(*p))
	case *bool:
		L.Push(lua.LBool(*p))
	case *string:
		L.Push(lua.LString(*p))
	}
}

// fastAgent is Caller's agent, raising outside an agent's callback.
func fastAgent(L *lua.LState, name string) *Agent {
	a, ok := Caller(L)
	if !ok {
		L.RaiseError("%s: called outside an agent's callback", name)
	}
	return a
}

// fastRaise raises a function's returned error at the calling line.
func fastRaise(L *lua.LState, err error) {
	L.RaiseError("%s", err.Error())
}
