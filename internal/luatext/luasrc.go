// Package luatext writes text for people and for Lua: Lua literals and
// names (Quote, IsName, IsIdent), a cut message (CutText), a byte count
// (FormatBytes).
package luatext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Writing Lua source: the literals tools put into the Lua they write or
// show (luaai test's values, the tests luaai explore writes).

// Quote writes s as a Lua string literal that reads back as the same
// bytes: quotes, backslashes and control characters escaped (a decimal
// escape followed by a digit takes three digits, so "\1" then "2" stays
// two characters); other bytes as they are.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c >= 0x20 && c != 0x7f {
				b.WriteByte(c)
			} else if i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				fmt.Fprintf(&b, `\%03d`, c)
			} else {
				fmt.Fprintf(&b, `\%d`, c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// luaKeywords are Lua 5.1's reserved words, and goto (reserved since 5.2,
// which busted's output respects).
var luaKeywords = map[string]bool{
	"and": true, "break": true, "do": true, "else": true, "elseif": true, "end": true,
	"false": true, "for": true, "function": true, "goto": true, "if": true, "in": true,
	"local": true, "nil": true, "not": true, "or": true, "repeat": true, "return": true,
	"then": true, "true": true, "until": true, "while": true,
}

// IsName tells whether s can be written as a Lua name (t.s, { s = … }):
// letters, digits and underscores, not starting with a digit, and not a
// reserved word.
func IsName(s string) bool {
	return IsIdent(s) && !luaKeywords[s]
}

// IsIdent tells whether s has the form of a Lua name: letters, digits and
// underscores, not starting with a digit (reserved words included).
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			continue
		}
		return false
	}
	return true
}

// CutText cuts s to at most max bytes (on a UTF-8 boundary), saying how
// much was cut.
func CutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// FormatBytes writes a byte count for people: "256 MiB", "1.5 KiB", "12 B".
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
	case n >= 1<<10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KiB"
	}
	return fmt.Sprintf("%d B", n)
}
