package host

// jsonBytes: JSON read straight from a byte slice, checked as
// encoding/json checks it, for the snapshot reader (snapread.go).

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

// jsonBytes reads JSON values from a byte slice.
type jsonBytes struct {
	b []byte
	i int
}

func (s *jsonBytes) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end.
func (s *jsonBytes) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// expect reads byte c (after white space).
func (s *jsonBytes) expect(c byte) error {
	if s.peek() != c {
		return errNotFast
	}
	s.i++
	return nil
}

// str reads a string, checked as encoding/json does (no control
// characters, known escapes), unquoted.
func (s *jsonBytes) str() (string, error) {
	if s.peek() != '"' {
		return "", errNotFast
	}
	s.i++
	start, plain := s.i, true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if plain {
				return string(raw), nil
			}
			return unquoteJSON(raw)
		case c < 0x20:
			return "", errNotFast
		case c == '\\':
			plain = false
			if s.i+1 >= len(s.b) {
				return "", errNotFast
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return "", errNotFast
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !isHex(h) {
						return "", errNotFast
					}
				}
				s.i += 6
			default:
				return "", errNotFast
			}
		default:
			if c >= utf8.RuneSelf {
				plain = false
			}
			s.i++
		}
	}
	return "", errNotFast
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unquoteJSON unquotes a checked JSON string's body as encoding/json does:
// escapes, UTF-16 surrogate pairs, and U+FFFD for invalid UTF-8 and lone
// surrogates.
func unquoteJSON(raw []byte) (string, error) {
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			e := raw[i+1]
			i += 2
			switch e {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(raw[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						r2 = hex4(raw[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						i += 6
						r = dec
					} else {
						r = utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
			default: // '"', '\\', '/'
				out = append(out, e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			i += size
			out = utf8.AppendRune(out, r)
		}
	}
	return string(out), nil
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// number reads a number's text, checked against JSON's grammar.
func (s *jsonBytes) number() ([]byte, error) {
	s.ws()
	start, b := s.i, s.b
	i := s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return nil, errNotFast
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, errNotFast
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		if i == d {
			return nil, errNotFast
		}
	}
	s.i = i
	return b[start:i], nil
}

// literal reads true, false or null.
func (s *jsonBytes) literal(word string) bool {
	s.ws()
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// key reads an object's key as its bytes, valid until the next read: the
// reader takes only keys without escapes.
func (s *jsonBytes) key() ([]byte, error) {
	if s.peek() != '"' {
		return nil, errNotFast
	}
	start := s.i + 1
	for i := start; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			s.i = i + 1
			return s.b[start:i], nil
		case c == '\\' || c < 0x20:
			return nil, errNotFast
		}
	}
	return nil, errNotFast
}

// null reads a null: encoding/json leaves the field (or element) it is
// given for as it is, the zero value in a new record.
func (s *jsonBytes) null() bool { return s.peek() == 'n' && s.literal("null") }

// text is str for a value: a null is "".
func (s *jsonBytes) text() (string, error) {
	if s.null() {
		return "", nil
	}
	return s.str()
}

// skip reads any value, checked, and returns its bytes.
func (s *jsonBytes) skip(depth int) ([]byte, error) {
	if depth > maxJSONDepth {
		return nil, errNotFast
	}
	c := s.peek()
	start := s.i
	switch {
	case c == '"':
		if _, err := s.str(); err != nil {
			return nil, err
		}
	case c == '-' || '0' <= c && c <= '9':
		if _, err := s.number(); err != nil {
			return nil, err
		}
	case c == '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			break
		}
		for {
			if _, err := s.skip(depth + 1); err != nil {
				return nil, err
			}
			c := s.peek()
			s.i++
			if c == ']' {
				break
			}
			if c != ',' {
				return nil, errNotFast
			}
		}
	case c == '{':
		s.i++
		if s.peek() == '}' {
			s.i++
			break
		}
		for {
			if _, err := s.str(); err != nil {
				return nil, err
			}
			if err := s.expect(':'); err != nil {
				return nil, err
			}
			if _, err := s.skip(depth + 1); err != nil {
				return nil, err
			}
			c := s.peek()
			s.i++
			if c == '}' {
				break
			}
			if c != ',' {
				return nil, errNotFast
			}
		}
	case s.literal("true"), s.literal("false"), s.literal("null"):
	default:
		return nil, errNotFast
	}
	return s.b[start:s.i], nil
}

// object reads an object, calling field for each key (its bytes, valid
// until the next read; keys with escapes give up) with the reader at its
// value.
func (s *jsonBytes) object(field func(key []byte) error) error {
	return s.members(false, func(k []byte, _ string) error { return field(k) })
}

// mapObject reads an object whose keys are a map's, any string.
func (s *jsonBytes) mapObject(field func(key string) error) error {
	return s.members(true, func(_ []byte, k string) error { return field(k) })
}

func (s *jsonBytes) members(anyKey bool, field func(raw []byte, key string) error) error {
	if s.null() {
		return nil
	}
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		var raw []byte
		var k string
		var err error
		if anyKey {
			k, err = s.str()
		} else {
			raw, err = s.key()
		}
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(raw, k); err != nil {
			return err
		}
		c := s.peek()
		s.i++
		if c == '}' {
			return nil
		}
		if c != ',' {
			return errNotFast
		}
	}
}

// array reads a list, calling elem with the reader at each element.
func (s *jsonBytes) array(elem func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		c := s.peek()
		s.i++
		if c == ']' {
			return nil
		}
		if c != ',' {
			return errNotFast
		}
	}
}

func (s *jsonBytes) int() (int, error) {
	if s.null() {
		return 0, nil
	}
	raw, err := s.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || int64(int(n)) != n {
		// Not an integer, or past an int (on 32-bit): encoding/json says
		// which.
		return 0, errNotFast
	}
	return int(n), nil
}

func (s *jsonBytes) float() (float64, error) {
	if s.null() {
		return 0, nil
	}
	raw, err := s.number()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, errNotFast
	}
	return f, nil
}

func (s *jsonBytes) bool() (bool, error) {
	switch {
	case s.null():
		return false, nil
	case s.literal("true"):
		return true, nil
	case s.literal("false"):
		return false, nil
	}
	return false, errNotFast
}

func (s *jsonBytes) strings() ([]string, error) {
	if s.null() {
		return nil, nil
	}
	out := []string{}
	err := s.array(func() error {
		v, err := s.text()
		out = append(out, v)
		return err
	})
	return out, err
}
