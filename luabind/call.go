package luabind

import (
	"errors"

	"github.com/luaai/luaai/internal/luatext"
	lua "github.com/yuin/gopher-lua"
)

// ErrNotANumber is returned by a Lua scorer whose result is not a number
// (NaN included).
var ErrNotANumber = errors.New("score is not a number")

// Call runs fn(args...) protected and returns its first result. The Lua
// stack is left as it was. Like the other Call* helpers it runs under
// Options.Budget: a call stopped for running too long returns a
// *BudgetError (errors.Is ErrBudget), a Go panic in a function it calls
// comes back as an error.
func (vm *VM) Call(fn *lua.LFunction, args ...lua.LValue) (lua.LValue, error) {
	L := vm.L
	top := L.GetTop()
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	if err := vm.pcall(len(args), 1, false); err != nil {
		L.SetTop(top)
		return lua.LNil, err
	}
	v := L.Get(-1)
	L.SetTop(top)
	return v, nil
}

// CallHook runs a hook: fn(ctx) or, with hasDt, fn(ctx, dt).
func (vm *VM) CallHook(fn *lua.LFunction, ctx *lua.LTable, hasDt bool, dt float64) error {
	if hasDt {
		if _, ok := vm.runCompiled(fn, 2, ctx, lua.LNumber(dt)); ok {
			return nil
		}
	} else if _, ok := vm.runCompiled(fn, 1, ctx, lua.LNil); ok {
		return nil
	}
	L := vm.L
	top := L.GetTop()
	L.Push(fn)
	L.Push(ctx)
	n := 1
	if hasDt {
		L.Push(lua.LNumber(dt))
		n = 2
	}
	err := vm.pcall(n, 0, false)
	L.SetTop(top)
	return err
}

// CallUpdate runs an update hook fn(ctx, dt) with dt already a Lua value,
// so a tick that passes the same dt to many agents boxes it once; it also
// runs enter(ctx, payload) and resume(ctx, payload).
func (vm *VM) CallUpdate(fn *lua.LFunction, ctx *lua.LTable, dt lua.LValue) error {
	if _, ok := vm.runCompiled(fn, 2, ctx, dt); ok { // compiled.go
		return nil
	}
	L := vm.L
	top := L.GetTop()
	L.Push(fn)
	L.Push(ctx)
	L.Push(dt)
	err := vm.pcall(2, 0, false)
	L.SetTop(top)
	return err
}

// CallStatus runs a behaviour-tree action or a step, fn(ctx, dt), and
// returns its first result.
func (vm *VM) CallStatus(fn *lua.LFunction, ctx *lua.LTable, dt lua.LValue) (lua.LValue, error) {
	if r, ok := vm.runCompiled(fn, 2, ctx, dt); ok {
		return r.Value(), nil
	}
	L := vm.L
	top := L.GetTop()
	L.Push(fn)
	L.Push(ctx)
	L.Push(dt)
	if err := vm.pcall(2, 1, false); err != nil {
		L.SetTop(top)
		return lua.LNil, err
	}
	v := L.Get(-1)
	L.SetTop(top)
	return v, nil
}

// CallBool runs fn(ctx, payload) and reads Lua truthiness.
func (vm *VM) CallBool(fn *lua.LFunction, ctx *lua.LTable, payload lua.LValue) (bool, error) {
	if r, ok := vm.runCompiled(fn, 2, ctx, payload); ok {
		return r.Truthy(), nil
	}
	L := vm.L
	top := L.GetTop()
	L.Push(fn)
	L.Push(ctx)
	L.Push(payload)
	if err := vm.pcall(2, 1, false); err != nil {
		L.SetTop(top)
		return false, err
	}
	v := L.Get(-1)
	L.SetTop(top)
	return lua.LVAsBool(v), nil
}

// CallNumber runs fn(ctx) and reads a number; anything else is ErrNotANumber.
func (vm *VM) CallNumber(fn *lua.LFunction, ctx *lua.LTable) (float64, error) {
	if r, ok := vm.runCompiled(fn, 1, ctx, lua.LNil); ok {
		if n, isNum := r.Number(); isNum && n == n {
			return n, nil
		}
		return 0, &notANumber{got: r.Value().Type().String()}
	}
	L := vm.L
	top := L.GetTop()
	L.Push(fn)
	L.Push(ctx)
	if err := vm.pcall(1, 1, false); err != nil {
		L.SetTop(top)
		return 0, err
	}
	v := L.Get(-1)
	L.SetTop(top)
	n, ok := NumberOf(v)
	if !ok {
		return 0, &notANumber{got: v.Type().String()}
	}
	return n, nil
}

type notANumber struct{ got string }

func (e *notANumber) Error() string {
	if e.got == "number" {
		return "score is NaN"
	}
	return "score is a " + e.got + ", not a number"
}
func (e *notANumber) Unwrap() error { return ErrNotANumber }

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

// stringifyError gives an error value that is a table with a __tostring
// metamethod its string, as the lua command prints it (it runs inside the
// failed call's budget), and cuts a string value and the traceback to
// MaxErrorText: whoever keeps the error keeps kilobytes, not the megabytes
// a script may raise.
func (vm *VM) stringifyError(err error) {
	if err == nil {
		return // before ae: its address escapes, so declaring it allocates
	}
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return
	}
	ae.StackTrace = luatext.CutText(ae.StackTrace, MaxErrorText)
	if s, ok := ae.Object.(lua.LString); ok {
		ae.Object = lua.LString(luatext.CutText(string(s), MaxErrorText))
		return
	}
	if _, ok := ae.Object.(*lua.LTable); !ok || ae.Object == nil {
		return // userdata stay as they are: the test runner's failures are
	}
	L := vm.L
	mm := L.GetMetaField(ae.Object, "__tostring")
	if mm.Type() != lua.LTFunction {
		return
	}
	top := L.GetTop()
	L.Push(mm)
	L.Push(ae.Object)
	if L.PCall(1, 1, nil) == nil {
		if s, ok := L.Get(-1).(lua.LString); ok {
			ae.Object = lua.LString(luatext.CutText(string(s), MaxErrorText))
		}
	}
	L.SetTop(top)
}
