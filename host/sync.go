package host

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/luaai/luaai/host/internal/prefetch"
	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// ErrNotSyncable: Agent.Sync given something other than a pointer to a
// struct with `lua` tags on fields of the kinds it copies.
var ErrNotSyncable = errors.New("not a pointer to a struct with lua-tagged number, bool or string fields")

// Sync puts a game object's tagged fields into the agent's context as a
// plain Lua table at key, copied from the struct before each of the
// agent's ticks and back after it: scripts read and write ctx.key.field at
// the speed of a plain field, where a value bound with Bind goes through
// gopher-luar's reflection on every access.
//
// ptr must point to a struct. A field takes part when it has a `lua` tag
// naming it in Lua (`lua:"hp"`), and is a number (any int, uint or float
// kind), a bool or a string; `lua:"hp,readonly"` copies it into Lua only
// (what a script writes there is not copied back). Fields of other kinds,
// and untagged ones, are not copied. Numbers are copied back converted
// to the field's kind (truncated toward zero for integers); a script that
// stores a value of another type, or nil, leaves the field as it was.
//
// The struct is read and written on the worker goroutine that ticks the
// agent, during Host.Tick (or Agent.Tick): the game must not touch it
// while a tick runs, and with Options.Workers > 1 one struct can be synced
// into one agent only, as for Bind. Methods are not reachable from Lua:
// bind the object as well (under another key) for those. A snapshot saves
// the table as plain data; after Restore, call Sync again: in
// RestoreOptions.Attach, Sync fills the table the snapshot saved at key
// (the fields scripts added to it stay; not where a script had put the
// context itself or another synced key's table there), elsewhere it puts
// a new one there.
func (a *Agent) Sync(key string, ptr any) error {
	if err := a.usable(); err != nil {
		return err
	}
	rv := reflect.ValueOf(ptr)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("sync %q: %T: %w", key, ptr, ErrNotSyncable)
	}
	plan := syncPlanOf(rv.Elem().Type())
	if len(plan) == 0 {
		return fmt.Errorf("sync %q: %T has no lua-tagged field: %w", key, ptr, ErrNotSyncable)
	}
	c := converter{L: a.w.vm.L, h: a.h, agent: a.id}
	if err := c.own(ptr); err != nil {
		return fmt.Errorf("sync %q: %w", key, err)
	}
	t, restored := a.syncTable(key, len(plan))
	s := newSynced(len(plan))
	s.key, s.base, s.plan, s.t, s.ptr = key, rv.UnsafePointer(), plan, t, ptr
	for i := range a.syncs {
		if a.syncs[i].key == key {
			a.syncs = append(a.syncs[:i], a.syncs[i+1:]...)
			break
		}
	}
	a.syncs = append(a.syncs, s)
	a.bound = append(a.bound, c.bound...)
	if !restored {
		a.ctx.RawSetString(key, t)
	}
	s.in(a.w)
	s.hint.find(t)
	return nil
}

// syncTable is the table Sync fills at key: while the agent is given to
// RestoreOptions.Attach, the table its restore made at a key saved as
// synced (restored: only what the agent saved reaches it, and the fields
// its scripts added stay), unless a script had put the context itself
// there or the table of another synced key (then Sync would write the
// struct's fields into those); else a new one.
func (a *Agent) syncTable(key string, fields int) (t *lua.LTable, restored bool) {
	if a.h.attaching == a && slices.Contains(a.h.attachKeys, key) {
		if t, ok := a.ctx.RawGetString(key).(*lua.LTable); ok && t.Metatable == lua.LNil && t != a.ctx && !a.syncedElsewhere(key, t) {
			return t, true
		}
	}
	return a.w.vm.L.CreateTable(0, fields), false
}

// syncedElsewhere tells whether t is the table of a key other than key
// that a's structs are synced through.
func (a *Agent) syncedElsewhere(key string, t *lua.LTable) bool {
	for _, s := range a.syncs {
		if s.key != key && s.t == t {
			return true
		}
	}
	return false
}

// Unsync stops copying the object synced at key; the table stays in the
// context as plain data. It returns ErrReentrant while the workers run
// scripts.
func (a *Agent) Unsync(key string) error {
	if err := a.usable(); err != nil {
		return err
	}
	for i, s := range a.syncs {
		if s.key == key {
			a.syncs = append(a.syncs[:i], a.syncs[i+1:]...)
			break
		}
	}
	return nil
}

// syncedKeys lists the keys of the structs synced into the agent.
func (a *Agent) syncedKeys() []string {
	if len(a.syncs) == 0 {
		return nil
	}
	keys := make([]string, len(a.syncs))
	for i, s := range a.syncs {
		keys[i] = s.key
	}
	return keys
}

// synced is one struct synced into an agent's context.
type synced struct {
	key  string
	base unsafe.Pointer // the struct
	ptr  any            // keeps it alive
	plan []syncField
	t    *lua.LTable
	// slots hold what the table held for each field when the host last
	// touched it: in skips fields the game did not change since, and out
	// those the script did not change.
	slots []syncSlot
	// hint is where out's lookups read, which in asks the CPU for.
	hint syncHint
}

// syncHint is where a synced table's lookups read: the table's string
// map field, the map and the map's slots, as addresses, found by out (the
// last time it ran) and asked for by in, so that the lookups of out, after
// the agent's callbacks, do not each wait on memory: at 50,000 units the
// table of a unit whose scripts do not read it is not in the CPU's caches
// by then (asking earlier, with the tick's lookahead, measured no
// better). The addresses are only hints: one the table no longer uses
// (its map grew) costs a wasted prefetch, and none is ever read through.
type syncHint struct {
	field, hdr, grp, end uintptr
}

// strdictAt is where an LTable keeps its string map (0 if it has none
// there: then the hints name the table's first line only).
var strdictAt = func() uintptr {
	f, ok := reflect.TypeOf(lua.LTable{}).FieldByName("strdict")
	if !ok || f.Type != reflect.TypeOf(map[string]lua.LValue(nil)) {
		return 0
	}
	return f.Offset
}()

// find sets h from t's string map, which must be live (t's, now).
func (h *syncHint) find(t *lua.LTable) {
	*h = syncHint{field: uintptr(unsafe.Pointer(t)) + strdictAt}
	m := luaval.StringMap(t)
	if m == nil {
		return
	}
	// A map of one group has its slots filled from the first (mapSlots);
	// a larger map's slots are a directory away: the hints name its
	// header only.
	hdr := *(*unsafe.Pointer)(unsafe.Pointer(&m))
	h.hdr = uintptr(hdr)
	if len(m) <= 8 && mapSmall(hdr) {
		h.grp = mapSlots(hdr)
		h.end = h.grp + 8 + uintptr(len(m))*uintptr(unsafe.Sizeof("")+unsafe.Sizeof(lua.LValue(nil)))
	}
}

// ask asks the CPU for the lines h names.
func (h *syncHint) ask() {
	if h.grp == 0 {
		prefetch.Lines4(h.field, h.hdr, h.hdr+40, h.hdr)
		return
	}
	prefetch.Lines4(h.field, h.hdr, h.hdr+40, h.grp)
	for p := h.grp&^63 + 64; p < h.end; p += 64 {
		prefetch.Line(p)
	}
}

// syncedSmall is a synced struct of up to four fields with its slots in
// the same allocation: a tick reads both, and one object is fewer cache
// lines to fetch than two.
type syncedSmall struct {
	s     synced
	slots [4]syncSlot
}

// newSynced makes a synced with n slots.
func newSynced(n int) *synced {
	if n <= len(syncedSmall{}.slots) {
		b := &syncedSmall{}
		b.s.slots = b.slots[:n]
		return &b.s
	}
	return &synced{slots: make([]syncSlot, n)}
}

// syncSlot is what one synced field's table entry held when the host last
// touched it: the value, and for a number the number itself, so that
// comparing it needs no read through the value's pointer.
type syncSlot struct {
	last  lua.LValue
	num   float64
	isNum bool
}

// sameValue tells whether a and b are the same interface words: the same
// type and the same data pointer, so the same value, found without
// reading what the pointer points at (a number equal to the other but
// boxed elsewhere reads as not the same).
func sameValue(a, b lua.LValue) bool {
	return *(*[2]unsafe.Pointer)(unsafe.Pointer(&a)) == *(*[2]unsafe.Pointer)(unsafe.Pointer(&b))
}

// syncField is one copied field: where it is in the struct and its name.
type syncField struct {
	off      uintptr
	kind     reflect.Kind
	name     lua.LString
	readonly bool
}

var syncPlans sync.Map // reflect.Type -> []syncField

func syncPlanOf(t reflect.Type) []syncField {
	if p, ok := syncPlans.Load(t); ok {
		return p.([]syncField)
	}
	var plan []syncField
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("lua")
		if !ok || tag == "" || tag == "-" || len(f.Index) != 1 {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		switch f.Type.Kind() {
		case reflect.Float32, reflect.Float64, reflect.Bool, reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			continue
		}
		plan = append(plan, syncField{off: f.Offset, kind: f.Type.Kind(), name: lua.LString(name), readonly: opt == "readonly"})
	}
	syncPlans.Store(t, plan)
	return plan
}

// in copies the struct's fields into the table. A field whose value is
// what the table held when the host last touched it is skipped without a
// table lookup, and new numbers come from the worker's block of floats, so
// a tick allocates nothing.
func (s *synced) in(w *worker) {
	s.hint.ask() // for out, after the agent's callbacks
	for i := range s.plan {
		f := &s.plan[i]
		sl := &s.slots[i]
		p := unsafe.Add(s.base, f.off)
		var v lua.LValue
		switch f.kind {
		case reflect.Bool:
			b := *(*bool)(p)
			if old, ok := sl.last.(lua.LBool); ok && bool(old) == b {
				continue
			}
			v = lua.LBool(b)
			sl.isNum = false
		case reflect.String:
			str := *(*string)(p)
			if old, ok := sl.last.(lua.LString); ok && string(old) == str {
				continue
			}
			v = lua.LString(str)
			sl.isNum = false
		default:
			n := readNumber(p, f.kind)
			if sl.isNum && sl.num == n {
				continue
			}
			v = w.nums.number(n)
			sl.num, sl.isNum = n, true
		}
		sl.last = v
		luaval.SetString(s.t, string(f.name), v)
	}
}

// out copies the table's fields back into the struct. A field whose table
// entry is still the value the host last saw there is written from its
// slot, without reading the value.
func (s *synced) out() {
	for i := range s.plan {
		f := &s.plan[i]
		sl := &s.slots[i]
		lv := s.t.RawGetString(string(f.name))
		p := unsafe.Add(s.base, f.off)
		if sameValue(lv, sl.last) {
			if sl.isNum && !f.readonly {
				writeNumber(p, f.kind, sl.num)
			}
			continue
		}
		sl.last = lv // a readonly field a script changed is put back by in
		n, isNum := lv.(lua.LNumber)
		sl.num, sl.isNum = float64(n), isNum
		if f.readonly {
			continue
		}
		switch v := lv.(type) {
		case lua.LNumber:
			writeNumber(p, f.kind, float64(v))
		case lua.LBool:
			if f.kind == reflect.Bool {
				*(*bool)(p) = bool(v)
			}
		case lua.LString:
			if f.kind == reflect.String {
				*(*string)(p) = string(v)
			}
		}
	}
	s.hint.find(s.t)
}

func readNumber(p unsafe.Pointer, k reflect.Kind) float64 {
	switch k {
	case reflect.Float64:
		return *(*float64)(p)
	case reflect.Float32:
		return float64(*(*float32)(p))
	case reflect.Int:
		return float64(*(*int)(p))
	case reflect.Int8:
		return float64(*(*int8)(p))
	case reflect.Int16:
		return float64(*(*int16)(p))
	case reflect.Int32:
		return float64(*(*int32)(p))
	case reflect.Int64:
		return float64(*(*int64)(p))
	case reflect.Uint:
		return float64(*(*uint)(p))
	case reflect.Uint8:
		return float64(*(*uint8)(p))
	case reflect.Uint16:
		return float64(*(*uint16)(p))
	case reflect.Uint32:
		return float64(*(*uint32)(p))
	case reflect.Uint64:
		return float64(*(*uint64)(p))
	}
	return 0
}

func writeNumber(p unsafe.Pointer, k reflect.Kind, n float64) {
	switch k {
	case reflect.Float64:
		*(*float64)(p) = n
	case reflect.Float32:
		*(*float32)(p) = float32(n)
	case reflect.Int:
		*(*int)(p) = int(n)
	case reflect.Int8:
		*(*int8)(p) = int8(n)
	case reflect.Int16:
		*(*int16)(p) = int16(n)
	case reflect.Int32:
		*(*int32)(p) = int32(n)
	case reflect.Int64:
		*(*int64)(p) = int64(n)
	case reflect.Uint:
		*(*uint)(p) = uint(n)
	case reflect.Uint8:
		*(*uint8)(p) = uint8(n)
	case reflect.Uint16:
		*(*uint16)(p) = uint16(n)
	case reflect.Uint32:
		*(*uint32)(p) = uint32(n)
	case reflect.Uint64:
		*(*uint64)(p) = uint64(n)
	}
}

// numberBlock hands out Lua numbers whose floats live in blocks of 256, as
// gopher-lua's VM does for the numbers scripts compute: boxing each float
// on its own would be an allocation per copied field per tick. A block is
// garbage once none of its numbers is referenced. One worker uses it. A nil
// block boxes each number on its own.
type numberBlock struct {
	floats []float64
}

func (b *numberBlock) number(n float64) lua.LValue {
	if b == nil {
		return lua.LNumber(n)
	}
	if len(b.floats) == cap(b.floats) {
		b.floats = make([]float64, 0, 256)
	}
	b.floats = append(b.floats, n)
	var v lua.LValue = lua.LNumber(0)
	// An interface holding an LNumber is a type word and a pointer to the
	// float: point it at the block's float instead of a new allocation.
	(*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] = unsafe.Pointer(&b.floats[len(b.floats)-1])
	return v
}
