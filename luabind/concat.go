package luabind

// The `..` operator under the string cap.
//
// gopher-lua joins strings for `..` inside its VM loop, with no hook: a
// script doubling a string (s = s .. s) makes 16 MiB, then 32, 64, … in
// single allocations that neither the time budget nor the memory limit can
// stop in time (one join of a 128 MiB string is one instruction). The
// compile step therefore turns every concatenation into a call of a Go
// function, cat, that refuses results over Options.MaxString as the string
// library does, and otherwise means what `..` means: right to left, numbers
// converted, runs of strings joined at once, the __concat metamethod for
// anything else, and gopher-lua's own error message for a value that
// cannot be joined.
//
// The function reaches every chunk as a local declared first in the chunk
// (catLocal: a name no script can write), read from a global no script
// needs (catGlobal). A mod that replaces that global in its own globals
// only changes what its later chunks call, and whatever it installs can
// only build strings through functions that are capped too.

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

const (
	catLocal  = "(luaai concat)"
	catGlobal = "luaai concat"
)

// catFunction is `..` over its arguments (at least two), refusing results
// over max bytes. VMs install it as the global catGlobal; a bare
// gopher-lua state running compiled chunks needs it too (openConcat).
func catFunction(max int) lua.LGFunction {
	return func(L *lua.LState) int { return cat(L, max) }
}

// openConcat installs what compiled chunks call for `..` into a Lua state
// that is not a VM (a bare gopher-lua state running Compile's output), with
// the default string cap.
func openConcat(L *lua.LState) {
	L.SetGlobal(catGlobal, L.NewFunction(catFunction(DefaultMaxString)))
}

func cat(L *lua.LState, max int) int {
	n := L.GetTop()
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
			op := L.GetMetaField(lhs, "__concat")
			if op == lua.LNil {
				op = L.GetMetaField(rhs, "__concat")
			}
			if op.Type() != lua.LTFunction {
				L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
			}
			L.Push(op)
			L.Push(lhs)
			L.Push(rhs)
			L.Call(2, 1)
			rhs = L.Get(-1)
			L.Pop(1)
			i--
			continue
		}
		// A run of joinable values, from i down to j+1, then rhs.
		j := i
		size := len(lua.LVAsString(rhs))
		for j >= 1 && lua.LVCanConvToString(L.Get(j)) {
			size += len(lua.LVAsString(L.Get(j)))
			j--
		}
		if size > max {
			raiseTooLong(L, "string concatenation (..)", float64(size), max)
		}
		var b strings.Builder
		b.Grow(size)
		for k := j + 1; k <= i; k++ {
			b.WriteString(lua.LVAsString(L.Get(k)))
		}
		b.WriteString(lua.LVAsString(rhs))
		rhs = lua.LString(b.String())
		i = j
	}
	L.Push(rhs)
	return 1
}
