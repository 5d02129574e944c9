package defs

// Reading a bound Go struct's field without gopher-luar's __index: a
// native condition or scorer reading ctx.job.skill, where job is a Go
// struct pointer bound with Agent.Bind, would otherwise allocate a
// reflect.Value and a metatable handle on every read. The fast path gives
// the same answer as luar's __index or stands aside: it is taken only for
// a userdata whose metatable is luar's for its type, a key that names no
// method, and a field of a predeclared kind (a number, a bool, a string).

import (
	"reflect"

	lua "github.com/yuin/gopher-lua"
	luar "layeh.com/gopher-luar"
)

// boundType is what the fast path knows of one Go pointer type.
type boundType struct {
	mt     *lua.LTable           // luar's metatable for the pointer type
	fields map[string]boundField // by key, filled as keys are read
}

type boundField struct {
	index []int // nil: the key names no field (luar answers nil)
	slow  bool  // a method, or a field of another kind: ask luar
}

// boundField reads key from ud when the fast path applies; ok is false
// when luar must answer.
func (vm *VM) boundField(ud *lua.LUserData, key string) (v lua.LValue, ok bool) {
	field, ok := vm.boundValue(ud, key)
	if !ok {
		return nil, false
	}
	if !field.IsValid() {
		return lua.LNil, true
	}
	switch field.Kind() {
	case reflect.Float32, reflect.Float64:
		return lua.LNumber(field.Float()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return lua.LNumber(field.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return lua.LNumber(field.Uint()), true
	case reflect.Bool:
		return lua.LBool(field.Bool()), true
	case reflect.String:
		return lua.LString(field.String()), true
	}
	return nil, false
}

// boundFloat is boundField for a number field, as a float: no Lua value
// is made. ok is false for anything else.
func (vm *VM) boundFloat(ud *lua.LUserData, key string) (float64, bool) {
	field, ok := vm.boundValue(ud, key)
	if !ok || !field.IsValid() {
		return 0, false
	}
	switch field.Kind() {
	case reflect.Float32, reflect.Float64:
		return field.Float(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(field.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(field.Uint()), true
	}
	return 0, false
}

// boundValue finds key's field in ud's struct when the fast path applies
// (the zero Value: no such field, luar answers nil); ok is false when luar
// must answer.
func (vm *VM) boundValue(ud *lua.LUserData, key string) (reflect.Value, bool) {
	rv := reflect.ValueOf(ud.Value)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	typ := rv.Type()
	bt := vm.bound[typ]
	if bt == nil {
		mt := luar.MT(vm.L, ud.Value)
		if mt == nil {
			return reflect.Value{}, false
		}
		if vm.bound == nil {
			vm.bound = map[reflect.Type]*boundType{}
		}
		bt = &boundType{mt: mt.LTable, fields: map[string]boundField{}}
		vm.bound[typ] = bt
	}
	if lua.LValue(ud.Metatable) != lua.LValue(bt.mt) {
		return reflect.Value{}, false // not luar's: its own __index decides
	}
	f, seen := bt.fields[key]
	if !seen {
		f = vm.lookupBound(bt.mt, rv.Elem(), key)
		bt.fields[key] = f
	}
	if f.slow {
		return reflect.Value{}, false
	}
	if f.index == nil {
		return reflect.Value{}, true
	}
	return rv.Elem().FieldByIndex(f.index), true
}

// lookupBound decides, once per type and key, how the fast path reads key,
// from luar's own tables: the pointer's methods, the struct's methods, the
// struct's fields.
func (vm *VM) lookupBound(ptrMT *lua.LTable, elem reflect.Value, key string) boundField {
	if hasMethod(ptrMT, key) {
		return boundField{slow: true}
	}
	smt := luar.MT(vm.L, elem.Interface())
	if smt == nil || hasMethod(smt.LTable, key) {
		return boundField{slow: true}
	}
	fields, ok := smt.RawGetString("fields").(*lua.LTable)
	if !ok {
		return boundField{slow: true}
	}
	ix, ok := fields.RawGetString(key).(*lua.LUserData)
	if !ok {
		return boundField{} // no such field: luar answers nil
	}
	index, ok := ix.Value.([]int)
	if !ok {
		return boundField{slow: true}
	}
	ft := elem.Type().FieldByIndex(index).Type
	if ft.PkgPath() != "" || ft.Name() == "" && ft.Kind() != reflect.String {
		// A named type (it may have methods: luar wraps it) or a
		// composite: luar knows how to show it.
		return boundField{slow: true}
	}
	switch ft.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Bool, reflect.String:
		return boundField{index: index}
	}
	return boundField{slow: true}
}

func hasMethod(mt *lua.LTable, key string) bool {
	methods, ok := mt.RawGetString("methods").(*lua.LTable)
	return ok && methods.RawGetString(key) != lua.LNil
}
