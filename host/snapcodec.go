package host

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// maxSnapshotCount bounds tick counts and ids in a snapshot: counts a game
// reaches, well short of where an int would wrap when ticked.
const maxSnapshotCount = 1 << 53

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// maxSnapshotDepth is how deeply tables may nest in a saved context (and
// so in a snapshot Restore reads).
const maxSnapshotDepth = 200

// encoder turns Lua values into JSON: numbers, strings, booleans, nested
// tables (sequences as arrays, string-keyed tables as objects, others as
// {"$pairs": [[k, v], …]}), NaN and infinities as {"$num": "nan"|"inf"|"-inf"},
// strings that are not UTF-8 as {"$bytes": base64}, bound Go values as
// {"$bound": "path"}. A table reached more than once (shared, or in a
// cycle) is written once, as {"$id": N, "$t": …}, and then as {"$ref": N},
// so a snapshot is never larger than the data and Restore rebuilds the same
// sharing. count must see every value before encode writes any.
type encoder struct {
	bound  []string
	counts map[*lua.LTable]int
	ids    map[*lua.LTable]int
	depth  int
	// root and segs are where the value being written is; the path is
	// spelled out only for an error or a bound value (a string per value
	// would cost depth × key length bytes each).
	root string
	segs []pathSeg
}

// pathSeg is one step of a path: .field, [index], [key] or [key] (key).
type pathSeg struct {
	kind uint8
	idx  int
	k    lua.LValue
}

const (
	segField uint8 = iota
	segIndex
	segKey
	segKeyOf
)

// path spells where the encoder is: "ctx.squad.leader", "ctx.list[2]";
// for an error (clip), keys clipped to 40 bytes and the whole to 1,000.
func (e *encoder) path(clip bool) string {
	var b strings.Builder
	b.WriteString(e.root)
	for _, s := range e.segs {
		if clip && b.Len() > 1000 {
			b.WriteString("…")
			break
		}
		if s.kind == segIndex {
			fmt.Fprintf(&b, "[%d]", s.idx)
			continue
		}
		k := lua.LVAsString(s.k)
		if clip {
			k = luabind.CutText(k, 40)
		}
		switch s.kind {
		case segField:
			b.WriteString("." + k)
		case segKey:
			b.WriteString("[" + k + "]")
		case segKeyOf:
			b.WriteString("[" + k + "] (key)")
		}
	}
	return b.String()
}

func (e *encoder) push(kind uint8, idx int, k lua.LValue) {
	e.segs = append(e.segs, pathSeg{kind, idx, k})
}

func (e *encoder) pop() { e.segs = e.segs[:len(e.segs)-1] }

// count walks v, counting how often each table is reached; root names v
// in errors.
func (e *encoder) count(v lua.LValue, root string, depth int) error {
	e.root, e.segs = root, e.segs[:0]
	return e.countAt(v, depth)
}

func (e *encoder) countAt(v lua.LValue, depth int) error {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil
	}
	if e.counts == nil {
		e.counts = map[*lua.LTable]int{}
	}
	e.counts[t]++
	if e.counts[t] > 1 {
		return nil
	}
	if depth >= maxSnapshotDepth {
		return fmt.Errorf("%s: tables nested more than %d deep: %w", e.path(true), maxSnapshotDepth, ErrUnsaveable)
	}
	var err error
	t.ForEach(func(k, val lua.LValue) {
		if err == nil {
			e.push(segKeyOf, 0, k)
			err = e.countAt(k, depth+1)
			e.pop()
		}
		if err == nil {
			e.push(segField, 0, k)
			err = e.countAt(val, depth+1)
			e.pop()
		}
	})
	return err
}

// encode writes v as JSON; root names it in errors and bound paths.
func (e *encoder) encode(v lua.LValue, root string) (json.RawMessage, error) {
	e.root, e.segs = root, e.segs[:0]
	var buf bytes.Buffer
	if err := e.write(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeString(buf *bytes.Buffer, s string) {
	if utf8.ValidString(s) {
		b, _ := json.Marshal(s)
		buf.Write(b)
		return
	}
	buf.WriteString(`{"$bytes":"`)
	buf.WriteString(base64.StdEncoding.EncodeToString([]byte(s)))
	buf.WriteString(`"}`)
}

func (e *encoder) write(buf *bytes.Buffer, v lua.LValue) error {
	switch v := v.(type) {
	case *lua.LNilType:
		buf.WriteString("null")
	case lua.LBool:
		buf.WriteString(strconv.FormatBool(bool(v)))
	case lua.LNumber:
		f := float64(v)
		switch {
		case math.IsNaN(f):
			buf.WriteString(`{"$num":"nan"}`)
		case math.IsInf(f, 1):
			buf.WriteString(`{"$num":"inf"}`)
		case math.IsInf(f, -1):
			buf.WriteString(`{"$num":"-inf"}`)
		default:
			buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case lua.LString:
		writeString(buf, string(v))
	case *lua.LUserData:
		path := e.path(false)
		e.bound = append(e.bound, path)
		buf.WriteString(`{"$bound":`)
		writeString(buf, path)
		buf.WriteByte('}')
	case *lua.LTable:
		if e.counts[v] > 1 {
			if id, ok := e.ids[v]; ok {
				fmt.Fprintf(buf, `{"$ref":%d}`, id)
				return nil
			}
			if e.ids == nil {
				e.ids = map[*lua.LTable]int{}
			}
			id := len(e.ids) + 1
			e.ids[v] = id
			fmt.Fprintf(buf, `{"$id":%d,"$t":`, id)
			if err := e.table(buf, v); err != nil {
				return err
			}
			buf.WriteByte('}')
			return nil
		}
		return e.table(buf, v)
	default:
		return fmt.Errorf("%s: a %s: %w", e.path(true), v.Type(), ErrUnsaveable)
	}
	return nil
}

func (e *encoder) table(buf *bytes.Buffer, t *lua.LTable) error {
	if e.depth >= maxSnapshotDepth {
		return fmt.Errorf("%s: tables nested more than %d deep: %w", e.path(true), maxSnapshotDepth, ErrUnsaveable)
	}
	e.depth++
	defer func() { e.depth-- }()
	// Keys sorted (strings, then numbers), so the same data always makes
	// the same snapshot: gopher-lua's own order is a Go map's.
	keys := sortedKeys(t)
	// The keys of the array part (whole numbers 1 to the sequence limit):
	// how many, the largest, and the others.
	seq, last, others := arrayKeys(keys)
	sparse := last-seq > seq
	if last > 0 && len(others) == 0 && (last == seq || sparse) {
		// A sequence, or one with more holes than elements: written as a
		// list with nulls, so that the snapshot pays for the empty slots
		// its reader fills (see decoder.gapLeft).
		return e.list(buf, t, last)
	}
	if sparse {
		buf.WriteString(`{"$array":`)
		if err := e.list(buf, t, last); err != nil {
			return err
		}
		buf.WriteString(`,`)
		return e.pairs(buf, t, others)
	}
	plain := true
	for _, k := range keys {
		s, ok := k.(lua.LString)
		plain = plain && ok && !strings.HasPrefix(string(s), "$") && utf8.ValidString(string(s))
	}
	if plain {
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k.String())
			buf.WriteByte(':')
			e.push(segField, 0, k)
			err := e.write(buf, t.RawGet(k))
			e.pop()
			if err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	}
	buf.WriteByte('{')
	return e.pairs(buf, t, keys)
}

// arrayKeys splits sorted keys into those of a table's array part (whole
// numbers from 1 to the sequence limit: their count and the largest) and
// the others.
func arrayKeys(keys []lua.LValue) (count, last int, others []lua.LValue) {
	limit := float64(lua.MaxArrayIndex - 1)
	for _, k := range keys {
		if n, ok := k.(lua.LNumber); ok && n >= 1 && float64(n) <= limit && float64(n) == math.Trunc(float64(n)) {
			count++
			last = max(last, int(n))
			continue
		}
		others = append(others, k)
	}
	return count, last, others
}

// list writes t[1] to t[last] as a JSON list, nil as null.
func (e *encoder) list(buf *bytes.Buffer, t *lua.LTable, last int) error {
	buf.WriteByte('[')
	for i := 1; i <= last; i++ {
		if i > 1 {
			buf.WriteByte(',')
		}
		e.push(segIndex, i, nil)
		err := e.write(buf, t.RawGetInt(i))
		e.pop()
		if err != nil {
			return err
		}
	}
	buf.WriteByte(']')
	return nil
}

// pairs writes "$pairs":[[k, v], …]} for keys (the object's opening brace
// is written).
func (e *encoder) pairs(buf *bytes.Buffer, t *lua.LTable, keys []lua.LValue) error {
	buf.WriteString(`"$pairs":[`)
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('[')
		e.push(segKeyOf, 0, k)
		err := e.write(buf, k)
		e.pop()
		if err != nil {
			return err
		}
		buf.WriteByte(',')
		e.push(segKey, 0, k)
		err = e.write(buf, t.RawGet(k))
		e.pop()
		if err != nil {
			return err
		}
		buf.WriteByte(']')
	}
	buf.WriteString("]}")
	return nil
}
