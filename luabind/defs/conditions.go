package defs

import (
	lua "github.com/yuin/gopher-lua"
)

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

// What each native condition reads and combines (the native interface).

func (c *isCond) field() *fieldPath   { return &c.path }
func (c *isCond) contains() []any     { return nil }
func (c *eqCond) field() *fieldPath   { return &c.path }
func (c *eqCond) contains() []any     { return nil }
func (c *numCond) field() *fieldPath  { return &c.path }
func (c *numCond) contains() []any    { return nil }
func (c *listCond) field() *fieldPath { return nil }
func (c *nonCond) field() *fieldPath  { return nil }
func (c *nonCond) contains() []any    { return []any{c.c} }

func (c *listCond) contains() []any {
	out := make([]any, len(c.cs))
	for i, x := range c.cs {
		out[i] = x
	}
	return out
}
