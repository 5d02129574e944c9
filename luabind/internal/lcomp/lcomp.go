package lcomp

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// Limits of what Compile accepts: a function run from these fixed-size
// arrays allocates nothing of its own.
const (
	MaxCode   = 256 // instructions
	MaxRegs   = 32  // registers the function uses
	MaxWrites = 16  // field writes (each runs at most once)
)

// Math names the math functions a compiled function may call: a call is
// run in Go only when its callee is one of these very functions (compared
// by identity when it runs), so a script that replaced math.min gets its
// own. A nil field is never matched.
type Math struct {
	Min, Max, Abs, Floor, Sqrt *lua.LFunction
}

// MathOf reads the five functions from a math library table.
func MathOf(t *lua.LTable) *Math {
	fn := func(name string) *lua.LFunction {
		f, _ := t.RawGetString(name).(*lua.LFunction)
		return f
	}
	return &Math{Min: fn("min"), Max: fn("max"), Abs: fn("abs"), Floor: fn("floor"), Sqrt: fn("sqrt")}
}

// Unsupported is why Compile refused a function: the first construct it
// cannot run exactly, and its line (0 when the whole function is meant).
type Unsupported struct {
	Line   int
	Reason string
}

func (e *Unsupported) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	return e.Reason
}

// val is a register: a number kept unboxed (num, n; v is its boxed form
// when it came from a table or constant, else nil), or any other value v.
type val struct {
	v   lua.LValue
	n   float64
	num bool
}

func mk(v lua.LValue) val {
	if n, ok := v.(lua.LNumber); ok {
		return val{v: v, n: float64(n), num: true}
	}
	return val{v: v}
}

// box is the value as gopher-lua holds it (a computed number is boxed
// here, and only here).
func (x val) box() lua.LValue {
	if x.v != nil {
		return x.v
	}
	if x.num {
		return lua.LNumber(x.n)
	}
	return lua.LNil
}

func (x val) truthy() bool {
	if x.num {
		return true
	}
	return x.v != lua.LNil && x.v != lua.LFalse && x.v != nil
}

// ins is one decoded instruction.
type ins struct {
	op      int
	a, b, c int
	bk, ck  bool // RK(B), RK(C) name a constant
	kb, kc  val  // those constants
	key     string
	line    int
	last    bool // SETTABLEKS: nothing after it can hand the call to the VM
}

// Program is a compiled function.
type Program struct {
	fast    *straight   // the tree, for one expression over numbers (expr.go)
	branch  *branchTree // the tree, for branches and several writes (branch.go)
	code    []ins
	nparams int
	nregs   int
}

// Steps is the most instructions one run executes (each runs at most
// once): a run needs at most this much of an instruction budget.
func (p *Program) Steps() int { return len(p.code) }
