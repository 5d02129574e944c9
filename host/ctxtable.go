package host

// Filling a fresh context table in one go. gopher-lua's RawSetString boxes
// each key twice (for its key list and its key index), grows the key list
// and the index one key at a time, and checks for the key first; a context
// made from a layout's defaults has keys known in advance, all distinct, in
// a known order. fillStrings gives the table exactly what those RawSetString
// calls leave (the same maps, the same key list in the same order, so next()
// and pairs() walk it as before), sharing the layout's boxed keys, through
// luaval.SetStrings. It is used only where luaval.StringsLayout holds;
// otherwise contexts are filled with RawSetString.

import (
	"maps"
	"math"
	"slices"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// tableMirrored: contexts of string keys can be filled in one go.
var tableMirrored = luaval.StringsLayout()

// fillStrings makes a table holding vals[i] at keys[i], each key a
// distinct lua.LString and each value not nil: what RawSetString of each
// in turn on a table made by CreateTable(0, len(keys)) makes. It needs
// tableMirrored. The table is taken from s (nil: allocated alone).
func fillStrings(s *tableSlab, keys, vals []lua.LValue) *lua.LTable {
	t, list := s.take(len(keys))
	copy(list, keys)
	f := filledTable(t, list)
	for i, k := range keys {
		f.strdict[string(k.(lua.LString))] = vals[i]
		f.k2i[k] = i
	}
	return t
}

// filledTable gives t the key list keys (kept) and maps made for as many
// keys, and returns the maps for the caller to fill.
func filledTable(t *lua.LTable, keys []lua.LValue) stringParts {
	f := stringParts{strdict: make(map[string]lua.LValue, len(keys)), k2i: make(map[lua.LValue]int, len(keys))}
	luaval.SetStrings(t, f.strdict, keys, f.k2i)
	return f
}

// stringParts are a table's string map and key index, filled after
// SetStrings gave them to it (maps are shared, so filling them fills it).
type stringParts struct {
	strdict map[string]lua.LValue
	k2i     map[lua.LValue]int
}

// tableTemplate is the key index of a table of string keys a load filled,
// for the next one with the same keys (the same boxed strings, in the same
// order) to copy instead of filling it key by key.
type tableTemplate struct {
	keys []lua.LValue
	k2i  map[lua.LValue]int
}

// like tells whether keys are the template's.
func (tt *tableTemplate) like(keys []lua.LValue) bool {
	if tt.keys == nil || len(keys) != len(tt.keys) {
		return false
	}
	for i, k := range keys {
		if k != tt.keys[i] {
			return false
		}
	}
	return true
}

// tableTemplates are the templates of the last few sets of keys a load
// met (a unit's context and the tables in it, of a few kinds of units,
// alternate), the oldest replaced.
type tableTemplates struct {
	t    [8]tableTemplate
	next int
}

// find is the template of keys, or nil.
func (ts *tableTemplates) find(keys []lua.LValue) *tableTemplate {
	for i := range ts.t {
		if ts.t[i].like(keys) {
			return &ts.t[i]
		}
	}
	return nil
}

// add makes t the template of its keys, in place of the oldest.
func (ts *tableTemplates) add(t tableTemplate) {
	ts.t[ts.next] = t
	ts.next = (ts.next + 1) % len(ts.t)
}

// The tables tableWithKeys makes, each with room for its first keys.
type (
	table2 struct {
		t    lua.LTable
		keys [2]lua.LValue
	}
	table4 struct {
		t    lua.LTable
		keys [4]lua.LValue
	}
	table8 struct {
		t    lua.LTable
		keys [8]lua.LValue
	}
)

// tableWithKeys is an empty table and a key list of n keys for it, made
// in one allocation where n ≤ 8 (the list's room past n is the table's to
// grow into).
func tableWithKeys(n int) (*lua.LTable, []lua.LValue) {
	switch {
	case n <= 2:
		x := &table2{t: lua.LTable{Metatable: lua.LNil}}
		return &x.t, x.keys[:n]
	case n <= 4:
		x := &table4{t: lua.LTable{Metatable: lua.LNil}}
		return &x.t, x.keys[:n]
	case n <= 8:
		x := &table8{t: lua.LTable{Metatable: lua.LNil}}
		return &x.t, x.keys[:n]
	}
	return &lua.LTable{Metatable: lua.LNil}, make([]lua.LValue, n)
}

// tableBlock is how many tables a tableSlab allocates at once.
const tableBlock = 64

// tableSlab hands out what tableWithKeys makes from blocks of tableBlock
// tables of each size, one allocation per block: a load or a batch of
// spawns makes its contexts from one. A block lives as long as any of its
// tables (a context a script keeps keeps its block, at most tableBlock
// tables of a few keys each, with their maps).
type tableSlab struct {
	t2 []table2
	t4 []table4
	t8 []table8
}

// fromBlock is the next cell of *blk, the rest of a block of tableBlock
// cells (a new block when it is used up).
func fromBlock[T any](blk *[]T) *T {
	if len(*blk) == 0 {
		*blk = make([]T, tableBlock)
	}
	x := &(*blk)[0]
	if *blk = (*blk)[1:]; len(*blk) == 0 {
		*blk = nil // an empty slice would still hold the block
	}
	return x
}

// take is tableWithKeys(n), from the slab's blocks (from no block for a
// nil slab).
func (s *tableSlab) take(n int) (*lua.LTable, []lua.LValue) {
	switch {
	case s == nil:
		return tableWithKeys(n)
	case n <= 2:
		x := fromBlock(&s.t2)
		x.t.Metatable = lua.LNil
		return &x.t, x.keys[:n]
	case n <= 4:
		x := fromBlock(&s.t4)
		x.t.Metatable = lua.LNil
		return &x.t, x.keys[:n]
	case n <= 8:
		x := fromBlock(&s.t8)
		x.t.Metatable = lua.LNil
		return &x.t, x.keys[:n]
	}
	return &lua.LTable{Metatable: lua.LNil}, make([]lua.LValue, n)
}

// maxFilled is the most pairs binPairs reads before making the table (its
// check that the keys are distinct is quadratic).
const maxFilled = 16

// binPairs reads a table of n pairs and no list that no other value refers
// to (binTable's case of a context): the pairs first, then the table, with
// fillStrings where every key is a string, distinct, and every value an
// ordinary one, and otherwise as binTable makes it (the same table).
func (d *decoder) binPairs(r *binReader, depth, n int) (lua.LValue, error) {
	base := len(r.pairs)
	plain := true
	for range n {
		k, v, err := d.binPair(r, depth)
		if err != nil {
			r.pairs = r.pairs[:base]
			return nil, err
		}
		plain = plain && plainPair(k, v, r.pairs[base:])
		r.pairs = append(r.pairs, k, v)
	}
	t, err := d.pairsTable(r, r.pairs[base:], plain)
	r.pairs = r.pairs[:base]
	return t, err
}

// pairsTable makes binPairs' table of the keys and values in kv (key,
// value, key, ...); plain: every key a distinct string, every value an
// ordinary one.
func (d *decoder) pairsTable(r *binReader, kv []lua.LValue, plain bool) (lua.LValue, error) {
	n := len(kv) / 2
	if plain {
		t, keys := r.tables.take(n)
		for i := range keys {
			keys[i] = kv[2*i]
		}
		if tt := r.tmpl.find(keys); tt != nil {
			// The key index is the template's copy; the string map is filled
			// anew (cheaper than a copy whose values are all replaced, and
			// a full map of one group would grow at the first of them).
			strdict, k2i := make(map[string]lua.LValue, n), maps.Clone(tt.k2i)
			for i, k := range keys {
				strdict[string(k.(lua.LString))] = kv[2*i+1]
			}
			luaval.SetStrings(t, strdict, keys, k2i)
			return t, nil
		}
		f := filledTable(t, keys)
		for i, k := range keys {
			f.strdict[string(k.(lua.LString))] = kv[2*i+1]
			f.k2i[k] = i
		}
		r.tmpl.add(tableTemplate{keys: slices.Clone(keys), k2i: maps.Clone(f.k2i)})
		return t, nil
	}
	t := d.L.CreateTable(0, n)
	for i := 0; i < len(kv); i += 2 {
		if err := d.set(t, kv[i], kv[i+1]); err != nil {
			return nil, r.fail("%v", err)
		}
	}
	return t, nil
}

// binPair reads one key and its value of a table at depth: a key that is
// nil or NaN is refused, as Lua refuses it.
func (d *decoder) binPair(r *binReader, depth int) (k, v lua.LValue, err error) {
	if k, err = d.binValue(r, depth+1); err != nil {
		return nil, nil, err
	}
	if k == lua.LNil {
		return nil, nil, r.fail("nil table key")
	}
	if n, ok := k.(lua.LNumber); ok && math.IsNaN(float64(n)) {
		return nil, nil, r.fail("NaN table key")
	}
	if v, err = d.binValue(r, depth+1); err != nil {
		return nil, nil, err
	}
	return k, v, nil
}

// plainPair: k is a string key not among the keys of before (pairs of key
// and value) and v is a value RawSet stores as it is (not nil, not a bound
// value's mark).
func plainPair(k, v lua.LValue, before []lua.LValue) bool {
	if _, ok := k.(lua.LString); !ok || v == lua.LNil {
		return false
	}
	if ud, ok := v.(*lua.LUserData); ok {
		if _, ok := ud.Value.(boundMark); ok {
			return false
		}
	}
	for i := 0; i < len(before); i += 2 {
		if before[i] == k {
			return false
		}
	}
	return true
}
