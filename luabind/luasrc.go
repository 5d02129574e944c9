package luabind

import (
	"fmt"
	"strings"
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
