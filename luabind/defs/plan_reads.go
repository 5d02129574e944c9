package defs

import (
	"math/bits"
	"unsafe"

	"github.com/luaai/luaai/internal/strmap"
	lua "github.com/yuin/gopher-lua"
)

// Remembered reads: a plan's fields are mostly keys of the context's
// string map, which a run would look up one by one (hash the key, probe
// the map) at every decision of every agent. A Go map never moves an entry
// within its slots (a larger map gets new ones), so a context's Reads
// remembers, for each field, the slot where the context's map held it,
// and a run reads the value from there once it has checked, with no
// lookup, that the map is the same, its slots the same, and the slot full
// and holding the field's key: then the slot is where the map holds the
// key, and its value is the lookup's. A field that fails the check, or is
// not in the map, is looked up as before (package strmap reads the
// layout; without it, every field is looked up).

// Reads is where a score plan last found one context's fields. Its caller
// keeps one for each context it runs the plan on (RunReads); the zero
// value remembers nothing. Not safe for concurrent use.
type Reads struct {
	plan *ScorePlan
	m, g unsafe.Pointer // the string map and its slots, as remembered
	tab  unsafe.Pointer // the map's table, nil for a map of one group (Hint)
	size int            // bytes of slots at g
	have uint64         // the fields whose slots at holds
	// at: by field, its slot's control byte's offset in g, and its key's
	// offset shifted 16 bits up.
	at [maxReads]uint32
}

// maxReads is the most fields a Reads remembers (the first ones).
const maxReads = 16

// maxReadGroups bounds the slots a map may have for its fields to be
// remembered (eight groups of eight slots), so that finding them stays
// cheap.
const maxReadGroups = 8

// RunReads is Run with the context's Reads r (nil: Run): the same scores,
// the same candidates handed back.
func (p *ScorePlan) RunReads(vm *VM, ctx *lua.LTable, r *Reads, scores []float64, from int) int {
	return p.run(vm, ctx, r, scores, from)
}

// remembered reads the fields in need that r remembers, after checking
// each, and returns those left to look up.
func (p *ScorePlan) remembered(ctx *lua.LTable, r *Reads, need uint64) uint64 {
	m := strmap.Of(ctx)
	tab, g, groups := strmap.Table(m)
	if g == nil || groups > maxReadGroups {
		if r.plan != nil {
			*r = Reads{} // nothing to hint at either
		}
		return need
	}
	if r.plan != p || r.m != m || r.g != g {
		p.remember(r, m, g, groups)
		r.tab = tab
	}
	hit := need & r.have
	need &^= hit
	num := p.num
	for hit != 0 {
		i := bits.TrailingZeros64(hit)
		hit &= hit - 1
		at := r.at[i&(maxReads-1)]
		slot := unsafe.Add(g, at>>16)
		sk, k := *(*string)(slot), p.keys[i]
		if *(*uint8)(unsafe.Add(g, at&0xffff))&0x80 != 0 || len(sk) != len(k) || unsafe.StringData(sk) != unsafe.StringData(k) && sk != k {
			r.have &^= 1 << i // gone from there: looked up from now on
			need |= 1 << i
			continue
		}
		x, isNum := fieldValue(*(*lua.LValue)(unsafe.Add(slot, strmap.KeySize)))
		p.v[i&slotMask] = x
		if isNum {
			num |= 1 << i
		}
	}
	p.num = num
	return need
}

// Hint tells where the next run through r will read, for a caller that
// asks the CPU for it ahead: the context map's table (nil for a map of one
// group) and size bytes of its slots at slots; nothing while r remembers
// nothing. The addresses are only hints: the run checks all it reads.
func (r *Reads) Hint() (tab, slots unsafe.Pointer, size int) {
	if r.have == 0 {
		return nil, nil, 0
	}
	return r.tab, r.g, r.size
}

// remember makes r the slots where map m, whose slots are groups groups
// at g, holds p's fields (those with a key, among the first maxReads).
func (p *ScorePlan) remember(r *Reads, m, g unsafe.Pointer, groups int) {
	*r = Reads{plan: p, m: m, g: g, size: groups * int(strmap.GroupSize)}
	n := min(len(p.paths), maxReads)
	for gi := range groups {
		base := uintptr(gi) * strmap.GroupSize
		for s := range strmap.SlotsPerGroup {
			if *(*uint8)(unsafe.Add(g, base+uintptr(s)))&0x80 != 0 {
				continue // empty or deleted
			}
			off := base + strmap.SlotKey(s)
			sk := *(*string)(unsafe.Add(g, off))
			for i := range n {
				if k := p.keys[i]; k != "" && k == sk {
					r.at[i] = uint32(base+uintptr(s)) | uint32(off)<<16
					r.have |= 1 << i
					// The map's own string: the checks compare pointers.
					p.keys[i] = sk
					break
				}
			}
		}
	}
}
