package host

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// shapeImpl is a function of shape s made with reflect.MakeFunc (so its
// dynamic type is the concrete func type the generated switch names): its
// results are computed from its arguments and the caller's id; it returns
// an error or panics as *mode says.
func shapeImpl(s fastShape, mode *string) any {
	t := s.reflectType()
	return reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		sum, text := 0.0, ""
		for _, v := range in {
			switch x := v.Interface().(type) {
			case *Agent:
				sum += float64(x.ID()) * 100
			case float64:
				sum += x
			case int:
				sum += float64(x) * 3
			case bool:
				if x {
					sum += 7
				}
			case string:
				text += x
			}
		}
		if *mode == "panic" {
			panic("kaboom " + text)
		}
		out := make([]reflect.Value, t.NumOut())
		for i := range out {
			switch t.Out(i) {
			case errorType:
				var err error
				if *mode == "error" {
					err = fmt.Errorf("failed with %g %q", sum, text)
				}
				out[i] = reflect.ValueOf(&err).Elem()
			case reflect.TypeFor[float64]():
				out[i] = reflect.ValueOf(sum + float64(i) + 0.25)
			case reflect.TypeFor[int]():
				out[i] = reflect.ValueOf(int(sum) + i)
			case reflect.TypeFor[bool]():
				out[i] = reflect.ValueOf(int(sum+float64(i))%2 == 0)
			case reflect.TypeFor[string]():
				out[i] = reflect.ValueOf(fmt.Sprintf("%s/%g/%d", text, sum, i))
			}
		}
		return out
	}).Interface()
}

// shapeArgs lists argument lists for a shape's parameters: good ones, and
// each way one argument can be refused.
func shapeArgs(params []string) [][]lua.LValue {
	good := make([]lua.LValue, len(params))
	for i, p := range params {
		switch p {
		case "float64":
			good[i] = lua.LNumber(1.5 * float64(i+1))
		case "int":
			good[i] = lua.LNumber(i + 2)
		case "bool":
			good[i] = lua.LBool(i%2 == 0)
		case "string":
			good[i] = lua.LString(fmt.Sprintf("s%d", i))
		}
	}
	lists := [][]lua.LValue{good, append(append([]lua.LValue(nil), good...), lua.LString("extra"))}
	for i, p := range params {
		bad := func(v lua.LValue) {
			l := append([]lua.LValue(nil), good...)
			l[i] = v
			lists = append(lists, l)
		}
		lists = append(lists, good[:i]) // missing: "got no value"
		bad(lua.LNil)
		bad(&lua.LTable{})
		switch p {
		case "float64":
			bad(lua.LString("7"))
			bad(lua.LNumber(math.Inf(1)))
		case "int":
			bad(lua.LString("7"))
			bad(lua.LNumber(2.5))
			bad(lua.LNumber(math.Inf(-1)))
			bad(lua.LNumber(math.NaN()))
			bad(lua.LNumber(-4))
		case "bool":
			bad(lua.LNumber(1))
		case "string":
			bad(lua.LNumber(3))
			bad(lua.LBool(true))
		}
	}
	return lists
}

// callOutcome calls fn on L with args and describes what came back: the
// results (type and text) or the error's message.
func callOutcome(L *lua.LState, fn lua.LGFunction, args []lua.LValue) string {
	top := L.GetTop()
	defer L.SetTop(top)
	L.Push(L.NewFunction(fn))
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), lua.MultRet, nil); err != nil {
		var api *lua.ApiError
		if errors.As(err, &api) {
			return "error: " + api.Object.String()
		}
		return "error: " + err.Error()
	}
	var out []string
	for i := top + 1; i <= L.GetTop(); i++ {
		v := L.Get(i)
		out = append(out, v.Type().String()+" "+v.String())
	}
	return strings.Join(out, ", ")
}

// Every shape the generated adapters cover gives the same results, the
// same argument errors, the same returned errors and the same panics as
// the reflective path, inside an agent's callback and outside one.
func TestFastFuncsMatchReflection(t *testing.T) {
	shapes := fastShapes()
	calls := 0
	h, err := New(Options{Budget: -1, Modules: map[string]Module{"t": {"run": func(L *lua.LState) int {
		for _, s := range shapes {
			mode := ""
			fn := shapeImpl(s, &mode)
			name := "m." + strings.ReplaceAll(s.goType(), " ", "")
			fast := fastFunc(name, fn)
			if fast == nil {
				t.Errorf("%s: no fast adapter", s.goType())
				continue
			}
			slow, err := reflectFunc(name, fn)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []string{"", "error", "panic"} {
				mode = m
				for i, args := range shapeArgs(s.params) {
					calls++
					want := callOutcome(L, slow, args)
					if i == 0 && (m == "panic" || m == "error" && s.hasError) && !strings.Contains(want, map[string]string{"error": "failed with", "panic": "kaboom"}[m]) {
						t.Errorf("%s mode %q: %s", s.goType(), m, want)
					}
					if got := callOutcome(L, fast, args); got != want {
						t.Errorf("%s mode %q args %v:\nfast: %s\nslow: %s", s.goType(), m, args, got, want)
					}
				}
			}
			// Outside an agent's callback.
			if s.agent {
				mode = ""
				L2 := lua.NewState()
				args := shapeArgs(s.params)[0]
				want := callOutcome(L2, slow, args)
				if got := callOutcome(L2, fast, args); got != want || !strings.Contains(got, "outside an agent's callback") {
					t.Errorf("%s outside a callback:\nfast: %s\nslow: %s", s.goType(), got, want)
				}
				L2.Close()
			}
		}
		return 0
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	b, err := h.LoadString("shapes.lua", `local ai = require("luaai")
local t = require("t")
return ai.fsm { initial = "s", states = { s = { enter = function() t.run() end } } }`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Spawn(b, nil); err != nil {
		t.Fatal(err)
	}
	if len(shapes) < 1000 || calls < 10*len(shapes) {
		t.Fatalf("%d shapes, %d calls compared", len(shapes), calls)
	}
}
