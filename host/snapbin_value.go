package host

// Lua values in the binary snapshot format (snapbin.go): what encoder
// writes as JSON (snapcodec.go), as tagged bytes. The structure is the
// JSON form's (keys sorted, the same choice between a list, a sparse list
// with other keys, and key/value pairs) so that the reader fills its
// tables with the same keys in the same order as the JSON reader does:
// a binary save read back saves as the same JSON.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// The tags of binary values.
const (
	binNil    = iota // nil (a list's hole)
	binFalse         // false
	binTrue          // true
	binFloat         // a number: 8 bytes, little-endian IEEE 754
	binInt           // a whole number below 2^53: a zigzag varint
	binStr           // a short string met for the first time: its length and bytes, then known by its index
	binStrRef        // a short string met before: its index (uvarint)
	binLong          // a long string: its length and bytes
	binTable         // a table: the counts of its list part and its pairs, the list's values, the pairs' keys and values
	binShared        // a table reached more than once: its id, the next one, then its body
	binRef           // a table written before: its id
	binBound         // a bound Go value: its path (length and bytes)
)

// binInternMax is the longest string the value table interns: field names
// and short values (states, tags), which repeat across agents.
const binInternMax = 40

// errShared: encodeBinOnce met a table a second time (or too many
// tables to look for one).
var errShared = errors.New("a table reached twice")

// encodeBinOnce is count and encodeBin for a value alone (an agent's
// context when nothing else of it is saved) in one walk where no table is
// reached twice, the common case; where one is, it walks again as they do.
func (e *encoder) encodeBinOnce(v lua.LValue, root string) ([]byte, error) {
	e.once, e.seen, e.added = true, e.seen[:0], e.added[:0]
	out, err := e.encodeBin(v, root)
	e.once = false
	if err != errShared {
		return out, err
	}
	for _, s := range e.added {
		e.strs.forget(s) // their bytes were cut with the rest
	}
	e.plan.ok, e.innerPlan.ok = false, false
	e.bound = nil
	if err := e.count(v, root, 0); err != nil {
		return nil, err
	}
	return e.encodeBin(v, root)
}

// encodeBin writes v in the binary form, length-prefixed, to the encoder's
// arena and returns those bytes; root names v in errors and bound paths.
// count must have seen v.
func (e *encoder) encodeBin(v lua.LValue, root string) ([]byte, error) {
	e.root, e.segs = root, e.segs[:0]
	start := len(e.buf)
	e.buf = append(e.buf, 0, 0, 0, 0) // the length, fixed-size: written when known
	if err := e.writeBin(v); err != nil {
		e.buf = e.buf[:start]
		return nil, err
	}
	binary.LittleEndian.PutUint32(e.buf[start:], uint32(len(e.buf)-start-4))
	return e.buf[start:len(e.buf):len(e.buf)], nil
}

func (e *encoder) binString(s string) {
	if len(s) > binInternMax {
		e.buf = append(e.buf, binLong)
		e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
		e.buf = append(e.buf, s...)
		return
	}
	if i, ok := e.strs.get(s); ok {
		e.buf = append(e.buf, binStrRef)
		e.buf = binary.AppendUvarint(e.buf, uint64(i))
		return
	}
	e.strs.add(s, e.strs.len())
	if e.once {
		e.added = append(e.added, s)
	}
	e.buf = append(e.buf, binStr)
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// binNumber writes a number: a whole one below 2^53 as a varint, any
// other as its 8 bytes.
func (e *encoder) binNumber(f float64) {
	// i is f's value when f is whole and within int64 (Go converts any
	// other to some int64, which the comparison then tells apart).
	if i := int64(f); float64(i) == f && i < 1<<53 && i > -(1<<53) && (i != 0 || !math.Signbit(f)) {
		e.buf = append(e.buf, binInt)
		e.buf = binary.AppendVarint(e.buf, i)
		return
	}
	e.buf = append(e.buf, binFloat)
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(f))
}

func (e *encoder) writeBin(v lua.LValue) error {
	switch v := v.(type) {
	case *lua.LNilType:
		e.buf = append(e.buf, binNil)
	case lua.LBool, lua.LNumber, lua.LString:
		e.writeScalar(v)
	case *lua.LUserData:
		path := e.path(false)
		e.bound = append(e.bound, path)
		e.buf = append(e.buf, binBound)
		e.buf = binary.AppendUvarint(e.buf, uint64(len(path)))
		e.buf = append(e.buf, path...)
	case *lua.LTable:
		if e.once {
			if len(e.seen) >= 32 || slices.Contains(e.seen, v) {
				return errShared
			}
			e.seen = append(e.seen, v)
			e.buf = append(e.buf, binTable)
			if e.depth == 0 && !e.noFlat && e.flatBin(v) {
				return nil
			}
			return e.tableBin(v)
		}
		if e.counts[v] > 1 {
			if id, ok := e.ids[v]; ok {
				e.buf = append(e.buf, binRef)
				e.buf = binary.AppendUvarint(e.buf, uint64(id))
				return nil
			}
			if e.ids == nil {
				e.ids = map[*lua.LTable]int{}
			}
			id := len(e.ids) + 1
			e.ids[v] = id
			e.buf = append(e.buf, binShared)
			e.buf = binary.AppendUvarint(e.buf, uint64(id))
			return e.tableBin(v)
		}
		e.buf = append(e.buf, binTable)
		return e.tableBin(v)
	default:
		return fmt.Errorf("%s: a %s: %w", e.path(true), v.Type(), ErrUnsaveable)
	}
	return nil
}

// tableBin writes t's body: the list part and the pairs, split as table
// splits them for JSON.
func (e *encoder) tableBin(t *lua.LTable) error {
	if e.depth >= maxSnapshotDepth {
		return fmt.Errorf("%s: tables nested more than %d deep: %w", e.path(true), maxSnapshotDepth, ErrUnsaveable)
	}
	e.depth++
	defer func() { e.depth-- }()
	ents := e.sortedEntries(t)
	defer e.putEntries(ents)
	seq, last := arrayEntries(ents)
	others := len(ents) - seq
	sparse := last-seq > seq
	// pairs: every entry (all), those not in the list (others), or none.
	list, pairs, all := 0, len(ents), true
	switch {
	case last > 0 && others == 0 && (last == seq || sparse):
		list, pairs = last, 0
	case sparse:
		list, pairs, all = last, others, false
	}
	e.buf = binary.AppendUvarint(e.buf, uint64(list))
	e.buf = binary.AppendUvarint(e.buf, uint64(pairs))
	for i := 1; i <= list; i++ {
		e.push(segIndex, i, nil)
		err := e.writeBin(t.RawGetInt(i))
		e.pop()
		if err != nil {
			return err
		}
	}
	if pairs == 0 {
		return nil
	}
	for _, en := range ents {
		if !all && isArrayKey(en.k) {
			continue
		}
		e.push(segKeyOf, 0, en.k)
		err := e.writeBin(en.k)
		e.pop()
		if err != nil {
			return err
		}
		e.push(segField, 0, en.k)
		err = e.writeBin(en.v)
		e.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

// binValue reads one value of the binary form; depth counts the tables
// around it.
//
// It is long because it is one switch over the tags, each case a few
// lines.
func (d *decoder) binValue(r *binReader, depth int) (lua.LValue, error) {
	tag := r.byte()
	switch tag {
	case binNil:
		return lua.LNil, r.err
	case binFalse:
		return lua.LFalse, nil
	case binTrue:
		return lua.LTrue, nil
	case binFloat:
		return r.boxed(math.Float64frombits(r.u64())), r.err
	case binInt:
		n := r.varint()
		if n >= 1<<53 || n <= -(1<<53) {
			return nil, r.fail("number %d out of range", n)
		}
		return r.boxed(float64(n)), r.err
	case binStr:
		s := r.bytes(binInternMax)
		if r.err != nil {
			return nil, r.err
		}
		v := lua.LValue(lua.LString(s))
		r.vals = append(r.vals, v)
		return v, nil
	case binStrRef:
		i := r.uvarint()
		if r.err == nil && i >= uint64(len(r.vals)) {
			return nil, r.fail("string %d named before it is written", i)
		}
		if r.err != nil {
			return nil, r.err
		}
		return r.vals[i], nil
	case binLong:
		s := r.bytes(-1)
		return lua.LString(s), r.err
	case binBound:
		path := r.bytes(-1)
		if r.err != nil {
			return nil, r.err
		}
		ud := d.L.NewUserData()
		ud.Value = boundMark{path} // the game binds it again
		return ud, nil
	case binRef:
		id := r.uvarint()
		t := d.ids[int(id)]
		if r.err == nil && (id > uint64(len(d.ids)) || t == nil) {
			return nil, r.fail("table %d named before it is written", id)
		}
		return t, r.err
	case binShared, binTable:
		if depth >= maxSnapshotDepth {
			return nil, r.fail("tables nested more than %d deep", maxSnapshotDepth)
		}
		var id uint64
		if tag == binShared {
			if id = r.uvarint(); r.err == nil && id != uint64(len(d.ids))+1 {
				return nil, r.fail("table id %d out of order", id)
			}
		}
		return d.binTable(r, depth, int(id))
	}
	if r.err != nil {
		return nil, r.err
	}
	return nil, r.fail("unknown value tag %d", tag)
}

// binTable reads a table's body; id, when not 0, is the id it is known by
// (it exists before its contents are read: they may refer to it).
func (d *decoder) binTable(r *binReader, depth, id int) (lua.LValue, error) {
	list, pairs := r.count(1), r.count(2)
	if r.err == nil && list+2*pairs > len(r.b)-r.i {
		return nil, r.fail("a table of %d elements and %d pairs in %d bytes", list, pairs, len(r.b)-r.i)
	}
	if r.err != nil {
		return nil, r.err
	}
	// Presized: each element takes a byte at least, each pair two, so the
	// room is bounded by the input.
	if list == 0 && id == 0 && pairs > 0 && pairs <= maxFilled && tableMirrored {
		return d.binPairs(r, depth, pairs)
	}
	t := d.L.CreateTable(list, pairs)
	if id != 0 {
		if d.ids == nil {
			d.ids = map[int]*lua.LTable{}
		}
		d.ids[id] = t
	}
	for i := 1; i <= list; i++ {
		v, err := d.binValue(r, depth+1)
		if err != nil {
			return nil, err
		}
		if err := d.set(t, lua.LNumber(i), v); err != nil {
			return nil, r.fail("%v", err)
		}
	}
	for range pairs {
		k, v, err := d.binPair(r, depth)
		if err != nil {
			return nil, err
		}
		if err := d.set(t, k, v); err != nil {
			return nil, r.fail("%v", err)
		}
	}
	return t, nil
}
