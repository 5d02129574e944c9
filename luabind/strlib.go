package luabind

// The string library's functions that build strings, under the string cap.

import (
	"math"
	"strings"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// tooLong raises the error of a string over the cap.
func (vm *VM) tooLong(L *lua.LState, fn string, size float64) {
	raiseTooLong(L, fn, size, vm.guard.maxString)
}

func raiseTooLong(L *lua.LState, fn string, size float64, max int) {
	if size >= 1<<53 || math.IsInf(size, 0) {
		L.RaiseError("%s: the result would be more than the %d-byte limit on strings", fn, max)
	}
	L.RaiseError("%s: the result would be %.0f bytes, more than the %d-byte limit on strings", fn, size, max)
}

func (vm *VM) strRep(L *lua.LState) int {
	s := L.CheckString(1)
	n := math.Trunc(float64(L.CheckNumber(2)))
	if n <= 0 || s == "" || math.IsNaN(n) {
		L.Push(lua.LString(""))
		return 1
	}
	size := float64(len(s)) * n
	if size > float64(vm.guard.maxString) {
		vm.tooLong(L, "string.rep", size)
	}
	if size <= stepBytes {
		L.Push(lua.LString(strings.Repeat(s, int(n))))
		return 1
	}
	// Large: filled by doubling copies of at most stepBytes, polling the
	// budget between them (a loop of large reps has few instructions).
	b := make([]byte, int(size))
	filled := copy(b, s)
	chunk := max(len(s), stepBytes-stepBytes%len(s)) // whole copies of s
	for filled < len(b) {
		vm.checkBudget(L)
		filled += copy(b[filled:], b[:min(filled, chunk)])
	}
	L.Push(lua.LString(unsafe.String(unsafe.SliceData(b), len(b)))) // b is never written again
	return 1
}

func (vm *VM) strChar(L *lua.LState) int {
	n := L.GetTop()
	if n > vm.guard.maxString {
		vm.tooLong(L, "string.char", float64(n))
	}
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := L.CheckInt(i)
		if c < 0 || c > 255 {
			L.ArgError(i, "invalid value")
		}
		b[i-1] = byte(c)
	}
	L.Push(lua.LString(b))
	return 1
}

// strFormat checks a format before gopher-lua's string.format runs it: a
// width or precision is at most two digits, as in Lua 5.1, and the result,
// bounded from the format and the lengths of the arguments, fits the cap.
// (Go's fmt would pad "%999999s" to a megabyte.)
func (vm *VM) strFormat(orig lua.LValue) lua.LGFunction {
	fn, _ := orig.(*lua.LFunction)
	return func(L *lua.LState) int {
		f := L.CheckString(1)
		size := float64(len(f))
		arg := 2
		var quoted []byte // f with each %q turned into %s, once there is one
		for i := 0; i < len(f); i++ {
			if f[i] != '%' {
				continue
			}
			i++
			if i < len(f) && f[i] == '%' {
				continue
			}
			for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
				i++
			}
			digits := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i, digits = i+1, digits+1
			}
			if i < len(f) && f[i] == '.' {
				i++
				pd := 0
				for i < len(f) && f[i] >= '0' && f[i] <= '9' {
					i, pd = i+1, pd+1
				}
				if pd > digits {
					digits = pd
				}
			}
			if digits > 2 {
				L.RaiseError("invalid format (width or precision too long)")
			}
			if i >= len(f) {
				break
			}
			est := 512.0 // any number in any format with width and precision <= 99
			if s, ok := L.Get(arg).(lua.LString); ok && (f[i] == 's' || f[i] == 'q') {
				est = 4*float64(len(s)) + 104
			}
			if f[i] == 'q' && arg <= L.GetTop() {
				// Lua 5.1's %q (gopher-lua writes \n and \x00): quoted
				// here, formatted with %s.
				if quoted == nil {
					quoted = []byte(f)
				}
				quoted[i] = 's'
				L.Replace(arg, lua.LString(vm.quote51(L, L.CheckString(arg))))
			}
			size += est
			arg++
		}
		if size > float64(vm.guard.maxString) {
			vm.tooLong(L, "string.format", size)
		}
		if fn == nil || !fn.IsG {
			L.RaiseError("string.format is not available")
		}
		if string(quoted) == "%s" {
			// string.format("%q", s): the quoted string is the result
			// (formatting it again would be one more uninterruptible copy).
			L.SetTop(2)
			return 1
		}
		if quoted != nil {
			L.Replace(1, lua.LString(quoted))
		}
		return fn.GFunction(L)
	}
}

// quote51 is Lua 5.1's %q: double quotes around s, with ", \ and a newline
// escaped by a backslash (the newline stays), \r as \r and a zero byte as
// \000.
// It polls the budget every stepBytes bytes of s.
func (vm *VM) quote51(L *lua.LState, s string) string {
	n := len(s) + 2 // the result's size, so that it is allocated once
	for i := 0; i < len(s); i++ {
		if i&(stepBytes-1) == stepBytes-1 {
			vm.checkBudget(L)
		}
		switch s[i] {
		case '"', '\\', '\n', '\r':
			n++
		case 0:
			n += 3
		}
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if i&(stepBytes-1) == stepBytes-1 {
			vm.checkBudget(L)
		}
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString("\\r")
		case 0:
			b.WriteString("\\000")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// strByte is Lua 5.1's string.byte(s [, i [, j]]), refusing more than
// maxResults values as PUC Lua does.
func (vm *VM) strByte(L *lua.LState) int {
	s := L.CheckString(1)
	i := strPos(L.OptInt(2, 1), len(s))
	j := strPos(L.OptInt(3, i), len(s))
	if i < 1 {
		i = 1
	}
	if j > len(s) {
		j = len(s)
	}
	if i > j {
		return 0
	}
	if j-i+1 >= maxResults {
		L.RaiseError("string slice too long")
	}
	for k := i; k <= j; k++ {
		L.Push(lua.LNumber(s[k-1]))
	}
	return j - i + 1
}

// strPos turns a possibly negative string position into a 1-based one, as
// Lua 5.1's posrelat does.
func strPos(pos, n int) int {
	if pos < 0 {
		pos += n + 1
	}
	if pos < 0 {
		return 0
	}
	return pos
}

// stepBytes is how many bytes the sandbox's own string loops handle
// between two polls of the budget (well under a millisecond of work).
const stepBytes = 1 << 18

// strUpper and strLower are Lua 5.1's string.upper and string.lower (C
// locale: ASCII letters change, every other byte stays), polling the
// budget as they go: gopher-lua's map whole UTF-8 runes in one step (54ms
// for 16 MiB, where these take a few).
func (vm *VM) strUpper(L *lua.LState) int { return vm.mapASCII(L, 'a', 'z') }
func (vm *VM) strLower(L *lua.LState) int { return vm.mapASCII(L, 'A', 'Z') }

// mapASCII flips the case of the letters lo..hi in its argument.
func (vm *VM) mapASCII(L *lua.LState, lo, hi byte) int {
	s := L.CheckString(1)
	// One allocation, written once: a copy of the argument and another of
	// the result were two uninterruptible 16 MiB steps at the string cap.
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		if i&(stepBytes-1) == stepBytes-1 {
			vm.checkBudget(L)
		}
		c := s[i]
		if c >= lo && c <= hi {
			c ^= 0x20
		}
		b[i] = c
	}
	L.Push(lua.LString(unsafe.String(unsafe.SliceData(b), len(b)))) // b is never written again
	return 1
}
