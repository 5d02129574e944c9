package luabind

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Native conditions and scorers (README: Native conditions and scorers): built once from ai.* calls,
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
		return LuaCond{Fn: v}, true
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

// ---- conditions ----

type isCond struct{ path fieldPath }

func (c *isCond) Test(vm *VM, ctx *lua.LTable, _ lua.LValue) (bool, error) {
	v, err := c.path.get(vm, ctx)
	return lua.LVAsBool(v), err
}

// eqCond is ai.eq (or ai.ne when neg): raw equality with a constant.
type eqCond struct {
	path  fieldPath
	value lua.LValue
	neg   bool
}

func (c *eqCond) Test(vm *VM, ctx *lua.LTable, _ lua.LValue) (bool, error) {
	v, err := c.path.get(vm, ctx)
	if err != nil {
		return false, err
	}
	return (v == c.value) != c.neg, nil
}

type cmpOp uint8

const (
	opLT cmpOp = iota
	opLE
	opGT
	opGE
)

var cmpNames = [...]string{opLT: "lt", opLE: "le", opGT: "gt", opGE: "ge"}

// numCond is ai.lt/le/gt/ge: the field against a number; a non-number field
// is false.
type numCond struct {
	path fieldPath
	op   cmpOp
	n    float64
}

func (c *numCond) Test(vm *VM, ctx *lua.LTable, _ lua.LValue) (bool, error) {
	v, err := c.path.get(vm, ctx)
	if err != nil {
		return false, err
	}
	x, ok := v.(lua.LNumber)
	if !ok {
		return false, nil
	}
	switch c.op {
	case opLT:
		return float64(x) < c.n, nil
	case opLE:
		return float64(x) <= c.n, nil
	case opGT:
		return float64(x) > c.n, nil
	default:
		return float64(x) >= c.n, nil
	}
}

// listCond is ai.all (any false) or ai.any (any true), short-circuiting in order.
type listCond struct {
	any bool
	cs  []Cond
}

func (c *listCond) Test(vm *VM, ctx *lua.LTable, payload lua.LValue) (bool, error) {
	for _, sub := range c.cs {
		ok, err := sub.Test(vm, ctx, payload)
		if err != nil {
			return false, err
		}
		if ok == c.any {
			return ok, nil
		}
	}
	return !c.any, nil
}

type nonCond struct{ c Cond }

func (c *nonCond) Test(vm *VM, ctx *lua.LTable, payload lua.LValue) (bool, error) {
	ok, err := c.c.Test(vm, ctx, payload)
	if err != nil {
		return false, err
	}
	return !ok, nil
}

// ---- scorers ----

type constScore struct{ v float64 }

func (s *constScore) Score(*VM, *lua.LTable) (float64, error) { return s.v, nil }
func (s *constScore) Parts(*VM, *lua.LTable) []Part           { return nil }

// fieldScore is ai.field: a number as is, true 1, anything else 0.
type fieldScore struct{ path fieldPath }

func (s *fieldScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	v, err := s.path.get(vm, ctx)
	if err != nil {
		return 0, err
	}
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), nil
	case lua.LBool:
		if v {
			return 1, nil
		}
	}
	return 0, nil
}

func (s *fieldScore) Parts(*VM, *lua.LTable) []Part { return nil }

// condScore is ai.cond: 1 when the condition holds, else 0. A Lua function
// inside gets (ctx, nil). implicit marks a native condition given where a
// scorer was expected, which describes itself as just the condition.
type condScore struct {
	c        Cond
	implicit bool
}

func (s *condScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	ok, err := s.c.Test(vm, ctx, lua.LNil)
	if err != nil || !ok {
		return 0, err
	}
	return 1, nil
}

func (s *condScore) Parts(vm *VM, ctx *lua.LTable) []Part {
	v, _ := s.Score(vm, ctx)
	return []Part{{Name: condName(s.c), Value: v}}
}

type inverseScore struct{ s Scorer }

func (s *inverseScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	v, err := s.s.Score(vm, ctx)
	if err != nil {
		return 0, err
	}
	return 1 - v, nil
}

func (s *inverseScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.s) }

type listOp uint8

const (
	opProduct listOp = iota
	opSum
	opMin
	opMax
	opCompensated
)

var listNames = [...]string{opProduct: "product", opSum: "sum", opMin: "min", opMax: "max", opCompensated: "compensated"}

// listScore is ai.product/sum/min/max/compensated. Every factor is scored,
// in order, so an erroring Lua function is always reported.
type listScore struct {
	op  listOp
	ss  []Scorer
	mod float64 // compensated: 1 - 1/n
}

func (s *listScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	var acc float64
	for i, sub := range s.ss {
		v, err := sub.Score(vm, ctx)
		if err != nil {
			return 0, err
		}
		if i == 0 {
			switch s.op {
			case opSum, opMin, opMax:
				acc = v
				continue
			}
			acc = 1
		}
		switch s.op {
		case opProduct:
			acc *= v
		case opSum:
			acc += v
		case opMin:
			acc = nanMin(acc, v)
		case opMax:
			acc = nanMax(acc, v)
		case opCompensated:
			acc *= v + (1-v)*s.mod*v
		}
	}
	return acc, nil
}

func (s *listScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.ss...) }

type weightScore struct {
	s Scorer
	w float64
}

func (s *weightScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	v, err := s.s.Score(vm, ctx)
	if err != nil {
		return 0, err
	}
	return v * s.w, nil
}

func (s *weightScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.s) }

// normalizeScore maps lo..hi to 0..1, clamped; with lo == hi it is a step at hi.
type normalizeScore struct {
	s      Scorer
	lo, hi float64
}

func (s *normalizeScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	v, err := s.s.Score(vm, ctx)
	if err != nil {
		return 0, err
	}
	if s.lo == s.hi {
		if v >= s.hi {
			return 1, nil
		}
		return 0, nil
	}
	return clamp01((v - s.lo) / (s.hi - s.lo)), nil
}

func (s *normalizeScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.s) }

type curveScore struct {
	s  Scorer
	cv curve
}

func (s *curveScore) Score(vm *VM, ctx *lua.LTable) (float64, error) {
	v, err := s.s.Score(vm, ctx)
	if err != nil {
		return 0, err
	}
	return s.cv.eval(v), nil
}

func (s *curveScore) Parts(vm *VM, ctx *lua.LTable) []Part { return parts(vm, ctx, s.s) }

// parts scores each sub-scorer for a trace; an erroring one reads 0.
func parts(vm *VM, ctx *lua.LTable, ss ...Scorer) []Part {
	out := make([]Part, len(ss))
	for i, sub := range ss {
		v, err := sub.Score(vm, ctx)
		if err != nil {
			v = 0
		}
		out[i] = Part{Name: scorerName(sub), Value: v}
	}
	return out
}

// ---- constructors (the ai.* functions) ----

func pushCond(L *lua.LState, c Cond) int {
	return pushNative(L, c, condTypeName)
}

func pushScorer(L *lua.LState, s Scorer) int {
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

// ---- descriptions ----

// describer is implemented by every native: it writes a short, stable
// description, as a trace shows it (luaSyntax false: "gt(hunger, 0.5)") or
// as Lua that builds it (luaSyntax true: `gt("hunger", 0.5)`, the caller
// adding "ai.").
type describer interface {
	describe(b *strings.Builder, luaSyntax bool)
}

func describeString(d describer) string {
	var b strings.Builder
	d.describe(&b, false)
	return b.String()
}

// condName describes any condition: a native, true/false, or fn@file:line.
func condName(c Cond) string {
	var b strings.Builder
	writeCond(&b, c, false)
	return b.String()
}

// scorerName describes any scorer: a native, a number, or fn@file:line.
func scorerName(s Scorer) string {
	var b strings.Builder
	writeScorer(&b, s, false)
	return b.String()
}

func writeCond(b *strings.Builder, c Cond, luaSyntax bool) {
	switch c := c.(type) {
	case describer:
		if luaSyntax {
			b.WriteString("ai.")
		}
		c.describe(b, luaSyntax)
	case ConstCond:
		b.WriteString(strconv.FormatBool(bool(c)))
	case LuaCond:
		writeFn(b, c.Fn)
	default:
		b.WriteString("condition")
	}
}

func writeScorer(b *strings.Builder, s Scorer, luaSyntax bool) {
	switch s := s.(type) {
	case *condScore:
		if s.implicit {
			writeCond(b, s.c, luaSyntax)
			return
		}
		if luaSyntax {
			b.WriteString("ai.")
		}
		s.describe(b, luaSyntax)
	case describer:
		if luaSyntax {
			b.WriteString("ai.")
		}
		s.describe(b, luaSyntax)
	case ConstScorer:
		b.WriteString(formatNumber(float64(s)))
	case LuaScorer:
		writeFn(b, s.Fn)
	default:
		b.WriteString("scorer")
	}
}

// writeFn names a Lua function by where it is defined: fn@file:line.
func writeFn(b *strings.Builder, fn *lua.LFunction) {
	if fn == nil || fn.IsG || fn.Proto == nil {
		b.WriteString("fn@go")
		return
	}
	b.WriteString("fn@")
	b.WriteString(fn.Proto.SourceName)
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(fn.Proto.LineDefined))
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func (p *fieldPath) describe(b *strings.Builder, luaSyntax bool) {
	if luaSyntax {
		b.WriteString(strconv.Quote(p.name))
	} else {
		b.WriteString(p.name)
	}
}

func writeValue(b *strings.Builder, v lua.LValue) {
	switch v := v.(type) {
	case lua.LString:
		b.WriteString(strconv.Quote(string(v)))
	case lua.LNumber:
		b.WriteString(formatNumber(float64(v)))
	case lua.LBool:
		b.WriteString(strconv.FormatBool(bool(v)))
	default:
		if v == lua.LNil {
			b.WriteString("nil")
			return
		}
		b.WriteString("<" + v.Type().String() + ">")
	}
}

func (c *isCond) describe(b *strings.Builder, l bool) {
	b.WriteString("is(")
	c.path.describe(b, l)
	b.WriteByte(')')
}

func (c *eqCond) describe(b *strings.Builder, l bool) {
	if c.neg {
		b.WriteString("ne(")
	} else {
		b.WriteString("eq(")
	}
	c.path.describe(b, l)
	b.WriteString(", ")
	writeValue(b, c.value)
	b.WriteByte(')')
}

func (c *numCond) describe(b *strings.Builder, l bool) {
	b.WriteString(cmpNames[c.op])
	b.WriteByte('(')
	c.path.describe(b, l)
	b.WriteString(", ")
	b.WriteString(formatNumber(c.n))
	b.WriteByte(')')
}

func (c *listCond) describe(b *strings.Builder, l bool) {
	if c.any {
		b.WriteString("any(")
	} else {
		b.WriteString("all(")
	}
	for i, sub := range c.cs {
		if i > 0 {
			b.WriteString(", ")
		}
		writeCond(b, sub, l)
	}
	b.WriteByte(')')
}

func (c *nonCond) describe(b *strings.Builder, l bool) {
	b.WriteString("non(")
	writeCond(b, c.c, l)
	b.WriteByte(')')
}

func (s *constScore) describe(b *strings.Builder, _ bool) {
	b.WriteString("const(")
	b.WriteString(formatNumber(s.v))
	b.WriteByte(')')
}

func (s *fieldScore) describe(b *strings.Builder, l bool) {
	b.WriteString("field(")
	s.path.describe(b, l)
	b.WriteByte(')')
}

func (s *condScore) describe(b *strings.Builder, l bool) {
	b.WriteString("cond(")
	writeCond(b, s.c, l)
	b.WriteByte(')')
}

func (s *inverseScore) describe(b *strings.Builder, l bool) {
	b.WriteString("inverse(")
	writeScorer(b, s.s, l)
	b.WriteByte(')')
}

func (s *listScore) describe(b *strings.Builder, l bool) {
	b.WriteString(listNames[s.op])
	b.WriteByte('(')
	for i, sub := range s.ss {
		if i > 0 {
			b.WriteString(", ")
		}
		writeScorer(b, sub, l)
	}
	b.WriteByte(')')
}

func (s *weightScore) describe(b *strings.Builder, l bool) {
	b.WriteString("weight(")
	writeScorer(b, s.s, l)
	b.WriteString(", ")
	b.WriteString(formatNumber(s.w))
	b.WriteByte(')')
}

func (s *normalizeScore) describe(b *strings.Builder, l bool) {
	b.WriteString("normalize(")
	writeScorer(b, s.s, l)
	b.WriteString(", ")
	b.WriteString(formatNumber(s.lo))
	b.WriteString(", ")
	b.WriteString(formatNumber(s.hi))
	b.WriteByte(')')
}

func (s *curveScore) describe(b *strings.Builder, l bool) {
	b.WriteString("curve(")
	writeScorer(b, s.s, l)
	b.WriteString(", ")
	s.cv.describe(b, l)
	b.WriteByte(')')
}

// Describe gives a short, stable description of the native, as traces show it.
func (c *isCond) Describe() string { return describeString(c) }

// Describe gives a short, stable description of the native, as traces show it.
func (c *eqCond) Describe() string { return describeString(c) }

// Describe gives a short, stable description of the native, as traces show it.
func (c *numCond) Describe() string { return describeString(c) }

// Describe gives a short, stable description of the native, as traces show it.
func (c *listCond) Describe() string { return describeString(c) }

// Describe gives a short, stable description of the native, as traces show it.
func (c *nonCond) Describe() string { return describeString(c) }

// Describe gives a short, stable description of the native, as traces show it.
func (s *constScore) Describe() string { return describeString(s) }

// Describe gives a short, stable description of the native, as traces show it.
func (s *fieldScore) Describe() string { return describeString(s) }

// Describe gives a short, stable description of the native, as traces show it.
func (s *condScore) Describe() string { return scorerName(s) }

// Describe gives a short, stable description of the native, as traces show it.
func (s *inverseScore) Describe() string { return describeString(s) }

// Describe gives a short, stable description of the native, as traces show it.
func (s *listScore) Describe() string { return describeString(s) }

// Describe gives a short, stable description of the native, as traces show it.
func (s *weightScore) Describe() string { return describeString(s) }

// Describe gives a short, stable description of the native, as traces show it.
func (s *normalizeScore) Describe() string { return describeString(s) }

// Describe gives a short, stable description of the native, as traces show it.
func (s *curveScore) Describe() string { return describeString(s) }

// nanMin and nanMax are math.Min and math.Max with NaN winning over
// everything, infinities included (Go's check infinities first: math.Max(NaN,
// +Inf) is +Inf), so a NaN anywhere makes the combinator's score NaN.
func nanMin(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}

func nanMax(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}
