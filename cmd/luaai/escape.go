package main

// Escaping what scripts, snapshots and recordings name, where the CLI
// prints it.

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// oneLine escapes line breaks (and other control characters) in text a
// script, a snapshot or a recording chose, so that one record stays one
// line and the terminal shows what is there: a script cannot forge
// "tick 3 agent 1 …" lines in the output, nor send the terminal escape
// sequences (ESC, and the 8-bit controls U+0080–U+009F some terminals act
// on, become \x1b, \u009b). Bytes that are not UTF-8 show as U+FFFD. JSON
// mode needs none of this.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, needsEscape) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && needsEscape(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// oneLineWriter writes what each Write gives through oneLine, a final
// line break kept: for code that prints one line a Write (fmt.Fprintf) and
// may print names a recording or a script chose.
type oneLineWriter struct{ w io.Writer }

func (o oneLineWriter) Write(p []byte) (int, error) {
	s, nl := strings.CutSuffix(string(p), "\n")
	s = oneLine(s)
	if nl {
		s += "\n"
	}
	if _, err := io.WriteString(o.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// needsEscape: a control character other than a tab (C0, DEL and C1), or
// a line or paragraph separator.
func needsEscape(r rune) bool {
	return r < 0x20 && r != '\t' || r >= 0x7f && r <= 0x9f || r == '\u2028' || r == '\u2029'
}
