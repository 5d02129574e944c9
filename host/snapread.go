package host

// The snapshot reader: JSON read straight from the document's bytes, with
// no reflection and no token boxing. readSnapshotFile reads the document's
// records (the agents, their states and machines) for a load; tokReader
// reads the Lua values in it for the decoder (snapdecode.go).
//
// readSnapshotFile takes only the documents Save writes, checked whole:
// anything else (a field it does not know, a null, a key twice, a key in
// other case, bad JSON) makes it give up, and the load reads the document
// with encoding/json instead, which accepts and refuses what it always did
// with its own errors.

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// errNotFast: readSnapshotFile gives the document to encoding/json.
var errNotFast = errors.New("not a document the fast reader takes")

// readerAgentFields is how many fields of agentSnapshot the reader knows
// (TestSnapshotReaderFields): a field it does not know sends every
// document that has it to encoding/json.
const readerAgentFields = 17

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
	if err != nil {
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

// once gives up on a field seen twice in one object.
type once uint32

func (o *once) see(bit uint) error {
	if *o&(1<<bit) != 0 {
		return errNotFast
	}
	*o |= 1 << bit
	return nil
}

// readSnapshotFile reads a snapshot document as Save writes it, or fails
// with errNotFast.
func readSnapshotFile(data []byte) (snapshotFile, error) {
	var f snapshotFile
	v, err := readSnapshot(data, func(s *jsonBytes) error {
		f.Agents = []agentSnapshot{}
		return s.array(func() error {
			f.Agents = append(f.Agents, agentSnapshot{})
			return s.agent(&f.Agents[len(f.Agents)-1])
		})
	})
	if err != nil {
		return snapshotFile{}, err
	}
	f.Version = v
	return f, nil
}

// streamSnapshotFile reads a snapshot document as Save writes it, handing
// each agent's record to take as it is read (the record is reused: take
// keeps nothing of it but Synced), and returns its version. It fails with
// errNotFast where readSnapshotFile does, and with take's errors.
func streamSnapshotFile(data []byte, take func(*agentSnapshot) error) (int, error) {
	var a agentSnapshot
	return readSnapshot(data, func(s *jsonBytes) error {
		return s.array(func() error {
			states, machines := a.States, a.Machines
			for k := range states {
				delete(states, k) // keeps the map's memory, where clear may not
			}
			for k := range machines {
				delete(machines, k)
			}
			a = agentSnapshot{States: states, Machines: machines}
			if err := s.agent(&a); err != nil {
				return err
			}
			return take(&a)
		})
	})
}

// readSnapshot reads the document's version and, with agents, its list of
// agents (which is not null).
func readSnapshot(data []byte, agents func(*jsonBytes) error) (int, error) {
	s := &jsonBytes{b: data}
	var seen once
	version := 0
	err := s.object(func(k []byte) error {
		switch string(k) {
		case "version":
			if err := seen.see(0); err != nil {
				return err
			}
			v, err := s.int()
			version = v
			return err
		case "agents":
			if err := seen.see(1); err != nil || s.peek() == 'n' {
				return errNotFast
			}
			return agents(s)
		}
		return errNotFast
	})
	if err != nil {
		return 0, err
	}
	if s.peek() != 0 || s.i != len(data) {
		return 0, errNotFast // data after it: encoding/json says so
	}
	return version, nil
}

// agent reads one agent's record: readerAgentFields fields.
//
// It is long because it is one switch over the fields of an agent's record,
// each case a few lines.
func (s *jsonBytes) agent(a *agentSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "id":
			if err = seen.see(0); err == nil {
				a.ID, err = s.int()
			}
		case "behaviour":
			if err = seen.see(1); err == nil {
				a.Behaviour, err = s.text()
			}
		case "ticks":
			if err = seen.see(2); err == nil {
				a.Ticks, err = s.int()
			}
		case "clock":
			if err = seen.see(3); err == nil {
				a.Clock, err = s.float()
			}
		case "rng":
			if err = seen.see(4); err == nil {
				a.RNG, err = s.text()
			}
		case "ctx":
			if err = seen.see(5); err == nil {
				a.Ctx, err = s.skip(0)
			}
		case "bound":
			if err = seen.see(6); err == nil {
				a.Bound, err = s.strings()
			}
		case "states":
			if err = seen.see(7); err == nil {
				if s.null() {
					a.States = nil
					break
				}
				if a.States == nil {
					a.States = map[string]stateSnapshot{}
				}
				err = s.mapObject(func(path string) error {
					if _, dup := a.States[path]; dup {
						return errNotFast
					}
					var st stateSnapshot
					err := s.state(&st)
					a.States[path] = st
					return err
				})
			}
		case "machines":
			if err = seen.see(8); err == nil {
				if s.null() {
					a.Machines = nil
					break
				}
				if a.Machines == nil {
					a.Machines = map[string]machineSnapshot{}
				}
				err = s.mapObject(func(path string) error {
					if _, dup := a.Machines[path]; dup {
						return errNotFast
					}
					var m machineSnapshot
					err := s.machine(&m)
					a.Machines[path] = m
					return err
				})
			}
		case "events":
			if err = seen.see(9); err == nil {
				a.Events, err = s.events()
			}
		case "messages":
			if err = seen.see(10); err == nil {
				a.Messages, err = s.events()
			}
		case "suspended":
			if err = seen.see(11); err == nil {
				a.Suspended, err = s.text()
			}
		case "overruns":
			if err = seen.see(12); err == nil {
				a.Overruns, err = s.int()
			}
		case "owed":
			if err = seen.see(13); err == nil {
				a.Owed, err = s.float()
			}
		case "interval":
			if err = seen.see(14); err == nil {
				a.Interval, err = s.int()
			}
		case "synced":
			if err = seen.see(15); err == nil {
				a.Synced, err = s.strings()
			}
		case "kind":
			if err = seen.see(16); err == nil {
				a.Kind, err = s.text()
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) state(st *stateSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "time":
			if err = seen.see(0); err == nil {
				st.Time, err = s.float()
			}
		case "every":
			if err = seen.see(1); err == nil {
				st.Every, err = s.float()
			}
		case "step":
			if err = seen.see(2); err == nil {
				st.Step, err = s.int()
			}
		case "step_time":
			if err = seen.see(3); err == nil {
				st.StepTime, err = s.float()
			}
		case "step_seen":
			if err = seen.see(4); err == nil {
				st.StepSeen, err = s.bool()
			}
		case "tree_time":
			if err = seen.see(5); err == nil {
				st.TreeTime, err = s.float()
			}
		case "tree":
			if err = seen.see(6); err == nil {
				if s.null() {
					break
				}
				st.Tree = map[string]nodeSnapshot{}
				err = s.mapObject(func(path string) error {
					if _, dup := st.Tree[path]; dup {
						return errNotFast
					}
					var n nodeSnapshot
					err := s.node(&n)
					st.Tree[path] = n
					return err
				})
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) node(n *nodeSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "running":
			if err = seen.see(0); err == nil {
				n.Running, err = s.bool()
			}
		case "child":
			if err = seen.see(1); err == nil {
				n.Child, err = s.int()
			}
		case "start":
			if err = seen.see(2); err == nil {
				n.Start, err = s.float()
			}
		case "done":
			if err = seen.see(3); err == nil {
				n.Done, err = s.text()
			}
		case "cooled_at":
			if err = seen.see(4); err == nil {
				if s.null() {
					break
				}
				var f float64
				f, err = s.float()
				n.Cool = &f
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) machine(m *machineSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "stack":
			if err = seen.see(0); err == nil {
				m.Stack, err = s.strings()
			}
		case "history":
			if err = seen.see(1); err == nil {
				m.History, err = s.text()
			}
		case "decide_acc":
			if err = seen.see(2); err == nil {
				m.DecideAcc, err = s.float()
			}
		case "request":
			if err = seen.see(3); err == nil {
				if s.null() {
					break
				}
				m.Request = &requestSnapshot{}
				err = s.request(m.Request)
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) request(r *requestSnapshot) error {
	var seen once
	var err error
	return s.object(func(k []byte) error {
		switch string(k) {
		case "kind":
			if err = seen.see(0); err == nil {
				r.Kind, err = s.text()
			}
		case "target":
			if err = seen.see(1); err == nil {
				r.Target, err = s.text()
			}
		case "where":
			if err = seen.see(2); err == nil {
				r.Where, err = s.text()
			}
		case "payload":
			if err = seen.see(3); err == nil {
				r.Payload, err = s.skip(0)
			}
		default:
			err = errNotFast
		}
		return err
	})
}

func (s *jsonBytes) events() ([]eventSnapshot, error) {
	if s.null() {
		return nil, nil
	}
	out := []eventSnapshot{}
	err := s.array(func() error {
		var ev eventSnapshot
		var seen once
		var err error
		err2 := s.object(func(k []byte) error {
			switch string(k) {
			case "name":
				if err = seen.see(0); err == nil {
					ev.Name, err = s.text()
				}
			case "payload":
				if err = seen.see(1); err == nil {
					ev.Payload, err = s.skip(0)
				}
			case "from":
				if err = seen.see(2); err == nil {
					ev.From, err = s.int()
				}
			default:
				err = errNotFast
			}
			return err
		})
		out = append(out, ev)
		return err2
	})
	return out, err
}

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
