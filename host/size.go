package host

import (
	"unsafe"

	"github.com/luaai/luaai/internal/luaval"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// sizer estimates the memory Lua values hold, for the host's memory limit.
// Each table, function and coroutine is counted once however often it is
// reached (within one sizer), strings at their length plus a header. A
// table counts by its capacity: its array part's slots, nil slots
// included, and its hash entries. A coroutine counts whole: its value
// stack and call-frame stack, and the values its suspended calls hold
// (their locals), walked as any others; the thread behind a
// coroutine.wrap function is that function's upvalue. It walks with its
// own stack, so a table nested a million levels deep cannot overflow Go's.
// The estimate errs low rather than high: it is what the data itself
// needs, not what gopher-lua's maps reserve.
type sizer struct {
	seen  map[*lua.LTable]struct{}
	strs  map[*byte]struct{} // long strings counted, by their bytes
	stack []lua.LValue
	// funcs: follow functions into their environment too (what a mod
	// holds outside contexts). Without it, functions are followed into
	// their upvalues only, and not the definition's own functions (shared
	// in sharedFns): the script's measure counts those and its globals.
	funcs     bool
	sharedFns map[*lua.LFunction]struct{}
	fseen     map[*lua.LFunction]struct{}
	pseen     map[*lua.FunctionProto]struct{}
	tseen     map[*lua.LState]struct{}
}

// longString is the length from which a string shared by many slots is
// counted once (shorter ones are counted where they stand).
const longString = 256

// Sizes of gopher-lua's values, measured on 64-bit Go (unsafe.Sizeof and
// the allocator's size classes): a table struct, a slot of an array part
// or of a value stack, a hash entry (its map entry, its place in the key
// index and in the key list: 114 bytes each in a 100,000-key table), a
// string header, a function or userdata, a closure's upvalue, and what a
// coroutine holds besides its two stacks (its state, number allocator and
// budget hook).
const (
	sizeTable    = 96
	sizeSlot     = int64(unsafe.Sizeof(lua.LValue(nil)))
	sizeEntry    = 96
	sizeString   = 16
	sizeFunction = 64
	// sizeUpvalue is a closure's upvalue: its pointer in the closure and
	// the upvalue it points to (shared ones are counted for each closure).
	sizeUpvalue = 8 + int64(unsafe.Sizeof(lua.Upvalue{}))
	sizeThread  = 1024
	// sizeThreadStacks stands for a coroutine's stacks where gopher-lua's
	// fields cannot be read: the sandbox's 4,096-slot value stack and 512
	// call frames of 80 bytes.
	sizeThreadStacks = 4096*sizeSlot + 512*80
)

// proto is the bytes of p's code, constants and debug tables and of the
// functions it nests, each counted once: what load() makes of a chunk
// (about 24 bytes an instruction) is held as long as a function of it is.
func (s *sizer) proto(p *lua.FunctionProto) int64 {
	if p == nil {
		return 0
	}
	if _, ok := s.pseen[p]; ok {
		return 0
	}
	s.pseen[p] = struct{}{}
	total := int64(len(p.Code))*4 + int64(len(p.DbgSourcePositions))*8 +
		int64(len(p.Constants))*(sizeSlot+sizeString) + int64(len(p.DbgLocals))*48 +
		int64(len(p.DbgCalls)+len(p.DbgUpvalues))*24
	for _, c := range p.Constants {
		s.push(c)
	}
	for _, f := range p.FunctionPrototypes {
		total += s.proto(f)
	}
	return total
}

// push queues v for the walk when it can hold memory of its own.
func (s *sizer) push(v lua.LValue) {
	switch v.(type) {
	case lua.LString, *lua.LTable, *lua.LFunction, *lua.LState, *lua.LUserData:
		s.stack = append(s.stack, v)
	}
}

// Size is the estimated bytes v holds that this sizer has not counted
// before, stopping early once the total passes stop (0: no stop).
//
// It is long because it is one switch over the Lua value kinds a memory
// estimate walks, each case a few lines.
func (s *sizer) size(v lua.LValue, stop int64) int64 {
	if s.seen == nil {
		s.seen = map[*lua.LTable]struct{}{}
		s.strs = map[*byte]struct{}{}
		s.fseen = map[*lua.LFunction]struct{}{}
		s.pseen = map[*lua.FunctionProto]struct{}{}
		s.tseen = map[*lua.LState]struct{}{}
	}
	var total int64
	s.stack = append(s.stack[:0], v)
	for len(s.stack) > 0 {
		if stop > 0 && total > stop {
			break
		}
		v := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		switch v := v.(type) {
		case lua.LString:
			if len(v) >= longString {
				p := unsafe.StringData(string(v))
				if _, ok := s.strs[p]; ok {
					total += sizeString
					continue
				}
				s.strs[p] = struct{}{}
			}
			total += sizeString + int64(len(v))
		case *lua.LTable:
			if _, ok := s.seen[v]; ok {
				continue
			}
			s.seen[v] = struct{}{}
			total += s.table(v)
		case *lua.LFunction:
			if _, ok := s.sharedFns[v]; ok && !s.funcs {
				total += sizeFunction
				continue
			}
			if _, ok := s.fseen[v]; ok {
				continue
			}
			s.fseen[v] = struct{}{}
			total += sizeFunction + s.proto(v.Proto)
			if s.funcs && v.Env != nil {
				s.stack = append(s.stack, v.Env)
			}
			for _, uv := range v.Upvalues {
				total += sizeUpvalue
				if uv != nil {
					s.push(uv.Value())
				}
			}
		case *lua.LState:
			if _, ok := s.tseen[v]; ok {
				continue
			}
			s.tseen[v] = struct{}{}
			total += sizeThread
			values, bytes, ok := luaval.ThreadStack(v)
			if !ok {
				total += sizeThreadStacks
				continue
			}
			total += bytes
			for _, x := range values {
				s.push(x)
			}
		case *lua.LUserData:
			total += sizeFunction
			if a, ok := v.Value.(defs.LuaAgent); ok {
				// An agent a script spawned: its context is held
				// through this handle.
				s.stack = append(s.stack, a.Ctx())
			}
		}
	}
	clear(s.stack)
	s.stack = s.stack[:0]
	return total
}

// table is the bytes of t itself: its array part by capacity, its hash
// entries; it queues its keys, values and metatable. It reads the array
// part by index and the hash part through its key list, which box
// nothing (ForEach boxes every array index and string key it hands over:
// an allocation per entry, for every context at every measure).
func (s *sizer) table(t *lua.LTable) int64 {
	arr, known := luaval.ArrayLen(t)
	if !known {
		arr = t.MaxN()
	}
	total := sizeTable + int64(luaval.ArrayCap(t))*sizeSlot
	keys, ok := luaval.HashKeys(t)
	if !ok {
		total += s.tableEach(t, arr)
	} else {
		for i := 1; i <= arr; i++ {
			s.push(t.RawGetInt(i))
		}
		for _, k := range keys {
			v := t.RawGetH(k)
			if v != lua.LNil && inArray(k, arr) {
				s.push(v) // counted with the array part
				continue
			}
			// A hash entry; a key set to nil stays in gopher-lua's key
			// list and key index, the key itself held: a script that sets
			// and clears new keys grows them without bound.
			total += sizeEntry
			s.push(k)
			s.push(v)
		}
	}
	if mt, ok := t.Metatable.(*lua.LTable); ok {
		s.stack = append(s.stack, mt)
	}
	return total
}

// inArray tells whether k is an index of an array part of length arr.
func inArray(k lua.LValue, arr int) bool {
	n, ok := k.(lua.LNumber)
	return ok && float64(n) >= 1 && float64(n) <= float64(arr) && float64(n) == float64(int(n))
}

// tableEach is table's hash part where this gopher-lua keeps no key list
// where luabind looks: ForEach, its keys boxed.
func (s *sizer) tableEach(t *lua.LTable, arr int) int64 {
	var total int64
	t.ForEach(func(k, val lua.LValue) {
		if !inArray(k, arr) {
			total += sizeEntry // a hash entry (array slots are counted above)
			s.push(k)
		}
		s.push(val)
	})
	return total
}
