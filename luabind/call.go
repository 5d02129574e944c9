package luabind

import (
	"errors"

	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/luaval"
	"github.com/luaai/luaai/internal/scripterr"
	lua "github.com/yuin/gopher-lua"
)

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
		if vm.runDiscard(fn, 2, ctx, lua.LNumber(dt)) {
			return nil
		}
	} else if vm.runDiscard(fn, 1, ctx, lua.LNil) {
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
	if vm.runDiscard(fn, 2, ctx, dt) { // compiled.go
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
	if p := vm.program(fn); p != nil && vm.mayRunCompiled(p) {
		if vm.timer == nil {
			// A scorer that is one expression over numbers: its number,
			// without the boxing of a Result.
			if n, steps, ok := p.RunNumber(ctx); ok {
				vm.chargeCompiled(steps)
				if n == n {
					return n, nil
				}
				return 0, &notANumber{got: "number"}
			}
		}
		if r, ok := vm.runProgram(p, fn, 1, ctx, lua.LNil); ok {
			if n, isNum := r.Number(); isNum && n == n {
				return n, nil
			}
			return 0, &notANumber{got: r.Value().Type().String()}
		}
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
	n, ok := luaval.NumberOf(v)
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
func (e *notANumber) Unwrap() error { return scripterr.ErrNotANumber }

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
	ae.StackTrace = luatext.CutText(ae.StackTrace, scripterr.MaxErrorText)
	if s, ok := ae.Object.(lua.LString); ok {
		ae.Object = lua.LString(luatext.CutText(string(s), scripterr.MaxErrorText))
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
			ae.Object = lua.LString(luatext.CutText(string(s), scripterr.MaxErrorText))
		}
	}
	L.SetTop(top)
}
