package defs

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Native conditions and scorers (docs/lua-reference.md: Native conditions and scorers): built once from ai.* calls,
// evaluated in Go without calling Lua unless a Lua function is nested inside.
// Test and Score allocate nothing on the way (reading fields of Go values
// bound as userdata aside, which goes through their __index).

const (
	condTypeName   = "luaai.cond"
	scorerTypeName = "luaai.scorer"
	// getFieldKey is where registerNativeTypes keeps the Go function that
	// reads a userdata field inside a protected call.
	getFieldKey = "luaai.getfield"
)

// Part is the value of one direct sub-scorer of a native scorer, for a "why
// did this state win" trace.
type Part struct {
	Name  string
	Value float64
}

// registerNativeTypes creates the metatables of native conditions and
// scorers. Calling it again on the same LState does nothing.
func registerNativeTypes(L *lua.LState) {
	reg := L.G.Registry
	if _, ok := reg.RawGetString(condTypeName).(*lua.LTable); ok {
		return
	}
	tostring := L.NewFunction(func(L *lua.LState) int {
		ud := L.CheckUserData(1)
		var b strings.Builder
		switch v := ud.Value.(type) {
		case Cond:
			writeCond(&b, v, true)
		case Scorer:
			writeScorer(&b, v, true)
		default:
			b.WriteString("native")
		}
		L.Push(lua.LString(b.String()))
		return 1
	})
	for _, name := range []string{condTypeName, scorerTypeName} {
		mt := L.NewTypeMetatable(name)
		mt.RawSetString("__tostring", tostring)
		mt.RawSetString("__metatable", lua.LString(name))
	}
	reg.RawSetString(getFieldKey, L.NewFunction(func(L *lua.LState) int {
		L.Push(L.GetField(L.Get(1), L.CheckString(2)))
		return 1
	}))
}

// nativeExports is the ai.* functions building native conditions and scorers.
func nativeExports() map[string]lua.LGFunction {
	return map[string]lua.LGFunction{
		"is":  luaIs,
		"eq":  func(L *lua.LState) int { return luaEq(L, false) },
		"ne":  func(L *lua.LState) int { return luaEq(L, true) },
		"lt":  func(L *lua.LState) int { return luaCompare(L, opLT) },
		"le":  func(L *lua.LState) int { return luaCompare(L, opLE) },
		"gt":  func(L *lua.LState) int { return luaCompare(L, opGT) },
		"ge":  func(L *lua.LState) int { return luaCompare(L, opGE) },
		"all": func(L *lua.LState) int { return pushCond(L, &listCond{any: false, cs: checkConds(L)}) },
		"any": func(L *lua.LState) int { return pushCond(L, &listCond{any: true, cs: checkConds(L)}) },
		"non": luaNon,

		"const":       luaConst,
		"field":       luaField,
		"cond":        luaCondScore,
		"inverse":     luaInverse,
		"product":     func(L *lua.LState) int { return luaList(L, opProduct) },
		"sum":         func(L *lua.LState) int { return luaList(L, opSum) },
		"min":         func(L *lua.LState) int { return luaList(L, opMin) },
		"max":         func(L *lua.LState) int { return luaList(L, opMax) },
		"compensated": func(L *lua.LState) int { return luaList(L, opCompensated) },
		"weight":      luaWeight,
		"normalize":   luaNormalize,
		"curve":       luaCurve,
	}
}

// toCond reads a `when` or `lock` value: a boolean, a Lua function or a
// native condition.
func toCond(v lua.LValue) (Cond, bool) {
	switch v := v.(type) {
	case lua.LBool:
		return ConstCond(v), true
	case *lua.LFunction:
		return LuaCond{Fn: v, fast: compileFastCond(v.Proto)}, true
	case *lua.LUserData:
		c, ok := v.Value.(Cond)
		return c, ok
	}
	return nil, false
}

// toScorer reads a `score` value: a number, a Lua function, a native scorer,
// or a native condition (scored 1 or 0).
func toScorer(v lua.LValue) (Scorer, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return ConstScorer(v), true
	case *lua.LFunction:
		return LuaScorer{Fn: v}, true
	case *lua.LUserData:
		switch x := v.Value.(type) {
		case Scorer:
			return x, true
		case Cond:
			return &condScore{c: x, implicit: true}, true
		}
	}
	return nil, false
}

// ---- field paths ----

// fieldPath is a context field, possibly dotted ("target.distance"), split
// once when the native is built.
type fieldPath struct {
	name string
	keys []string
}

func checkField(L *lua.LState, n int) fieldPath {
	name := L.CheckString(n)
	if name == "" {
		L.ArgError(n, "field name expected, got empty string")
	}
	keys := strings.Split(name, ".")
	for _, k := range keys {
		if k == "" {
			L.ArgError(n, "empty segment in field path "+strconv.Quote(name))
		}
	}
	return fieldPath{name: name, keys: keys}
}

// get reads the field: tables are read raw, Go values bound as userdata
// through their __index (protected); anything else on the way reads as nil.
// boundNumber reads a field that ends in a bound Go struct's number field
// (ctx.job.skill) as a float, without boxing it as a Lua value; ok is false
// when the path goes another way (get answers then).
func (p *fieldPath) boundNumber(vm *VM, ctx *lua.LTable) (float64, bool) {
	if ctx == nil || len(p.keys) < 2 {
		return 0, false
	}
	var t *lua.LTable = ctx
	for _, k := range p.keys[:len(p.keys)-2] {
		next, ok := t.RawGetString(k).(*lua.LTable)
		if !ok {
			return 0, false
		}
		t = next
	}
	ud, ok := t.RawGetString(p.keys[len(p.keys)-2]).(*lua.LUserData)
	if !ok {
		return 0, false
	}
	return vm.boundFloat(ud, p.keys[len(p.keys)-1])
}

func (p *fieldPath) get(vm *VM, ctx *lua.LTable) (lua.LValue, error) {
	if ctx == nil {
		return lua.LNil, nil
	}
	var v lua.LValue = ctx
	for _, k := range p.keys {
		switch t := v.(type) {
		case *lua.LTable:
			v = t.RawGetString(k)
		case *lua.LUserData:
			if fv, ok := vm.boundField(t, k); ok {
				v = fv
				continue
			}
			var err error
			if v, err = userField(vm, t, k); err != nil {
				return lua.LNil, err
			}
		default:
			return lua.LNil, nil
		}
	}
	return v, nil
}

// userField is vm.L.GetField(ud, key) run protected, so a raising __index
// becomes an error instead of a panic.
func userField(vm *VM, ud *lua.LUserData, key string) (lua.LValue, error) {
	fn, ok := vm.L.G.Registry.RawGetString(getFieldKey).(*lua.LFunction)
	if !ok {
		registerNativeTypes(vm.L)
		fn = vm.L.G.Registry.RawGetString(getFieldKey).(*lua.LFunction)
	}
	return vm.Call(fn, ud, lua.LString(key))
}

// The constructors: the ai.* functions that make natives.

// native is what every native condition and scorer says about itself, so
// that the walks over natives (the fields they read, the curves they hold,
// whether they run Lua) need no list of types: pushCond and pushScorer take
// only natives, so a new one without these methods does not compile.
type native interface {
	describer
	// field is the context field it reads itself; nil for none.
	field() *fieldPath
	// contains is the conditions and scorers it combines, in order.
	contains() []any
}

type nativeCond interface {
	Cond
	native
}

type nativeScorer interface {
	Scorer
	native
}

func pushCond(L *lua.LState, c nativeCond) int {
	return pushNative(L, c, condTypeName)
}

func pushScorer(L *lua.LState, s nativeScorer) int {
	return pushNative(L, s, scorerTypeName)
}

func pushNative(L *lua.LState, v any, typeName string) int {
	mt := L.GetTypeMetatable(typeName)
	if mt == lua.LNil {
		registerNativeTypes(L)
		mt = L.GetTypeMetatable(typeName)
	}
	ud := L.NewUserData()
	ud.Value = v
	L.SetMetatable(ud, mt)
	L.Push(ud)
	return 1
}

// checkArgs refuses arguments beyond max, which are always a slip.
func checkArgs(L *lua.LState, max int) {
	if L.GetTop() > max {
		L.ArgError(max+1, "no more arguments expected, got "+kindOf(L.Get(max+1)))
	}
}

func checkCond(L *lua.LState, n int) Cond {
	if n > L.GetTop() {
		L.ArgError(n, "condition expected, got no value")
	}
	v := L.Get(n)
	c, ok := toCond(v)
	if !ok {
		L.ArgError(n, "condition expected (boolean, function or ai condition), got "+kindOf(v))
	}
	return c
}

func checkScorer(L *lua.LState, n int) Scorer {
	if n > L.GetTop() {
		L.ArgError(n, "scorer expected, got no value")
	}
	v := L.Get(n)
	s, ok := toScorer(v)
	if !ok {
		L.ArgError(n, "scorer expected (number, function or ai scorer), got "+kindOf(v))
	}
	return s
}

func checkConds(L *lua.LState) []Cond {
	top := L.GetTop()
	if top == 0 {
		L.ArgError(1, "condition expected, got no value")
	}
	cs := make([]Cond, top)
	for i := range cs {
		cs[i] = checkCond(L, i+1)
	}
	return cs
}

// kindOf names a value for an argument error, telling native conditions and
// scorers apart.
func kindOf(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		switch ud.Value.(type) {
		case Cond:
			return "ai condition"
		case Scorer:
			return "ai scorer"
		}
	}
	return v.Type().String()
}

func luaIs(L *lua.LState) int {
	p := checkField(L, 1)
	checkArgs(L, 1)
	return pushCond(L, &isCond{path: p})
}

func luaEq(L *lua.LState, neg bool) int {
	p := checkField(L, 1)
	v := L.CheckAny(2)
	checkArgs(L, 2)
	return pushCond(L, &eqCond{path: p, value: v, neg: neg})
}

func luaCompare(L *lua.LState, op cmpOp) int {
	p := checkField(L, 1)
	n := L.CheckNumber(2)
	checkArgs(L, 2)
	return pushCond(L, &numCond{path: p, op: op, n: float64(n)})
}

func luaNon(L *lua.LState) int {
	c := checkCond(L, 1)
	checkArgs(L, 1)
	return pushCond(L, &nonCond{c: c})
}

func luaConst(L *lua.LState) int {
	v := L.CheckNumber(1)
	checkArgs(L, 1)
	return pushScorer(L, &constScore{v: float64(v)})
}

func luaField(L *lua.LState) int {
	p := checkField(L, 1)
	checkArgs(L, 1)
	return pushScorer(L, &fieldScore{path: p})
}

func luaCondScore(L *lua.LState) int {
	c := checkCond(L, 1)
	checkArgs(L, 1)
	return pushScorer(L, &condScore{c: c})
}

func luaInverse(L *lua.LState) int {
	s := checkScorer(L, 1)
	checkArgs(L, 1)
	return pushScorer(L, &inverseScore{s: s})
}

func luaList(L *lua.LState, op listOp) int {
	top := L.GetTop()
	if top == 0 {
		L.ArgError(1, "scorer expected, got no value")
	}
	ss := make([]Scorer, top)
	for i := range ss {
		ss[i] = checkScorer(L, i+1)
	}
	return pushScorer(L, &listScore{op: op, ss: ss, mod: 1 - 1/float64(top)})
}

func luaWeight(L *lua.LState) int {
	s := checkScorer(L, 1)
	w := L.CheckNumber(2)
	checkArgs(L, 2)
	return pushScorer(L, &weightScore{s: s, w: float64(w)})
}

func luaNormalize(L *lua.LState) int {
	s := checkScorer(L, 1)
	lo, hi := L.CheckNumber(2), L.CheckNumber(3)
	checkArgs(L, 3)
	return pushScorer(L, &normalizeScore{s: s, lo: float64(lo), hi: float64(hi)})
}

func luaCurve(L *lua.LState) int {
	s := checkScorer(L, 1)
	cv := checkCurve(L, 2)
	checkArgs(L, 2)
	return pushScorer(L, &curveScore{s: s, cv: cv})
}
