package host

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// Module is one module of Go functions for Options.Modules: require(name)
// in a script returns a read-only table of them.
type Module = map[string]lua.LGFunction

// workerKey is where a worker's Lua state keeps its worker, for Caller.
const workerKey = "luaai.host.worker"

// Caller is the agent whose callback is running on L: the agent a module
// function (Options.Modules, Options.Funcs) or a bound Go method was called
// for, so a game moves the unit of the agent that asked and no other.
// ok is false outside an agent's callback (a script's main chunk while it
// loads) and for a state no Host made.
//
// Caller is safe on the worker goroutine that runs L. The Agent's read
// methods (Get, Number, State, UserData…) serve the agent Caller returns
// there; while the workers tick they refuse every other agent (a zero
// value, reported once to OnError: see the package's Concurrency
// section), and the methods that change agents return ErrReentrant until
// the tick is over (write the context from Lua instead).
func Caller(L *lua.LState) (*Agent, bool) {
	if L == nil {
		return nil, false
	}
	ud, ok := L.G.Registry.RawGetString(workerKey).(*lua.LUserData)
	if !ok {
		return nil, false
	}
	w, ok := ud.Value.(*worker)
	if !ok {
		return nil, false
	}
	r, ok := w.vm.Runner().(runner)
	if !ok {
		if c, ok := w.vm.Runner().(callerRunner); ok {
			a := c.caller()
			return a, a != nil
		}
		return nil, false
	}
	if r.a == nil {
		return nil, false
	}
	return r.a, true
}

// callerRunner is a runner other than the host's that names the agent
// Caller returns (the benchmarks' floor: bare ai.* functions for an
// agent's recorded calls).
type callerRunner interface{ caller() *Agent }

// ErrBadFunc: a value of Options.Funcs (or given to Func) that is not a
// function Func can convert.
var ErrBadFunc = errors.New("not a function luaai can call from Lua")

// Func converts a typed Go function into a module function, so a game need
// not write gopher-lua calls:
//
//	host.Func(func(a *host.Agent, x, y float64) (float64, error) { … })
//
// An optional first parameter *Agent receives Caller's agent (a call from
// outside an agent's callback is then a Lua error). The other parameters
// take Lua values converted to bool, string, any integer or float type
// (a number with a fraction for an integer is refused), any (plain data,
// as Agent.Get gives it), map[string]any or []any. Results are converted back like a
// context value; a last result of type error that is not nil becomes a
// Lua error at the script's line. A wrong argument raises "bad argument #n
// to 'name' (number expected, got string)". fn is inspected once, here.
//
// The common shapes are called without reflection, through an adapter
// written for their concrete type (funcs_fast.go). They allocate no more
// than a hand-written lua.LGFunction. These are any mix of float64 and
// int with up to 4 parameters, up to 4 results and 5 in all, and any mix
// of float64, int, bool and string with 2 in all, each with or without
// the *Agent and the error. Every other shape goes through
// reflect.Value.Call, with the same checks and results, and allocates on
// every call: about 2, plus 1 per argument and 2 per result.
func Func(fn any) (lua.LGFunction, error) { return makeFunc("?", fn) }

var (
	agentType = reflect.TypeFor[*Agent]()
	errorType = reflect.TypeFor[error]()
)

// makeFunc is Func for Options.Funcs[module][fname], name being
// "module.fname": the fast adapter of fn's shape if there is one, else the
// reflective one.
func makeFunc(name string, fn any) (lua.LGFunction, error) {
	if f := fastFunc(name, fn); f != nil {
		return f, nil
	}
	return reflectFunc(name, fn)
}

// reflectFunc is makeFunc for any shape, through reflect.Value.Call: each
// call allocates its arguments and results (see Func). It is the fallback
// for the shapes fastFunc does not cover, and the reference the fast
// adapters are tested against.
func reflectFunc(name string, fn any) (lua.LGFunction, error) {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return nil, fmt.Errorf("%s: %T: %w", name, fn, ErrBadFunc)
	}
	t := v.Type()
	if t.IsVariadic() {
		return nil, fmt.Errorf("%s: %v is variadic: %w", name, t, ErrBadFunc)
	}
	first := 0
	wantAgent := t.NumIn() > 0 && t.In(0) == agentType
	if wantAgent {
		first = 1
	}
	args := make([]func(L *lua.LState, n int) reflect.Value, 0, t.NumIn())
	for i := first; i < t.NumIn(); i++ {
		conv, err := argConverter(name, t.In(i))
		if err != nil {
			return nil, fmt.Errorf("%s: parameter %d: %w", name, i+1, err)
		}
		args = append(args, conv)
	}
	nout := t.NumOut()
	hasErr := nout > 0 && t.Out(nout-1) == errorType
	if hasErr {
		nout--
	}
	for i := 0; i < nout; i++ {
		if t.Out(i) == errorType {
			return nil, fmt.Errorf("%s: only the last result may be an error: %w", name, ErrBadFunc)
		}
	}
	return func(L *lua.LState) int {
		in := make([]reflect.Value, 0, t.NumIn())
		if wantAgent {
			a, ok := Caller(L)
			if !ok {
				L.RaiseError("%s: called outside an agent's callback", name)
			}
			in = append(in, reflect.ValueOf(a))
		}
		for i, conv := range args {
			in = append(in, conv(L, i+1))
		}
		out := v.Call(in)
		if hasErr {
			if err, _ := out[nout].Interface().(error); err != nil {
				L.RaiseError("%s", err.Error())
			}
		}
		for i := 0; i < nout; i++ {
			L.Push(toLua(L, out[i].Interface()))
		}
		return nout
	}, nil
}

// argError raises "bad argument #n to 'name' (msg)".
func argError(L *lua.LState, n int, name, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, name, msg)
}

// check returns argument n if it has type want, else raises.
func check(L *lua.LState, n int, name string, want lua.LValueType) lua.LValue {
	v := L.Get(n)
	if v.Type() != want {
		argError(L, n, name, fmt.Sprintf("%s expected, got %s", want, luaTypeName(v)))
	}
	return v
}

func luaTypeName(v lua.LValue) string {
	if v == lua.LNil {
		return "no value"
	}
	return v.Type().String()
}

// argConverter reads argument n of a call to name as a value of type t.
func argConverter(name string, t reflect.Type) (func(L *lua.LState, n int) reflect.Value, error) {
	switch t.Kind() {
	case reflect.Bool:
		return func(L *lua.LState, n int) reflect.Value {
			return reflect.ValueOf(bool(check(L, n, name, lua.LTBool).(lua.LBool))).Convert(t)
		}, nil
	case reflect.String:
		return func(L *lua.LState, n int) reflect.Value {
			return reflect.ValueOf(string(check(L, n, name, lua.LTString).(lua.LString))).Convert(t)
		}, nil
	case reflect.Float32, reflect.Float64:
		return func(L *lua.LState, n int) reflect.Value {
			return reflect.ValueOf(float64(check(L, n, name, lua.LTNumber).(lua.LNumber))).Convert(t)
		}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(L *lua.LState, n int) reflect.Value {
			f := float64(check(L, n, name, lua.LTNumber).(lua.LNumber))
			r := reflect.New(t).Elem()
			if f != math.Trunc(f) || math.IsInf(f, 0) || (r.CanInt() && r.OverflowInt(int64(f))) ||
				(r.CanUint() && (f < 0 || r.OverflowUint(uint64(f)))) {
				argError(L, n, name, fmt.Sprintf("number %v is not an integer that fits %v", f, t))
			}
			if r.CanInt() {
				r.SetInt(int64(f))
			} else {
				r.SetUint(uint64(f))
			}
			return r
		}, nil
	case reflect.Interface:
		if t.NumMethod() != 0 {
			break
		}
		return func(L *lua.LState, n int) reflect.Value {
			v := luaval.ToGo(L.Get(n))
			if v == nil {
				return reflect.Zero(t)
			}
			return reflect.ValueOf(v)
		}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Elem().Kind() != reflect.Interface || t.Elem().NumMethod() != 0 {
			break
		}
		return func(L *lua.LState, n int) reflect.Value {
			tb := check(L, n, name, lua.LTTable).(*lua.LTable)
			m, ok := luaval.ToGo(tb).(map[string]any)
			if !ok {
				m = map[string]any{}
				if tb.Len() > 0 {
					argError(L, n, name, "table with string keys expected, got a list")
				}
			}
			return reflect.ValueOf(m).Convert(t)
		}, nil
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Interface || t.Elem().NumMethod() != 0 {
			break
		}
		return func(L *lua.LState, n int) reflect.Value {
			tb := check(L, n, name, lua.LTTable).(*lua.LTable)
			s, ok := luaval.ToGo(tb).([]any)
			if !ok {
				s = []any{}
				if k, _ := tb.Next(lua.LNil); k != lua.LNil {
					argError(L, n, name, "list expected, got a table with other keys")
				}
			}
			return reflect.ValueOf(s).Convert(t)
		}, nil
	}
	return nil, fmt.Errorf("%v: %w (bool, string, numbers, any, map[string]any, []any and a first *host.Agent are)", t, ErrBadFunc)
}

// funcModules converts Options.Funcs and merges them with Options.Modules.
func funcModules(mods map[string]Module, funcs map[string]map[string]any) (map[string]Module, error) {
	if len(funcs) == 0 {
		return mods, nil
	}
	out := make(map[string]Module, len(mods)+len(funcs))
	for name, m := range mods {
		out[name] = m
	}
	for _, name := range sortedMapKeys(funcs) {
		if name == "" || name == "luaai" {
			return nil, fmt.Errorf("Options.Funcs: a module may not be named %q", name)
		}
		merged := Module{}
		for k, f := range out[name] {
			merged[k] = f
		}
		for _, fname := range sortedMapKeys(funcs[name]) {
			if _, dup := merged[fname]; dup {
				return nil, fmt.Errorf("Options.Funcs[%q][%q] is also in Options.Modules", name, fname)
			}
			f, err := makeFunc(name+"."+fname, funcs[name][fname])
			if err != nil {
				return nil, fmt.Errorf("Options.Funcs: %w", err)
			}
			merged[fname] = f
		}
		out[name] = merged
	}
	return out, nil
}
