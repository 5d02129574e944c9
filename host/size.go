package host

import (
	"unsafe"

	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// sizer estimates the memory Lua values hold, for the host's memory limit.
// Each table is counted once however often it is reached (within one
// sizer), strings at their length plus a header; functions and userdata at
// a fixed size. It walks with its own stack, so a table nested a million
// levels deep cannot overflow Go's. The estimate errs low rather than high:
// it is what the data itself needs, not what gopher-lua's maps reserve.
type sizer struct {
	seen  map[*lua.LTable]struct{}
	strs  map[*byte]struct{} // long strings counted, by their bytes
	stack []lua.LValue
	// funcs: follow functions into their upvalues and environment (what a
	// mod holds outside contexts), each function once.
	funcs bool
	fseen map[*lua.LFunction]struct{}
}

// longString is the length from which a string shared by many slots is
// counted once (shorter ones are counted where they stand).
const longString = 256

// Sizes of gopher-lua's values, measured on 64-bit Go (unsafe.Sizeof and
// the allocator's size classes): a table struct, a boxed value in a slot,
// a map entry, a string header, a function or userdata.
const (
	sizeTable    = 96
	sizeSlot     = 16
	sizeEntry    = 48
	sizeString   = 16
	sizeFunction = 64
)

// Size is the estimated bytes v holds that this sizer has not counted
// before, stopping early once the total passes stop (0: no stop).
//
// It is long because it is one switch over the Lua value kinds a memory
// estimate walks, each case a few lines.
func (s *sizer) size(v lua.LValue, stop int64) int64 {
	if s.seen == nil {
		s.seen = map[*lua.LTable]struct{}{}
		s.strs = map[*byte]struct{}{}
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
			total += sizeTable
			v.ForEach(func(k, val lua.LValue) {
				total += sizeEntry
				if _, ok := k.(lua.LString); ok {
					s.stack = append(s.stack, k)
				}
				switch val := val.(type) {
				case lua.LString, *lua.LTable:
					s.stack = append(s.stack, val)
				case *lua.LUserData:
					total += sizeFunction
					if a, ok := val.Value.(luabind.LuaAgent); ok {
						// An agent a script spawned: its context is held
						// through this handle.
						s.stack = append(s.stack, a.Ctx())
					}
				case *lua.LFunction:
					total += sizeFunction
					if s.funcs {
						s.stack = append(s.stack, val)
					}
				case *lua.LState:
					total += sizeFunction
				default:
					total += sizeSlot
				}
			})
			if mt, ok := v.Metatable.(*lua.LTable); ok {
				s.stack = append(s.stack, mt)
			}
		case *lua.LFunction:
			if s.fseen == nil {
				s.fseen = map[*lua.LFunction]struct{}{}
			}
			if _, ok := s.fseen[v]; ok {
				continue
			}
			s.fseen[v] = struct{}{}
			total += sizeFunction
			if v.Env != nil {
				s.stack = append(s.stack, v.Env)
			}
			for _, uv := range v.Upvalues {
				total += sizeSlot
				switch x := uv.Value().(type) {
				case lua.LString, *lua.LTable, *lua.LFunction:
					s.stack = append(s.stack, x)
				}
			}
		}
	}
	clear(s.stack)
	s.stack = s.stack[:0]
	return total
}
