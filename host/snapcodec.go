package host

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/luaai/luaai/internal/luatext"
	lua "github.com/yuin/gopher-lua"
)

// maxSnapshotCount bounds tick counts and ids in a snapshot: counts a game
// reaches, well short of where an int would wrap when ticked (2^53, the
// largest integer a Lua number holds exactly; where int has 32 bits, the
// largest int).
const maxSnapshotCount = min(1<<53, math.MaxInt)

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
	// buf is the arena the encoded values are appended to; keys holds
	// key lists for reuse (one per nesting level in use).
	buf  []byte
	keys [][]lua.LValue
	ents [][]entry
	// plan and flatVals are flatBin's: the last flat context's keys, and
	// scratch for a context's values.
	plan flatPlan
	// innerPlan is flatBin's plan of the last table inside a context.
	innerPlan flatPlan
	flatVals  []lua.LValue
	// flatOrder is flatBin's scratch for the sorted order of keys, per
	// depth (the context, a table in it).
	flatOrder [2][]int
	noFlat    bool // the general walk only (for tests comparing the two)
	// strs numbers the short strings the binary form wrote (writeBin),
	// across the agents of a save.
	strs strNums
	// once: encodeBinOnce's walk, which keeps the tables it met in seen
	// and the strings it numbered in added.
	once  bool
	seen  []*lua.LTable
	added []string
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
			k = luatext.CutText(k, 40)
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
	keys := e.sortedKeys(t) // gopher-lua's order is a Go map's: an error names the same key each time
	defer e.putKeys(keys)
	for _, k := range keys {
		if _, ok := k.(*lua.LTable); ok {
			e.push(segKeyOf, 0, k)
			err := e.countAt(k, depth+1)
			e.pop()
			if err != nil {
				return err
			}
		}
		if val, ok := t.RawGet(k).(*lua.LTable); ok {
			e.push(segField, 0, k)
			err := e.countAt(val, depth+1)
			e.pop()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// encode writes v as JSON; root names it in errors and bound paths. The
// bytes are the encoder's own (appended to its arena, never written
// again), so a save's values share a few large allocations.
func (e *encoder) encode(v lua.LValue, root string) (json.RawMessage, error) {
	e.root, e.segs = root, e.segs[:0]
	start := len(e.buf)
	if err := e.write(v); err != nil {
		e.buf = e.buf[:start]
		return nil, err
	}
	return e.buf[start:len(e.buf):len(e.buf)], nil
}

func (e *encoder) writeString(s string) {
	if utf8.ValidString(s) {
		e.buf = appendJSONString(e.buf, s)
		return
	}
	e.buf = append(e.buf, `{"$bytes":"`...)
	e.buf = base64.StdEncoding.AppendEncode(e.buf, []byte(s))
	e.buf = append(e.buf, `"}`...)
}

func (e *encoder) write(v lua.LValue) error {
	switch v := v.(type) {
	case *lua.LNilType:
		e.buf = append(e.buf, "null"...)
	case lua.LBool:
		e.buf = strconv.AppendBool(e.buf, bool(v))
	case lua.LNumber:
		f := float64(v)
		switch {
		case math.IsNaN(f):
			e.buf = append(e.buf, `{"$num":"nan"}`...)
		case math.IsInf(f, 1):
			e.buf = append(e.buf, `{"$num":"inf"}`...)
		case math.IsInf(f, -1):
			e.buf = append(e.buf, `{"$num":"-inf"}`...)
		default:
			e.buf = strconv.AppendFloat(e.buf, f, 'g', -1, 64)
		}
	case lua.LString:
		e.writeString(string(v))
	case *lua.LUserData:
		path := e.path(false)
		e.bound = append(e.bound, path)
		e.buf = append(e.buf, `{"$bound":`...)
		e.writeString(path)
		e.buf = append(e.buf, '}')
	case *lua.LTable:
		if e.counts[v] > 1 {
			if id, ok := e.ids[v]; ok {
				e.buf = append(e.buf, `{"$ref":`...)
				e.buf = strconv.AppendInt(e.buf, int64(id), 10)
				e.buf = append(e.buf, '}')
				return nil
			}
			if e.ids == nil {
				e.ids = map[*lua.LTable]int{}
			}
			id := len(e.ids) + 1
			e.ids[v] = id
			e.buf = append(e.buf, `{"$id":`...)
			e.buf = strconv.AppendInt(e.buf, int64(id), 10)
			e.buf = append(e.buf, `,"$t":`...)
			if err := e.table(v); err != nil {
				return err
			}
			e.buf = append(e.buf, '}')
			return nil
		}
		return e.table(v)
	default:
		return fmt.Errorf("%s: a %s: %w", e.path(true), v.Type(), ErrUnsaveable)
	}
	return nil
}

func (e *encoder) table(t *lua.LTable) error {
	if e.depth >= maxSnapshotDepth {
		return fmt.Errorf("%s: tables nested more than %d deep: %w", e.path(true), maxSnapshotDepth, ErrUnsaveable)
	}
	e.depth++
	defer func() { e.depth-- }()
	// Keys sorted (strings, then numbers), so the same data always makes
	// the same snapshot: gopher-lua's own order is a Go map's.
	keys := e.sortedKeys(t)
	defer e.putKeys(keys)
	// The keys of the array part (whole numbers 1 to the sequence limit):
	// how many, the largest, and the others.
	seq, last, others := arrayKeys(keys)
	sparse := last-seq > seq
	if last > 0 && len(others) == 0 && (last == seq || sparse) {
		// A sequence, or one with more holes than elements: written as a
		// list with nulls, so that the snapshot pays for the empty slots
		// its reader fills (see decoder.gapLeft).
		return e.list(t, last)
	}
	if sparse {
		e.buf = append(e.buf, `{"$array":`...)
		if err := e.list(t, last); err != nil {
			return err
		}
		e.buf = append(e.buf, ',')
		return e.pairs(t, others)
	}
	plain := true
	for _, k := range keys {
		s, ok := k.(lua.LString)
		plain = plain && ok && !strings.HasPrefix(string(s), "$") && utf8.ValidString(string(s))
	}
	if plain {
		e.buf = append(e.buf, '{')
		for i, k := range keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.writeString(string(k.(lua.LString)))
			e.buf = append(e.buf, ':')
			e.push(segField, 0, k)
			err := e.write(t.RawGet(k))
			e.pop()
			if err != nil {
				return err
			}
		}
		e.buf = append(e.buf, '}')
		return nil
	}
	e.buf = append(e.buf, '{')
	return e.pairs(t, keys)
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
func (e *encoder) list(t *lua.LTable, last int) error {
	e.buf = append(e.buf, '[')
	for i := 1; i <= last; i++ {
		if i > 1 {
			e.buf = append(e.buf, ',')
		}
		e.push(segIndex, i, nil)
		err := e.write(t.RawGetInt(i))
		e.pop()
		if err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

// pairs writes "$pairs":[[k, v], …]} for keys (the object's opening brace
// is written).
func (e *encoder) pairs(t *lua.LTable, keys []lua.LValue) error {
	e.buf = append(e.buf, `"$pairs":[`...)
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, '[')
		e.push(segKeyOf, 0, k)
		err := e.write(k)
		e.pop()
		if err != nil {
			return err
		}
		e.buf = append(e.buf, ',')
		e.push(segKey, 0, k)
		err = e.write(t.RawGet(k))
		e.pop()
		if err != nil {
			return err
		}
		e.buf = append(e.buf, ']')
	}
	e.buf = append(e.buf, "]}"...)
	return nil
}
