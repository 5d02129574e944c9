package luabind

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// gopher-lua's next walks a table's key list, and a key set to nil stays
// in that list: one next over a table whose keys were mostly cleared steps
// over every one of them in a single call (600,000 such keys: 170ms).
// The sandbox's next and pairs walk the same list in the same order and
// poll the budget as they go.

// keyIndex is where LTable keeps the index of its key list.
var keyIndex struct {
	once   sync.Once
	offset uintptr
	ok     bool
}

// hashIndex is t's key list and the index of each key in it, or false
// when this gopher-lua keeps none where luabind looks.
func hashIndex(t *lua.LTable) ([]lua.LValue, map[lua.LValue]int, bool) {
	keyIndex.once.Do(func() {
		sf, ok := reflect.TypeOf(lua.LTable{}).FieldByName("k2i")
		keyIndex.offset, keyIndex.ok = sf.Offset, ok && sf.Type == reflect.TypeOf(map[lua.LValue]int(nil))
	})
	keys, ok := luaval.HashKeys(t)
	if !ok || !keyIndex.ok {
		return nil, nil, false
	}
	return keys, *(*map[lua.LValue]int)(unsafe.Add(unsafe.Pointer(t), keyIndex.offset)), true
}

// nextPollEvery is how many cleared keys next steps over between polls.
const nextPollEvery = 4096

// tableNext is t.Next(key) that polls the budget while it steps over
// cleared keys.
func (vm *VM) tableNext(L *lua.LState, t *lua.LTable, key lua.LValue) (lua.LValue, lua.LValue) {
	keys, index, ok := hashIndex(t)
	arr, aok := luaval.ArrayPart(t)
	if !ok || !aok {
		return t.Next(key)
	}
	from := 0 // where the walk of the key list starts
	if n, isNum := key.(lua.LNumber); key == lua.LNil || isNum && n >= 1 && n <= lua.LNumber(len(arr)) && n == lua.LNumber(int(n)) {
		i := 0
		if key != lua.LNil {
			i = int(n)
		}
		for ; i < len(arr); i++ {
			if arr[i] != lua.LNil {
				return lua.LNumber(i + 1), arr[i]
			}
		}
	} else {
		from = index[key] + 1
	}
	for i := from; i < len(keys); i++ {
		if (i-from)%nextPollEvery == nextPollEvery-1 {
			vm.checkBudget(L)
		}
		if v := t.RawGetH(keys[i]); v != lua.LNil {
			return keys[i], v
		}
	}
	return lua.LNil, lua.LNil
}

// luaNext is the sandbox's next.
func (vm *VM) luaNext(L *lua.LState) int {
	k, v := vm.tableNext(L, L.CheckTable(1), L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

// luaPairs is the sandbox's pairs: its next (upvalue 1), t, nil.
func luaPairs(L *lua.LState) int {
	t := L.CheckTable(1)
	L.Push(L.Get(lua.UpvalueIndex(1)))
	L.Push(t)
	L.Push(lua.LNil)
	return 3
}
