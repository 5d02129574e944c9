package luabind

// string.find, match, gmatch and gsub on luaai's own Lua 5.1 pattern
// matcher (internal/pattern): budgeted, with Lua 5.1's results where
// gopher-lua's differ (find with an init past the end, match returning nil,
// gmatch taking "^" literally, gsub with n <= 0, "%x" in a replacement,
// replacement values that are neither strings nor numbers).

import (
	"strconv"
	"strings"

	"github.com/luaai/luaai/luabind/internal/pattern"
	lua "github.com/yuin/gopher-lua"
)

// patternSpecials are the characters that make find search with a pattern
// rather than for the plain text (Lua 5.1's SPECIALS); like Lua 5.1, only
// the part of the pattern before a NUL counts.
const patternSpecials = "^$*+?.([%-"

func isPlain(p string) bool {
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return !strings.ContainsAny(p, patternSpecials)
}

// matcher is a pattern matcher polling the running call's budget.
func (vm *VM) matcher() *pattern.Matcher {
	m := &pattern.Matcher{}
	if b := vm.guard.bud; b != nil {
		m.Stop = func() bool { return b.ctx.countSteps(pattern.StopEvery) || b.expired() }
	}
	return m
}

// Find reports whether the Lua 5.1 pattern pat matches somewhere in s, on
// the matcher string.find uses: its steps count against the running call's
// budget, and a malformed pattern or a stop comes back as the error.
func (vm *VM) Find(s, pat string) (bool, error) {
	_, ok, err := vm.matcher().Find(s, pat, 0)
	return ok, err
}

// patternError raises a matcher's error as a Lua error: the budget's stop
// message for a stop, the pattern's message otherwise.
func (vm *VM) patternError(L *lua.LState, err error) {
	if err == pattern.ErrStopped {
		vm.checkBudget(L)
	}
	L.RaiseError("%s", err.Error())
}

// captureValue is capture i of m (a position, or the bytes), raising
// "unfinished capture" for a capture the pattern never closed.
func captureValue(L *lua.LState, s string, c pattern.Capture) lua.LValue {
	switch {
	case c.Unfinished:
		L.RaiseError("unfinished capture")
	case c.Pos:
		return lua.LNumber(c.Start + 1)
	}
	return lua.LString(s[c.Start:c.End])
}

// pushCaptures pushes the captures of m, or the whole match when whole is
// set and the pattern has none; it returns how many it pushed.
func pushCaptures(L *lua.LState, s string, m pattern.Match, whole bool) int {
	if len(m.Captures) == 0 {
		if !whole {
			return 0
		}
		L.Push(lua.LString(s[m.Start:m.End]))
		return 1
	}
	for _, c := range m.Captures {
		L.Push(captureValue(L, s, c))
	}
	return len(m.Captures)
}

func (vm *VM) strFind(L *lua.LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	init := luaStringIndex(str, L.OptInt(3, 1))
	if lua.LVAsBool(L.Get(4)) || isPlain(pat) {
		pos := vm.index(L, str[init:], pat)
		if pos < 0 {
			L.Push(lua.LNil)
			return 1
		}
		L.Push(lua.LNumber(init + pos + 1))
		L.Push(lua.LNumber(init + pos + len(pat)))
		return 2
	}
	m, ok, err := vm.matcher().Find(str, pat, init)
	if err != nil {
		vm.patternError(L, err)
	}
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(m.Start + 1))
	L.Push(lua.LNumber(m.End))
	return 2 + pushCaptures(L, str, m, false)
}

func (vm *VM) strMatch(L *lua.LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	init := luaStringIndex(str, L.OptInt(3, 1))
	m, ok, err := vm.matcher().Find(str, pat, init)
	if err != nil {
		vm.patternError(L, err)
	}
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	return pushCaptures(L, str, m, true)
}

// luaStringIndex turns find's and match's 1-based, possibly negative, init
// into a 0-based offset within [0, len(s)], as Lua 5.1 does.
func luaStringIndex(s string, i int) int {
	if i < 0 {
		i = len(s) + i + 1
	}
	if i < 1 {
		return 0
	}
	if i-1 > len(s) {
		return len(s)
	}
	return i - 1
}

// strGmatch is string.gmatch: as in Lua 5.1 a "^" is an ordinary character,
// and an empty match moves on by one.
func (vm *VM) strGmatch(L *lua.LState) int {
	str := L.CheckString(1)
	pat := L.CheckString(2)
	mt := vm.matcher()
	si := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		for ; si <= len(str); si++ {
			m, ok, err := mt.At(str, pat, si)
			if err != nil {
				vm.patternError(L, err)
			}
			if ok {
				si = m.End
				if m.End == m.Start {
					si++
				}
				return pushCaptures(L, str, m, true)
			}
		}
		return 0
	}))
	return 1
}

// strGsub is string.gsub in one pass under the string cap.
func (vm *VM) strGsub(L *lua.LState) int {
	str := L.CheckString(1)
	pat, anchored := pattern.Anchored(L.CheckString(2))
	L.CheckTypes(3, lua.LTString, lua.LTNumber, lua.LTTable, lua.LTFunction)
	repl := L.Get(3)
	maxN := L.OptInt(4, len(str)+1)
	max := vm.guard.maxString
	mt := vm.matcher()
	var b strings.Builder
	add := func(s string) {
		if b.Len()+len(s) > max {
			vm.tooLong(L, "string.gsub", float64(b.Len()+len(s)))
		}
		b.WriteString(s)
	}
	n, si := 0, 0
	for n < maxN {
		m, ok, err := mt.At(str, pat, si)
		if err != nil {
			vm.patternError(L, err)
		}
		if ok {
			n++
			vm.gsubValue(L, str, m, repl, add)
		}
		switch {
		case ok && m.End > si:
			si = m.End
		case si < len(str):
			add(str[si : si+1])
			si++
		default:
			si = len(str) + 1
		}
		if si > len(str) || anchored {
			break
		}
		if n&1023 == 0 {
			vm.checkBudget(L)
		}
	}
	if si < len(str) {
		add(str[si:])
	}
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// gsubValue adds the replacement of one match, as Lua 5.1's gsub does.
func (vm *VM) gsubValue(L *lua.LState, str string, m pattern.Match, repl lua.LValue, add func(string)) {
	whole := str[m.Start:m.End]
	var v lua.LValue
	switch repl := repl.(type) {
	case lua.LString, lua.LNumber:
		gsubString(L, str, m, repl.String(), add)
		return
	case *lua.LTable:
		key := lua.LValue(lua.LString(whole))
		if len(m.Captures) > 0 {
			key = captureValue(L, str, m.Captures[0])
		}
		v = L.GetTable(repl, key)
	case *lua.LFunction:
		L.Push(repl)
		nargs := pushCaptures(L, str, m, true)
		L.Call(nargs, 1)
		v = L.Get(-1)
		L.Pop(1)
	}
	switch v := v.(type) {
	case lua.LString:
		add(string(v))
		return
	case lua.LNumber:
		add(v.String())
		return
	case *lua.LNilType:
		add(whole)
		return
	case lua.LBool:
		if !bool(v) {
			add(whole)
			return
		}
	}
	L.RaiseError("invalid replacement value (a %s)", v.Type().String())
}

// gsubString expands a replacement string: %0-%9 are captures (%0 and, in
// a pattern without captures, %1 the whole match), %x is x.
func gsubString(L *lua.LState, str string, m pattern.Match, repl string, add func(string)) {
	for {
		i := strings.IndexByte(repl, '%')
		if i < 0 {
			add(repl)
			return
		}
		add(repl[:i])
		c := byte(0) // a "%" at the very end escapes the NUL that ends a C string, as in Lua 5.1
		if i+1 < len(repl) {
			c = repl[i+1]
			repl = repl[i+2:]
		} else {
			repl = ""
		}
		if c < '0' || c > '9' {
			add(string(c))
			continue
		}
		k := int(c - '0')
		switch {
		case k == 0 || (k == 1 && len(m.Captures) == 0):
			add(str[m.Start:m.End])
		case k <= len(m.Captures):
			switch v := captureValue(L, str, m.Captures[k-1]).(type) {
			case lua.LNumber:
				add(strconv.Itoa(int(v)))
			default:
				add(v.String())
			}
		default:
			L.RaiseError("invalid capture index")
		}
	}
}

// index is strings.Index(s, sub) in windows of at least 1 MiB, polling the
// budget between them: one search of a 16 MiB string is otherwise one step
// of about 30ms that no budget can interrupt.
func (vm *VM) index(L *lua.LState, s, sub string) int {
	w := max(4*stepBytes, len(sub))
	for at := 0; ; at += w {
		end := min(len(s), at+w+len(sub)-1) // a match may start at the window's end
		if i := strings.Index(s[at:end], sub); i >= 0 {
			return at + i
		}
		if end == len(s) {
			return -1
		}
		vm.checkBudget(L)
	}
}
