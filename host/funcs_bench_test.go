package host_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	lua "github.com/yuin/gopher-lua"
)

// funcPair is one shape of BenchmarkFuncs: a typed function for
// Options.Funcs and the raw lua.LGFunction that does the same work, and
// the Lua arguments both are called with.
type funcPair struct {
	name  string
	typed any
	raw   lua.LGFunction
	args  string
}

var errNone = errors.New("no enemy")

func funcPairs() []funcPair {
	return []funcPair{
		{"add(float64,float64)float64", func(x, y float64) float64 { return x + y },
			func(L *lua.LState) int { L.Push(L.CheckNumber(1) + L.CheckNumber(2)); return 1 }, "1.5, 2.5"},
		{"nearest(*Agent,float64)(int,float64,error)",
			func(a *host.Agent, r float64) (int, float64, error) {
				if r < 0 {
					return 0, 0, errNone
				}
				return a.ID() + 1, r * 0.5, nil
			},
			func(L *lua.LState) int {
				a, ok := host.Caller(L)
				if !ok {
					L.RaiseError("outside")
				}
				r := float64(L.CheckNumber(1))
				if r < 0 {
					L.RaiseError("%s", errNone.Error())
				}
				L.Push(lua.LNumber(a.ID() + 1))
				L.Push(lua.LNumber(r * 0.5))
				return 2
			}, "30.5"},
		{"sense(*Agent)(float64,float64,float64,float64)",
			func(a *host.Agent) (float64, float64, float64, float64) {
				x := float64(a.ID())
				return x + 0.5, x + 1.5, x + 2.5, x + 3.5
			},
			func(L *lua.LState) int {
				a, ok := host.Caller(L)
				if !ok {
					L.RaiseError("outside")
				}
				x := float64(a.ID())
				L.Push(lua.LNumber(x + 0.5))
				L.Push(lua.LNumber(x + 1.5))
				L.Push(lua.LNumber(x + 2.5))
				L.Push(lua.LNumber(x + 3.5))
				return 4
			}, ""},
		{"has(string)bool", func(s string) bool { return len(s) > 3 },
			func(L *lua.LState) int { L.Push(lua.LBool(len(L.CheckString(1)) > 3)); return 1 }, `"sword"`},
		{"fallback(*Agent,float64,float64,float64)(float64,float64,bool)",
			func(a *host.Agent, x, y, z float64) (float64, float64, bool) { return x + y, y + z, x > z },
			func(L *lua.LState) int {
				if _, ok := host.Caller(L); !ok {
					L.RaiseError("outside")
				}
				x, y, z := L.CheckNumber(1), L.CheckNumber(2), L.CheckNumber(3)
				L.Push(x + y)
				L.Push(y + z)
				L.Push(lua.LBool(x > z))
				return 3
			}, "1.5, 2.5, 3.5"},
	}
}

// inCallback runs body inside an agent's callback, with run(n) calling
// m.typed (or m.raw) n times from a Lua loop.
func inCallback(tb testing.TB, p funcPair, body func(typed, raw func(n int))) {
	tb.Helper()
	h, err := host.New(host.Options{
		Budget: -1,
		Funcs:  map[string]map[string]any{"m": {"typed": p.typed}},
		Modules: map[string]host.Module{"m": {"raw": p.raw}, "b": {"drive": func(L *lua.LState) int {
			typed, raw := L.CheckFunction(1), L.CheckFunction(2)
			call := func(fn *lua.LFunction) func(n int) {
				return func(n int) {
					L.Push(fn)
					L.Push(lua.LNumber(n))
					L.Call(1, 0)
				}
			}
			body(call(typed), call(raw))
			return 0
		}}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	defer h.Close()
	src := fmt.Sprintf(`local ai = require("luaai")
local m = require("m")
local b = require("b")
local function loop(f) return function(n) for i = 1, n do f(%[1]s) end end end
return ai.fsm { initial = "s", states = { s = { enter = function()
  b.drive(loop(m.typed), loop(m.raw))
end } } }`, p.args)
	bp, err := h.LoadString("funcs.lua", src)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := h.Spawn(bp, nil); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkFuncs calls typed functions of Options.Funcs and raw
// lua.LGFunctions doing the same work from the same Lua loop, in one run:
// <shape>/typed against <shape>/raw, and <shape>/ratio, which alternates
// the two in chunks of 1,000 calls so that both see the same machine, and
// reports each one's ns per call and typed/raw. The last shape is outside
// the fast set and goes through reflection.
func BenchmarkFuncs(b *testing.B) {
	for _, p := range funcPairs() {
		for _, kind := range []string{"typed", "raw"} {
			b.Run(p.name+"/"+kind, func(b *testing.B) {
				inCallback(b, p, func(typed, raw func(n int)) {
					run := typed
					if kind == "raw" {
						run = raw
					}
					run(1000) // warm
					b.ReportAllocs()
					b.ResetTimer()
					run(b.N)
					b.StopTimer()
				})
			})
		}
		b.Run(p.name+"/ratio", func(b *testing.B) {
			inCallback(b, p, func(typed, raw func(n int)) {
				const chunk = 1000
				typed(chunk)
				raw(chunk)
				var tNs, rNs time.Duration
				b.ResetTimer()
				for done := 0; done < b.N; done += chunk {
					start := time.Now()
					typed(chunk)
					mid := time.Now()
					raw(chunk)
					tNs += mid.Sub(start)
					rNs += time.Since(mid)
				}
				b.StopTimer()
				calls := float64((b.N + chunk - 1) / chunk * chunk)
				b.ReportMetric(float64(tNs)/calls, "typed-ns/call")
				b.ReportMetric(float64(rNs)/calls, "raw-ns/call")
				b.ReportMetric(float64(tNs)/float64(rNs), "typed/raw")
			})
		})
	}
}

// A typed function with four numeric results allocates no more per call
// than the raw lua.LGFunction that pushes the same four numbers (what Lua
// itself needs), within 0.1; the same holds for the other fast shapes.
func TestFuncsAllocs(t *testing.T) {
	const per = 100
	for _, p := range funcPairs()[:4] {
		inCallback(t, p, func(typed, raw func(n int)) {
			typed(per)
			raw(per)
			tAllocs := testing.AllocsPerRun(20, func() { typed(per) }) / per
			rAllocs := testing.AllocsPerRun(20, func() { raw(per) }) / per
			t.Logf("%s: typed %.2f allocs/call, raw %.2f", p.name, tAllocs, rAllocs)
			if tAllocs > rAllocs+0.1 {
				t.Errorf("%s: typed %.2f allocs per call, raw %.2f", p.name, tAllocs, rAllocs)
			}
		})
	}
}
