package luabind

// math.random on the running agent's generator.

import (
	"math"
	"math/rand/v2"

	lua "github.com/yuin/gopher-lua"
)

// mathRandom is Lua 5.1's math.random on the running agent's generator, or
// the VM's outside a tick.
func (vm *VM) mathRandom(L *lua.LState) int {
	rng := vm.guard.rng
	if vm.opts.Rand != nil {
		if r := vm.opts.Rand(); r != nil {
			rng = r
		}
	}
	return PushRandom(L, rng)
}

// PushRandom implements math.random's three forms on rng: () in [0,1),
// (m) in [1,m], (m,n) in [m,n]. Bounds are truncated to integers, as Lua
// 5.1 does, and must be within ±2^53.
func PushRandom(L *lua.LState, rng *rand.Rand) int {
	bound := func(n int) int64 {
		f := math.Trunc(float64(L.CheckNumber(n)))
		if !(f >= -(1<<53) && f <= 1<<53) {
			L.ArgError(n, "interval is too large")
		}
		return int64(f)
	}
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(rng.Float64()))
	case 1:
		m := bound(1)
		if m < 1 {
			L.ArgError(1, "interval is empty")
		}
		L.Push(lua.LNumber(1 + rng.Int64N(m)))
	case 2:
		m, n := bound(1), bound(2)
		if m > n {
			L.ArgError(2, "interval is empty")
		}
		L.Push(lua.LNumber(m + rng.Int64N(n-m+1)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

// mathMin and mathMax are math.min and math.max that return the chosen
// argument itself: gopher-lua's box a new number on every call, which a
// game's updates make thousands of times a tick. Arguments are checked as
// Lua 5.1 checks them (a numeric string counts); comparisons are Lua's
// (NaN is never less or greater, so a first NaN stays).
func mathMin(L *lua.LState) int { return pickNumber(L, func(x, best float64) bool { return x < best }) }
func mathMax(L *lua.LState) int { return pickNumber(L, func(x, best float64) bool { return x > best }) }

func pickNumber(L *lua.LState, better func(x, best float64) bool) int {
	n := L.GetTop()
	best, at := float64(L.CheckNumber(1)), 1
	for i := 2; i <= n; i++ {
		if x := float64(L.CheckNumber(i)); better(x, best) {
			best, at = x, i
		}
	}
	if v := L.Get(at); v.Type() == lua.LTNumber {
		L.Push(v) // the boxed value itself: no new box
	} else {
		L.Push(lua.LNumber(best)) // a numeric string: the number it reads as
	}
	return 1
}

// mathAbs is math.abs returning its argument itself when it is already
// positive.
func mathAbs(L *lua.LState) int {
	x := float64(L.CheckNumber(1))
	if v := L.Get(1); v.Type() == lua.LTNumber && x > 0 {
		L.Push(v)
		return 1
	}
	L.Push(lua.LNumber(math.Abs(x)))
	return 1
}
