package host

// tokReader: json.Decoder's tokens over bytes, for the decoder of Lua
// values in snapshots (snapdecode.go).

import (
	"encoding/json"
	"errors"
	"io"
)

// tokReader is json.Decoder's Token and More over bytes, for the decoder
// of snapshot values (snapdecode.go): the same tokens, checked the same
// way, without the decoder's buffering and its second scan of each value.
type tokReader struct {
	s     jsonBytes
	state tokState
	stack []tokState
}

type tokState uint8

// The states of json.Decoder's token reader.
const (
	tsTopValue tokState = iota
	tsArrayStart
	tsArrayValue
	tsArrayComma
	tsObjectStart
	tsObjectKey
	tsObjectColon
	tsObjectValue
	tsObjectComma
)

var errTokSyntax = errors.New("invalid JSON in a snapshot value")

func (r *tokReader) valueAllowed() bool {
	switch r.state {
	case tsTopValue, tsArrayStart, tsArrayValue, tsObjectValue:
		return true
	}
	return false
}

func (r *tokReader) valueEnd() {
	switch r.state {
	case tsArrayStart, tsArrayValue:
		r.state = tsArrayComma
	case tsObjectValue:
		r.state = tsObjectComma
	}
}

// Token is json.Decoder.Token with UseNumber: json.Delim, bool, string,
// json.Number or nil.
//
// It is long because it is one switch over the next byte and the reader's
// state (before a key, a colon, a value, a comma), as json.Decoder's Token
// is: split, the states would be spread over functions that share them.
func (r *tokReader) Token() (json.Token, error) {
	for {
		c := r.s.peek()
		switch {
		case r.s.i >= len(r.s.b):
			return nil, io.EOF
		case c == 0:
			return nil, errTokSyntax
		}
		switch c {
		case '[', '{':
			if !r.valueAllowed() || len(r.stack) >= maxJSONDepth {
				return nil, errTokSyntax
			}
			r.s.i++
			r.stack = append(r.stack, r.state)
			if c == '[' {
				r.state = tsArrayStart
			} else {
				r.state = tsObjectStart
			}
			return json.Delim(c), nil
		case ']', '}':
			if c == ']' && r.state != tsArrayStart && r.state != tsArrayComma ||
				c == '}' && r.state != tsObjectStart && r.state != tsObjectComma {
				return nil, errTokSyntax
			}
			r.s.i++
			r.state = r.stack[len(r.stack)-1]
			r.stack = r.stack[:len(r.stack)-1]
			r.valueEnd()
			return json.Delim(c), nil
		case ':':
			if r.state != tsObjectColon {
				return nil, errTokSyntax
			}
			r.s.i++
			r.state = tsObjectValue
			continue
		case ',':
			switch r.state {
			case tsArrayComma:
				r.state = tsArrayValue
			case tsObjectComma:
				r.state = tsObjectKey
			default:
				return nil, errTokSyntax
			}
			r.s.i++
			continue
		case '"':
			if r.state == tsObjectStart || r.state == tsObjectKey {
				k, err := r.s.str()
				if err != nil {
					return nil, errTokSyntax
				}
				r.state = tsObjectColon
				return k, nil
			}
		}
		if !r.valueAllowed() {
			return nil, errTokSyntax
		}
		var tok json.Token
		switch {
		case c == '"':
			v, err := r.s.str()
			if err != nil {
				return nil, errTokSyntax
			}
			tok = v
		case c == '-' || '0' <= c && c <= '9':
			raw, err := r.s.number()
			if err != nil {
				return nil, errTokSyntax
			}
			tok = json.Number(raw)
		case r.s.literal("true"):
			tok = true
		case r.s.literal("false"):
			tok = false
		case r.s.literal("null"):
			tok = nil
		default:
			return nil, errTokSyntax
		}
		r.valueEnd()
		return tok, nil
	}
}

// More is json.Decoder.More: whether the current list or object has
// another element.
func (r *tokReader) More() bool {
	c := r.s.peek()
	return r.s.i < len(r.s.b) && c != ']' && c != '}'
}
