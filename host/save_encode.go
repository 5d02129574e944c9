package host

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// The snapshot document written by hand, byte for byte what encoding/json
// writes for snapshotFile (field order, omitempty, map keys sorted, floats
// and strings escaped as it does), without reflection or a value per
// field. A field added to a snapshot type must be added here too: the
// tests compare this output with json.Marshal's.

// appendSnapshotFile appends the whole document.
func appendSnapshotFile(b []byte, agents []agentSnapshot) []byte {
	b = appendSnapshotHead(b)
	for i := range agents {
		if i > 0 {
			b = append(b, ',')
		}
		b = agents[i].appendJSON(b)
	}
	return append(b, "]}"...)
}

// appendSnapshotHead opens the document, up to its first agent.
func appendSnapshotHead(b []byte) []byte {
	b = append(b, `{"version":`...)
	b = strconv.AppendInt(b, SnapshotVersion, 10)
	return append(b, `,"agents":[`...)
}

// agentSnapshotFields is how many fields appendJSON writes (a test checks
// it against the type).
const agentSnapshotFields = 17

func (s *agentSnapshot) appendJSON(b []byte) []byte {
	b = s.appendHead(b)
	b = append(b, `,"states":`...)
	b = appendMap(b, s.States, (*stateSnapshot).appendJSON)
	b = append(b, `,"machines":`...)
	b = appendMap(b, s.Machines, (*machineSnapshot).appendJSON)
	return s.appendTail(b)
}

// appendHead writes the fields before "states", opening the object.
func (s *agentSnapshot) appendHead(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, int64(s.ID), 10)
	b = append(b, `,"behaviour":`...)
	b = appendJSONString(b, s.Behaviour)
	b = append(b, `,"ticks":`...)
	b = strconv.AppendInt(b, int64(s.Ticks), 10)
	b = append(b, `,"clock":`...)
	b = appendJSONFloat(b, s.Clock)
	b = append(b, `,"rng":`...)
	b = appendJSONString(b, s.RNG)
	b = append(b, `,"ctx":`...)
	b = appendRaw(b, s.Ctx)
	if len(s.Bound) > 0 {
		b = append(b, `,"bound":`...)
		b = appendStrings(b, s.Bound)
	}
	return b
}

// appendTail writes the fields after "machines", closing the object.
func (s *agentSnapshot) appendTail(b []byte) []byte {
	if len(s.Events) > 0 {
		b = append(b, `,"events":`...)
		b = appendEvents(b, s.Events)
	}
	if len(s.Messages) > 0 {
		b = append(b, `,"messages":`...)
		b = appendEvents(b, s.Messages)
	}
	if s.Suspended != "" {
		b = append(b, `,"suspended":`...)
		b = appendJSONString(b, s.Suspended)
	}
	if s.Overruns != 0 {
		b = append(b, `,"overruns":`...)
		b = strconv.AppendInt(b, int64(s.Overruns), 10)
	}
	if s.Owed != 0 {
		b = append(b, `,"owed":`...)
		b = appendJSONFloat(b, s.Owed)
	}
	if s.Interval != 0 {
		b = append(b, `,"interval":`...)
		b = strconv.AppendInt(b, int64(s.Interval), 10)
	}
	if s.Kind != "" {
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, s.Kind)
	}
	if len(s.Synced) > 0 {
		b = append(b, `,"synced":`...)
		b = appendStrings(b, s.Synced)
	}
	return append(b, '}')
}

func (s *stateSnapshot) appendJSON(b []byte) []byte {
	b = append(b, `{"time":`...)
	b = appendJSONFloat(b, s.Time)
	b = append(b, `,"every":`...)
	b = appendJSONFloat(b, s.Every)
	if s.Step != 0 {
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, int64(s.Step), 10)
	}
	if s.StepTime != 0 {
		b = append(b, `,"step_time":`...)
		b = appendJSONFloat(b, s.StepTime)
	}
	if s.StepSeen {
		b = append(b, `,"step_seen":true`...)
	}
	if s.TreeTime != 0 {
		b = append(b, `,"tree_time":`...)
		b = appendJSONFloat(b, s.TreeTime)
	}
	if len(s.Tree) > 0 {
		b = append(b, `,"tree":`...)
		b = appendMap(b, s.Tree, (*nodeSnapshot).appendJSON)
	}
	return append(b, '}')
}

func (s *nodeSnapshot) appendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	field := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, name...)
	}
	if s.Running {
		field(`"running":true`)
	}
	if s.Child != 0 {
		field(`"child":`)
		b = strconv.AppendInt(b, int64(s.Child), 10)
	}
	if s.Start != 0 {
		field(`"start":`)
		b = appendJSONFloat(b, s.Start)
	}
	if s.Done != "" {
		field(`"done":`)
		b = appendJSONString(b, s.Done)
	}
	if s.Cool != nil {
		field(`"cooled_at":`)
		b = appendJSONFloat(b, *s.Cool)
	}
	return append(b, '}')
}

func (s *machineSnapshot) appendJSON(b []byte) []byte {
	b = append(b, `{"stack":`...)
	b = appendStrings(b, s.Stack)
	if s.History != "" {
		b = append(b, `,"history":`...)
		b = appendJSONString(b, s.History)
	}
	if s.DecideAcc != 0 {
		b = append(b, `,"decide_acc":`...)
		b = appendJSONFloat(b, s.DecideAcc)
	}
	if r := s.Request; r != nil {
		b = append(b, `,"request":{"kind":`...)
		b = appendJSONString(b, r.Kind)
		if r.Target != "" {
			b = append(b, `,"target":`...)
			b = appendJSONString(b, r.Target)
		}
		if r.Where != "" {
			b = append(b, `,"where":`...)
			b = appendJSONString(b, r.Where)
		}
		if len(r.Payload) > 0 {
			b = append(b, `,"payload":`...)
			b = appendRaw(b, r.Payload)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendEvents(b []byte, events []eventSnapshot) []byte {
	b = append(b, '[')
	for i := range events {
		if i > 0 {
			b = append(b, ',')
		}
		ev := &events[i]
		b = append(b, `{"name":`...)
		b = appendJSONString(b, ev.Name)
		b = append(b, `,"payload":`...)
		b = appendRaw(b, ev.Payload)
		if ev.From != 0 {
			b = append(b, `,"from":`...)
			b = strconv.AppendInt(b, int64(ev.From), 10)
		}
		if ev.Age != 0 {
			b = append(b, `,"age":`...)
			b = strconv.AppendInt(b, int64(ev.Age), 10)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendMap writes m with its keys sorted, null for a nil map.
func appendMap[V any](b []byte, m map[string]V, value func(*V, []byte) []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	var keyBuf [16]string
	keys := keyBuf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		v := m[k]
		b = value(&v, b)
	}
	return append(b, '}')
}

// appendStrings writes a list of strings, null for a nil one.
func appendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendRaw writes a value the encoder wrote (compact, escaped as
// appendJSONString does), null for none.
func appendRaw(b, raw []byte) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// appendJSONFloat writes f as encoding/json does: plain decimals, with
// exponents only below 1e-6 and from 1e21, and e-7 rather than e-07.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s quoted as encoding/json does: control
// characters, <, > and & as \u00XX (or \n, \t, …), invalid UTF-8 as
// \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// sortedKeys is the package's sortedKeys (strings, then numbers, then by
// value) into a list the encoder reuses: give it back with putKeys.
func (e *encoder) sortedKeys(t *lua.LTable) []lua.LValue {
	var keys []lua.LValue
	if n := len(e.keys); n > 0 {
		keys, e.keys = e.keys[n-1][:0], e.keys[:n-1]
	}
	keys = tableKeys(t, keys)
	slices.SortFunc(keys, compareKeys)
	return keys
}

// tableKeys appends t's keys (those holding a value) to keys: the array
// part's indexes and the hash part's keys from gopher-lua's own key list,
// which holds them boxed already (ForEach boxes each string key anew).
func tableKeys(t *lua.LTable, keys []lua.LValue) []lua.LValue {
	hash, ok := luaval.HashKeys(t)
	if !ok {
		t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
		return keys
	}
	n, _ := luaval.ArrayLen(t)
	for i := 1; i <= n; i++ {
		if t.RawGetInt(i) != lua.LNil {
			keys = append(keys, lua.LNumber(i))
		}
	}
	for _, k := range hash {
		if k != nil && k != lua.LNil && t.RawGet(k) != lua.LNil {
			keys = append(keys, k)
		}
	}
	return keys
}

// entry is one key of a table and its value.
type entry struct{ k, v lua.LValue }

// sortedEntries is sortedKeys with each key's value beside it, looked up
// once; a table whose keys are listed in order already (a context made
// from its behaviour's defaults, or read from a save) is not sorted again.
// Give the list back with putEntries.
func (e *encoder) sortedEntries(t *lua.LTable) []entry {
	var ents []entry
	if n := len(e.ents); n > 0 {
		ents, e.ents = e.ents[n-1][:0], e.ents[:n-1]
	}
	hash, ok := luaval.HashKeys(t)
	if !ok {
		t.ForEach(func(k, v lua.LValue) { ents = append(ents, entry{k, v}) })
		slices.SortFunc(ents, compareEntries)
		return ents
	}
	n, _ := luaval.ArrayLen(t)
	for i := 1; i <= n; i++ {
		if v := t.RawGetInt(i); v != lua.LNil {
			ents = append(ents, entry{lua.LNumber(i), v})
		}
	}
	for _, k := range hash {
		if k == nil || k == lua.LNil {
			continue
		}
		if v := t.RawGet(k); v != lua.LNil {
			ents = append(ents, entry{k, v})
		}
	}
	for i := 1; i < len(ents); i++ {
		if compareKeys(ents[i-1].k, ents[i].k) >= 0 {
			slices.SortFunc(ents, compareEntries)
			break
		}
	}
	return ents
}

func compareEntries(a, b entry) int { return compareKeys(a.k, b.k) }

func (e *encoder) putEntries(ents []entry) {
	clear(ents)
	e.ents = append(e.ents, ents)
}

// isArrayKey: k is a key of a table's array part in the saved form, a
// whole number from 1 to the sequence limit.
func isArrayKey(k lua.LValue) bool {
	n, ok := k.(lua.LNumber)
	return ok && n >= 1 && float64(n) <= float64(lua.MaxArrayIndex-1) && float64(n) == math.Trunc(float64(n))
}

// arrayEntries is arrayKeys for sorted entries: how many are keys of the
// array part, and the largest.
func arrayEntries(ents []entry) (count, last int) {
	for _, en := range ents {
		if isArrayKey(en.k) {
			count++
			last = max(last, int(en.k.(lua.LNumber)))
		}
	}
	return count, last
}

func (e *encoder) putKeys(keys []lua.LValue) {
	clear(keys)
	e.keys = append(e.keys, keys)
}

// compareKeys orders keys as sortedKeys does, comparing strings and
// numbers without interface calls.
func compareKeys(a, b lua.LValue) int {
	switch a := a.(type) {
	case lua.LString:
		if b, ok := b.(lua.LString); ok {
			return strings.Compare(string(a), string(b))
		}
	case lua.LNumber:
		if b, ok := b.(lua.LNumber); ok {
			return cmp.Compare(a, b)
		}
	}
	if ta, tb := a.Type(), b.Type(); ta != tb {
		return cmp.Compare(tb, ta) // strings before numbers
	}
	return strings.Compare(a.String(), b.String())
}

// reset forgets the tables and bound values of the previous agent; the
// arena and the key lists are kept.
func (e *encoder) reset() {
	if len(e.counts) > 0 {
		clear(e.counts)
	}
	if len(e.ids) > 0 {
		clear(e.ids)
	}
	e.bound, e.depth, e.segs = nil, 0, e.segs[:0]
}
