package pattern

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// show writes a Find result the way string.find shows it: 1-based start
// and end, then the captures.
func show(s, p string, init int) string {
	var m Matcher
	mt, ok, err := m.Find(s, p, init)
	if err != nil {
		return "error: " + err.Error()
	}
	if !ok {
		return "nil"
	}
	out := []string{fmt.Sprint(mt.Start + 1), fmt.Sprint(mt.End)}
	for _, c := range mt.Captures {
		switch {
		case c.Unfinished:
			out = append(out, "unfinished")
		case c.Pos:
			out = append(out, fmt.Sprint(c.Start+1))
		default:
			out = append(out, fmt.Sprintf("%q", s[c.Start:c.End]))
		}
	}
	return strings.Join(out, " ")
}

// Each want is what PUC Lua 5.1's string.find prints for the case (the
// differential test in luabind checks the same ground against lua5.1 on
// generated cases).
func TestFind(t *testing.T) {
	cases := []struct {
		s, p string
		init int
		want string
	}{
		{"THE (quick) fox", "%f[%a]%a+", 4, "6 10"},
		{"THE (quick) fox", "%f[%a]%a+", 0, "1 3"},
		{"hello world", "o w", 0, "5 7"},
		{"hello", "l+", 0, "3 4"},
		{"hello", "l*", 0, "1 0"},
		{"hello", "l-o", 0, "3 5"},
		{"hello", "^h?e", 0, "1 2"},
		{"hello", "^e", 0, "nil"},
		{"hello", "o$", 0, "5 5"},
		{"a$b", "$b", 0, "2 3"},
		{"key = value", "(%w+)%s*=%s*(%w+)", 0, `1 11 "key" "value"`},
		{"abc", "()b()", 0, "2 2 2 3"},
		{"f(a(b)c)d", "%b()", 0, "2 8"},
		{"abab", "(ab)%1", 0, `1 4 "ab"`},
		{"x]y", "[]]", 0, "2 2"},
		{"x^y", "[%^]", 0, "2 2"},
		{"a-b", "[a-]", 0, "1 1"},
		{"a-b", "[%a-]+", 0, "1 3"},
		{"\x00a", "%z", 0, "1 1"},
		{"abc", "[^%l]", 0, "nil"},
		{"A1 ", "%u%d%s", 0, "1 3"},
		{"0xFf", "%x+", 0, "1 1"},
		{"ab.c", "%.", 0, "3 3"},
		{"abc", "", 5, "nil"},
		{"abc", "", 3, "4 3"},
		{"abc", "(a", 0, "1 1 unfinished"},
		{"abc", "%", 0, "error: malformed pattern (ends with '%')"},
		{"abc", "[a", 0, "error: malformed pattern (missing ']')"},
		{"abc", "[]", 0, "error: malformed pattern (missing ']')"},
		{"abc", "%f", 0, "error: missing '[' after '%f' in pattern"},
		{"abc", "%b(", 0, "error: unbalanced pattern"},
		{"abc", "a)", 0, "error: invalid pattern capture"},
		{"abc", "%1", 0, "error: invalid capture index"},
		{"abc", "(a)%2", 0, "error: invalid capture index"},
		{"abc", strings.Repeat("()", 33), 0, "error: too many captures"},
		{"abc", "a\x00z", 0, "1 1"},
	}
	for _, tc := range cases {
		if tc.init > len(tc.s) {
			continue
		}
		if got := show(tc.s, tc.p, tc.init); got != tc.want {
			t.Errorf("find(%q, %q, %d) = %s, want %s", tc.s, tc.p, tc.init+1, got, tc.want)
		}
	}
}

// A pathological pattern is stopped by Stop, not run for minutes.
func TestStop(t *testing.T) {
	polls := 0
	m := Matcher{Stop: func() bool { polls++; return polls > 100 }}
	_, _, err := m.Find(strings.Repeat("a", 5000), ".-.-.-.-.-b", 0)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("got %v", err)
	}
	_, _, err = m.Find(strings.Repeat("a", 300), strings.Repeat("a?", 300), 0)
	if err == nil || err.Error() != "pattern too complex" {
		t.Fatalf("got %v", err)
	}
}

func FuzzFind(f *testing.F) {
	f.Add("THE (quick) fox", "%f[%a]%a+", 4)
	f.Add("f(a(b)c)d", "(%b())()", 0)
	f.Add("abab", "^(a)(b)%1%2$", 0)
	f.Fuzz(func(t *testing.T, s, p string, init int) {
		if init < 0 || init > len(s) {
			return
		}
		steps := 0
		m := Matcher{Stop: func() bool { steps++; return steps > 1000 }}
		mt, ok, err := m.Find(s, p, init)
		if err != nil || !ok {
			return
		}
		if mt.Start < init || mt.End < mt.Start || mt.End > len(s) {
			t.Fatalf("match %d..%d out of range", mt.Start, mt.End)
		}
		for _, c := range mt.Captures {
			if c.Start < 0 || c.End < c.Start || c.End > len(s) {
				t.Fatalf("capture %+v out of range", c)
			}
		}
	})
}
