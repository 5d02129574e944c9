package lsp

import (
	"sort"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// tokKind says what a token is.
type tokKind uint8

const (
	tokPunct  tokKind = iota // punctuation, one or two characters ("==", "..")
	tokName                  // a name or a keyword
	tokString                // a quoted or long string
	tokNumber                // a number
)

// token is one token of a Lua buffer: where it starts and ends (byte
// offsets), and for a string where its contents are (without the quotes,
// escapes left as written).
type token struct {
	kind       tokKind
	text       string // a string's contents; the token itself otherwise
	start, end int    // the whole token, [start, end)
	cStart     int    // a string's contents: [cStart, cEnd)
	cEnd       int
	open       bool // a string not closed before the end of its line
}

// is reports whether t is the punctuation or keyword s (not a string
// holding it).
func (t token) is(s string) bool { return t.kind != tokString && t.text == s }

// source is a buffer's text and its tokens, with the start of each line
// for positions.
type source struct {
	text  string
	lines []int // byte offset of each line's start
	toks  []token
}

func newSource(text string) *source {
	s := &source{text: text, lines: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	s.toks = tokenize(text)
	return s
}

// position is a byte offset as an LSP position (UTF-16 columns).
func (s *source) position(off int) protocol.Position {
	off = max(0, min(off, len(s.text)))
	line := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
	col := 0
	for _, r := range s.text[s.lines[line]:off] {
		col += utf16Len(r)
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(col)}
}

// offset is an LSP position as a byte offset (clamped to its line).
func (s *source) offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(s.lines) {
		return len(s.text)
	}
	end := len(s.text)
	if line+1 < len(s.lines) {
		end = s.lines[line+1] - 1
	}
	off, col := s.lines[line], 0
	for off < end && col < int(p.Character) {
		r, size := utf8.DecodeRuneInString(s.text[off:])
		col += utf16Len(r)
		off += size
	}
	return off
}

func (s *source) rangeOf(start, end int) protocol.Range {
	return protocol.Range{Start: s.position(start), End: s.position(end)}
}

// lineRange is the range of a 1-based line's text, without its leading
// blanks.
func (s *source) lineRange(line int) protocol.Range {
	if line < 1 || line > len(s.lines) {
		line = 1
	}
	start := s.lines[line-1]
	end := len(s.text)
	if line < len(s.lines) {
		end = s.lines[line] - 1
	}
	for start < end && (s.text[start] == ' ' || s.text[start] == '\t') {
		start++
	}
	if end > start && s.text[end-1] == '\r' {
		end--
	}
	return s.rangeOf(start, end)
}

// lineOf is the 1-based line of a byte offset.
func (s *source) lineOf(off int) int {
	return sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off })
}

// tokenAt is the index of the token that holds off (a string's closing
// quote and the end of a name count as in it), or -1.
func (s *source) tokenAt(off int) int {
	i := sort.Search(len(s.toks), func(i int) bool { return s.toks[i].end >= off })
	if i < len(s.toks) && s.toks[i].start <= off {
		return i
	}
	return -1
}

// tokenBefore is the index of the last token that starts before off, or -1.
func (s *source) tokenBefore(off int) int {
	return sort.Search(len(s.toks), func(i int) bool { return s.toks[i].start >= off }) - 1
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// tokenize splits Lua 5.1 source into names, strings, numbers and
// punctuation, skipping comments and blanks. It never fails: a string
// left open at the end of its line (as it is while being typed) ends
// there, marked open.
//
// It is long because it is the whole Lua tokenizer, one switch over the
// first character of a token.
func tokenize(src string) []token {
	toks := make([]token, 0, len(src)/4)
	n := len(src)
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < n && src[i+1] == '-':
			if lvl := longBracket(src, i+2); lvl >= 0 {
				i = skipLong(src, i+2, lvl)
				continue
			}
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			start := i
			i++
			open := true
			for i < n {
				if src[i] == '\\' && i+1 < n {
					i += 2
					continue
				}
				if src[i] == '\n' {
					break
				}
				if src[i] == c {
					open = false
					break
				}
				i++
			}
			t := token{kind: tokString, start: start, cStart: start + 1, cEnd: i, open: open}
			t.text = src[t.cStart:t.cEnd]
			if !open {
				i++
			}
			t.end = i
			toks = append(toks, t)
		case c == '[' && longBracket(src, i) >= 0:
			lvl := longBracket(src, i)
			start := i
			i = skipLong(src, i, lvl)
			cEnd := max(start+lvl+2, i-lvl-2)
			toks = append(toks, token{kind: tokString, start: start, end: i, cStart: start + lvl + 2, cEnd: cEnd, text: src[start+lvl+2 : cEnd]})
		case isNameStart(c):
			start := i
			for i < n && (isNameStart(src[i]) || src[i] >= '0' && src[i] <= '9') {
				i++
			}
			toks = append(toks, token{kind: tokName, text: src[start:i], start: start, end: i})
		case c >= '0' && c <= '9' || c == '.' && i+1 < n && src[i+1] >= '0' && src[i+1] <= '9':
			start := i
			for i < n && (src[i] == '.' || isNameStart(src[i]) || src[i] >= '0' && src[i] <= '9' ||
				(src[i] == '-' || src[i] == '+') && (src[i-1] == 'e' || src[i-1] == 'E')) {
				i++
			}
			toks = append(toks, token{kind: tokNumber, text: src[start:i], start: start, end: i})
		default:
			l := 1
			if i+1 < n {
				switch src[i : i+2] {
				case "==", "~=", "<=", ">=", "..":
					l = 2
					if src[i:i+2] == ".." && i+2 < n && src[i+2] == '.' {
						l = 3
					}
				}
			}
			if c >= utf8.RuneSelf {
				_, l = utf8.DecodeRuneInString(src[i:])
			}
			toks = append(toks, token{kind: tokPunct, text: src[i : i+l], start: i, end: i + l})
			i += l
		}
	}
	return toks
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// longBracket returns the level of a long bracket [==[ at i, or -1.
func longBracket(src string, i int) int {
	if i >= len(src) || src[i] != '[' {
		return -1
	}
	j := i + 1
	for j < len(src) && src[j] == '=' {
		j++
	}
	if j < len(src) && src[j] == '[' {
		return j - i - 1
	}
	return -1
}

// skipLong skips a long bracket of the given level at i, returning the
// offset after it (the end of the text when it is not closed).
func skipLong(src string, i, level int) int {
	body := i + level + 2
	for j := body; j+level+1 < len(src)+1 && j < len(src); j++ {
		if src[j] != ']' {
			continue
		}
		k := j + 1
		for k < len(src) && k-j-1 < level && src[k] == '=' {
			k++
		}
		if k-j-1 == level && k < len(src) && src[k] == ']' {
			return k + 1
		}
	}
	return len(src)
}
