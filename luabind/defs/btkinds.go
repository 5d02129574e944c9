package defs

import (
	"fmt"
	"math"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// The kinds of behaviour-tree node, as data: each kind's name (its ai.*
// function), how many children it takes, what its argument is, how its
// label shows its parameters, and what a saved record of it may hold. A
// new kind is an entry here and a tick function in package host (a test
// there fails for a kind without one).

// BTKind says what a behaviour-tree node is: an index into the kinds.
type BTKind uint8

// The kinds of node: composites, decorators, leaves.
const (
	BTSequence BTKind = iota
	BTReactiveSequence
	BTSelector
	BTReactiveSelector
	BTParallel
	BTInvert
	BTLoop
	BTRetry
	BTCooldown
	BTTimeout
	BTForce
	BTAction
	BTCheck
	BTWait
	BTWaitUntil
	BTKindCount // the number of kinds
)

// btArity is how many children a kind takes.
type btArity uint8

const (
	btLeaf     btArity = iota
	btOneChild         // a decorator: ai.kind(child[, param][, opts])
	btChildren         // a composite: ai.kind{ child, …, name = … }
)

// btParam is what a kind's argument is: a decorator's after its child, a
// leaf's only one.
type btParam uint8

const (
	btNoParam   btParam = iota
	btCount             // a positive whole number, nil: forever (n.Count 0)
	btSeconds           // a non-negative number of seconds
	btStatus            // "success", "failure" or "running"
	btFunction          // an action's function
	btCondition         // a condition: a function, a boolean or an ai.* condition
)

// btKindInfo is one kind of node.
type btKindInfo struct {
	name  string
	arity btArity
	param btParam
	// label gives the parameters a node's label shows after its kind and
	// name.
	label func(n *BTNode) []string
	// progress is the largest number a saved record of the node may hold
	// as its progress (a composite's running child, the runs a loop
	// finished, the failures a retry had); nil: always 0.
	progress func(n *BTNode, kids int) int
	// cools: the record keeps a finish time across halts (cooldown).
	cools bool
}

var btKinds = [BTKindCount]btKindInfo{
	BTSequence:         {name: "sequence", arity: btChildren, progress: runningChild},
	BTReactiveSequence: {name: "reactive_sequence", arity: btChildren, progress: runningChild},
	BTSelector:         {name: "selector", arity: btChildren, progress: runningChild},
	BTReactiveSelector: {name: "reactive_selector", arity: btChildren, progress: runningChild},
	BTParallel:         {name: "parallel", arity: btChildren, progress: runningChild, label: parallelLabel},
	BTInvert:           {name: "invert", arity: btOneChild},
	BTLoop: {name: "loop", arity: btOneChild, param: btCount, label: countLabel("×%d", "forever"),
		progress: func(n *BTNode, _ int) int { return countOr(n, n.Count-1) }},
	BTRetry: {name: "retry", arity: btOneChild, param: btCount, label: countLabel("×%d", "forever"),
		progress: func(n *BTNode, _ int) int { return countOr(n, n.Count) }},
	BTCooldown:  {name: "cooldown", arity: btOneChild, param: btSeconds, label: secondsLabel, cools: true},
	BTTimeout:   {name: "timeout", arity: btOneChild, param: btSeconds, label: secondsLabel},
	BTForce:     {name: "force", arity: btOneChild, param: btStatus, label: func(n *BTNode) []string { return []string{n.Status.String()} }},
	BTAction:    {name: "action", param: btFunction, label: actionLabel},
	BTCheck:     {name: "check", param: btCondition, label: condLabel},
	BTWait:      {name: "wait", param: btSeconds, label: secondsLabel},
	BTWaitUntil: {name: "wait_until", param: btCondition, label: condLabel},
}

// String is the node kind's name as the ai.* function that makes it
// ("sequence", "wait_until").
func (k BTKind) String() string { return btKinds[k].name }

// IsComposite reports whether the kind takes a list of children.
func (k BTKind) IsComposite() bool { return btKinds[k].arity == btChildren }

// IsDecorator reports whether the kind wraps one child.
func (k BTKind) IsDecorator() bool { return btKinds[k].arity == btOneChild }

// Progress is the largest progress number a saved record of n (with kids
// children) may hold: a composite's running child, the runs a loop
// finished, the failures a retry had; 0 for the other kinds.
func (n *BTNode) Progress(kids int) int {
	if p := btKinds[n.Kind].progress; p != nil {
		return p(n, kids)
	}
	return 0
}

// Cools reports whether n's record keeps a finish time (a cooldown).
func (n *BTNode) Cools() bool { return btKinds[n.Kind].cools }

func runningChild(_ *BTNode, kids int) int { return kids - 1 }

// countOr is v, or (a node that counts forever) the largest record.
func countOr(n *BTNode, v int) int {
	if n.Count == 0 {
		return math.MaxInt32
	}
	return v
}

func parallelLabel(n *BTNode) []string {
	succeed, fail := "all", "one"
	if n.SucceedOne {
		succeed = "one"
	}
	if n.FailAll {
		fail = "all"
	}
	return []string{"succeed " + succeed, "fail " + fail}
}

func countLabel(format, forever string) func(n *BTNode) []string {
	return func(n *BTNode) []string {
		if n.Count > 0 {
			return []string{fmt.Sprintf(format, n.Count)}
		}
		return []string{forever}
	}
}

func secondsLabel(n *BTNode) []string { return []string{fmt.Sprintf("%gs", n.Seconds)} }

func actionLabel(n *BTNode) []string {
	if n.Fn != nil && n.Fn.Proto != nil {
		return []string{fmt.Sprintf("fn@%s:%d", n.Fn.Proto.SourceName, n.Fn.Proto.LineDefined)}
	}
	return nil
}

func condLabel(n *BTNode) []string {
	if n.Cond != nil {
		return []string{Describe(n.Cond)}
	}
	return nil
}

// btExports is the ai.* functions building behaviour-tree nodes and step
// items: one per kind.
func btExports() map[string]lua.LGFunction {
	out := map[string]lua.LGFunction{}
	for k := range BTKindCount {
		if k.IsComposite() {
			out[k.String()] = func(L *lua.LState) int { return luaComposite(L, k) }
		} else {
			out[k.String()] = func(L *lua.LState) int { return luaBTNode(L, k) }
		}
	}
	return out
}

// readParam reads a node's parameter p into n, adding a problem when it is
// not what its kind takes.
func readParam(n *BTNode, what string, p lua.LValue) {
	switch btKinds[n.Kind].param {
	case btCount:
		if p != lua.LNil {
			c, ok := luaval.NumberOf(p)
			if !ok || c < 1 || c != math.Trunc(c) || c > math.MaxInt32 {
				n.Problems.Add(n.Pos, "%s: count must be a positive whole number (nil: forever), got %s", what, describeLua(p))
			} else {
				n.Count = int(c)
			}
		}
	case btSeconds:
		s, ok := luaval.NumberOf(p)
		if !ok || s < 0 || math.IsInf(s, 0) {
			n.Problems.Add(n.Pos, "%s: seconds must be a non-negative number, got %s", what, describeLua(p))
		} else {
			n.Seconds = s
		}
	case btStatus:
		s, ok := p.(lua.LString)
		st, okSt := ParseStatus(s)
		if !ok || !okSt {
			n.Problems.Add(n.Pos, `%s: status must be "success", "failure" or "running", got %s`, what, describeLua(p))
		}
		n.Status = st
	case btFunction:
		fn, ok := p.(*lua.LFunction)
		if !ok {
			n.Problems.Add(n.Pos, "%s: expects a function(ctx, dt) returning a status, got %s", what, p.Type())
		}
		n.Fn = fn
	case btCondition:
		c, ok := toCond(p)
		if !ok {
			n.Problems.Add(n.Pos, "%s: expects a condition (a function, a boolean or an ai.* condition), got %s", what, p.Type())
		}
		n.Cond = c
	}
}
