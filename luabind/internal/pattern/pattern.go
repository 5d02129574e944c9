package pattern

import (
	"errors"
	"strings"
)

// MaxCaptures is the most captures a pattern may have (LUA_MAXCAPTURES).
const MaxCaptures = 32

// MaxDepth bounds the nesting of quantifiers and captures being tried.
const MaxDepth = 200

// StopEvery is how many match steps pass between polls of Matcher.Stop.
const StopEvery = 1024

// Error is a malformed pattern, with PUC Lua's message.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// ErrStopped is returned when Matcher.Stop asked the match to stop.
var ErrStopped = errors.New("pattern matching stopped")

// Capture is one capture of a match: the bytes [Start, End) of the subject,
// or for a position capture "()" the position Start (0-based; Lua shows
// Start+1). Unfinished is set for a capture the pattern opened and never
// closed, which Lua reports as an error when the capture is used.
type Capture struct {
	Start, End int
	Pos        bool
	Unfinished bool
}

// Match is a successful match: the bytes [Start, End) and the captures.
type Match struct {
	Start, End int
	Captures   []Capture
}

// Matcher matches patterns. Its zero value works; Stop, if set, is polled
// every StopEvery steps and stops the match (ErrStopped) when it returns
// true. A Matcher is not safe for concurrent use.
type Matcher struct {
	Stop  func() bool
	steps int
	st    state
}

// Anchored splits a leading "^" off a pattern: find, match and gsub anchor
// the match at the start when it is there (gmatch does not, as in Lua 5.1).
func Anchored(p string) (rest string, anchored bool) {
	if len(p) > 0 && p[0] == '^' {
		return p[1:], true
	}
	return p, false
}

// Find returns the first match of p in s at or after init (0-based, at most
// len(s)), honouring a leading "^".
func (m *Matcher) Find(s, p string, init int) (Match, bool, error) {
	p, anchored := Anchored(p)
	for si := init; si <= len(s); si++ {
		mt, ok, err := m.At(s, p, si)
		if err != nil || ok {
			return mt, ok, err
		}
		if anchored {
			break
		}
	}
	return Match{}, false, nil
}

// At matches p (with no anchor handling: a leading "^" is an ordinary
// character) at exactly position si of s.
func (m *Matcher) At(s, p string, si int) (mt Match, ok bool, err error) {
	if i := strings.IndexByte(p, 0); i >= 0 {
		p = p[:i] // a NUL ends a pattern, as in Lua 5.1
	}
	st := &m.st
	*st = state{s: s, p: p, m: m}
	defer func() {
		if r := recover(); r != nil {
			switch r := r.(type) {
			case *Error:
				err = r
			case stopped:
				err = ErrStopped
			default:
				panic(r)
			}
			mt, ok = Match{}, false
		}
	}()
	end := st.match(si, 0)
	if end < 0 {
		return Match{}, false, nil
	}
	mt = Match{Start: si, End: end}
	if st.level > 0 {
		mt.Captures = make([]Capture, st.level)
		for i := 0; i < st.level; i++ {
			c := st.caps[i]
			switch c.len {
			case capPosition:
				mt.Captures[i] = Capture{Start: c.start, End: c.start, Pos: true}
			case capUnfinished:
				mt.Captures[i] = Capture{Start: c.start, End: c.start, Unfinished: true}
			default:
				mt.Captures[i] = Capture{Start: c.start, End: c.start + c.len}
			}
		}
	}
	return mt, true, nil
}

// Capture lengths that are not lengths.
const (
	capUnfinished = -1
	capPosition   = -2
)

type stopped struct{}

// state is one match attempt: the subject, the pattern, the open and
// closed captures and the recursion depth.
type state struct {
	s, p  string
	m     *Matcher
	level int
	depth int
	caps  [MaxCaptures]struct{ start, len int }
}

func fail(msg string) { panic(&Error{msg}) }

// step counts one unit of work and polls Stop now and then.
func (st *state) step() {
	m := st.m
	m.steps++
	if m.steps%StopEvery == 0 && m.Stop != nil && m.Stop() {
		panic(stopped{})
	}
}

// match matches the pattern from pi against the subject from si and
// returns where the match ends, or -1.
func (st *state) match(si, pi int) int {
	st.depth++
	if st.depth > MaxDepth {
		fail("pattern too complex")
	}
	end := st.matchHere(si, pi)
	st.depth--
	return end
}

// It is long because it is the matcher's core loop, one switch over the
// pattern items, as Lua's own matcher is.
func (st *state) matchHere(si, pi int) int {
	s, p := st.s, st.p
	for {
		st.step()
		if pi == len(p) {
			return si
		}
		switch p[pi] {
		case '(':
			if pi+1 < len(p) && p[pi+1] == ')' {
				return st.openCapture(si, pi+2, capPosition)
			}
			return st.openCapture(si, pi+1, capUnfinished)
		case ')':
			return st.closeCapture(si, pi+1)
		case '$':
			if pi+1 == len(p) {
				if si == len(s) {
					return si
				}
				return -1
			}
		case '%':
			if pi+1 < len(p) {
				switch c := p[pi+1]; {
				case c == 'b':
					if si = st.balance(si, pi+2); si < 0 {
						return -1
					}
					pi += 4
					continue
				case c == 'f':
					pi += 2
					if pi >= len(p) || p[pi] != '[' {
						fail("missing '[' after '%f' in pattern")
					}
					ep := st.itemEnd(pi)
					var before, at byte
					if si > 0 {
						before = s[si-1]
					}
					if si < len(s) {
						at = s[si]
					}
					if st.inSet(before, pi, ep-1) || !st.inSet(at, pi, ep-1) {
						return -1
					}
					pi = ep
					continue
				case c >= '0' && c <= '9':
					if si = st.backReference(si, c); si < 0 {
						return -1
					}
					pi += 2
					continue
				}
			}
		}
		// A single-character item, perhaps with a quantifier.
		ep := st.itemEnd(pi)
		ok := si < len(s) && st.single(s[si], pi, ep)
		if ep < len(p) {
			switch p[ep] {
			case '?':
				if ok {
					if end := st.match(si+1, ep+1); end >= 0 {
						return end
					}
				}
				pi = ep + 1
				continue
			case '*':
				return st.greedy(si, pi, ep)
			case '+':
				if !ok {
					return -1
				}
				return st.greedy(si+1, pi, ep)
			case '-':
				return st.lazy(si, pi, ep)
			}
		}
		if !ok {
			return -1
		}
		si, pi = si+1, ep
	}
}

// greedy matches as many of the item [pi, ep) as it can from si, then
// backs off one at a time until the rest of the pattern matches.
func (st *state) greedy(si, pi, ep int) int {
	n := 0
	for si+n < len(st.s) && st.single(st.s[si+n], pi, ep) {
		st.step()
		n++
	}
	for ; n >= 0; n-- {
		if end := st.match(si+n, ep+1); end >= 0 {
			return end
		}
	}
	return -1
}

// lazy matches as few of the item as it can: the rest of the pattern is
// tried first, then one more item, and so on.
func (st *state) lazy(si, pi, ep int) int {
	for {
		if end := st.match(si, ep+1); end >= 0 {
			return end
		}
		if si < len(st.s) && st.single(st.s[si], pi, ep) {
			si++
			continue
		}
		return -1
	}
}

func (st *state) openCapture(si, pi, what int) int {
	if st.level >= MaxCaptures {
		fail("too many captures")
	}
	st.caps[st.level].start, st.caps[st.level].len = si, what
	st.level++
	end := st.match(si, pi)
	if end < 0 {
		st.level--
	}
	return end
}

func (st *state) closeCapture(si, pi int) int {
	l := -1
	for i := st.level - 1; i >= 0; i-- {
		if st.caps[i].len == capUnfinished {
			l = i
			break
		}
	}
	if l < 0 {
		fail("invalid pattern capture")
	}
	st.caps[l].len = si - st.caps[l].start
	end := st.match(si, pi)
	if end < 0 {
		st.caps[l].len = capUnfinished
	}
	return end
}

// balance matches %bxy at si (pi is at x): x, then anything with the x and
// y in it balanced, then the y that closes the first x.
func (st *state) balance(si, pi int) int {
	p, s := st.p, st.s
	if pi+1 >= len(p) {
		fail("unbalanced pattern")
	}
	open, close := p[pi], p[pi+1]
	if si >= len(s) || s[si] != open {
		return -1
	}
	depth := 1
	for i := si + 1; i < len(s); i++ {
		st.step()
		switch s[i] {
		case close:
			if depth--; depth == 0 {
				return i + 1
			}
		case open:
			depth++
		}
	}
	return -1
}

// backReference matches %1-%9: the same bytes the capture matched.
func (st *state) backReference(si int, c byte) int {
	l := int(c) - '1'
	if l < 0 || l >= st.level || st.caps[l].len == capUnfinished {
		fail("invalid capture index")
	}
	n := st.caps[l].len
	if n < 0 || len(st.s)-si < n {
		return -1 // a position capture matches no bytes of its own
	}
	start := st.caps[l].start
	if st.s[start:start+n] != st.s[si:si+n] {
		return -1
	}
	return si + n
}

// itemEnd is where the single-character item at pi ends: after the
// character, the %x escape, or the closing ] of a set.
func (st *state) itemEnd(pi int) int {
	p := st.p
	c := p[pi]
	pi++
	switch c {
	case '%':
		if pi >= len(p) {
			fail("malformed pattern (ends with '%')")
		}
		return pi + 1
	case '[':
		if pi < len(p) && p[pi] == '^' {
			pi++
		}
		// The first character of a set is taken as it is, so "[]]" and
		// "[^]]" are sets of "]".
		for first := true; first || p[pi] != ']'; first = false {
			if pi >= len(p) {
				fail("malformed pattern (missing ']')")
			}
			esc := p[pi] == '%'
			pi++
			if esc && pi < len(p) {
				pi++
			}
			if pi >= len(p) {
				fail("malformed pattern (missing ']')")
			}
		}
		return pi + 1
	}
	return pi
}

// single reports whether byte c matches the item [pi, ep).
func (st *state) single(c byte, pi, ep int) bool {
	switch st.p[pi] {
	case '.':
		return true
	case '%':
		return classMatches(c, st.p[pi+1])
	case '[':
		return st.inSet(c, pi, ep-1)
	}
	return st.p[pi] == c
}

// inSet reports whether c is in the set from the [ at pi to the ] at end.
func (st *state) inSet(c byte, pi, end int) bool {
	p := st.p
	want := true
	pi++
	if p[pi] == '^' {
		want = false
		pi++
	}
	for ; pi < end; pi++ {
		switch {
		case p[pi] == '%' && pi+1 < end:
			pi++
			if classMatches(c, p[pi]) {
				return want
			}
		case pi+2 < end && p[pi+1] == '-':
			if p[pi] <= c && c <= p[pi+2] {
				return want
			}
			pi += 2
		case p[pi] == c:
			return want
		}
	}
	return !want
}

// classMatches reports whether c is in the class %cl: a letter names a C
// locale class (upper case for its complement); anything else stands for
// itself.
func classMatches(c, cl byte) bool {
	var in bool
	switch cl | 0x20 {
	case 'a':
		in = isAlpha(c)
	case 'c':
		in = c < 0x20 || c == 0x7f
	case 'd':
		in = '0' <= c && c <= '9'
	case 'l':
		in = 'a' <= c && c <= 'z'
	case 'p':
		in = isPunct(c)
	case 's':
		in = c == ' ' || '\t' <= c && c <= '\r'
	case 'u':
		in = 'A' <= c && c <= 'Z'
	case 'w':
		in = isAlpha(c) || '0' <= c && c <= '9'
	case 'x':
		in = '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
	case 'z':
		in = c == 0
	default:
		return cl == c
	}
	if 'A' <= cl && cl <= 'Z' {
		return !in
	}
	return in
}

func isAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// isPunct: printable, not a letter, digit or space.
func isPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !isAlpha(c) && !('0' <= c && c <= '9')
}
