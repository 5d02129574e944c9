package defs

import (
	"fmt"
	"math"
	"strings"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// Behaviour-tree nodes (docs/lua-reference.md: Behaviour trees) and the step items of a
// state's steps list (docs/lua-reference.md: Steps) are built by the ai.* functions below
// into immutable BTNode values; ai.tree flattens a root node into a Tree,
// where every node has its resolved name and its place.

const btTypeName = "luaai.node"

// MaxTreeNodes bounds the nodes of one ai.tree (a node used in several
// places counts at each), and the items of one steps list: an update runs
// at most that many Lua calls for either.
const MaxTreeNodes = 10000

// Status is what a behaviour-tree node returns when ticked.
type Status uint8

// The statuses.
const (
	Failure Status = iota
	Success
	Running
)

// String is the status as a script returns it: "success", "failure",
// "running".
func (s Status) String() string {
	switch s {
	case Success:
		return "success"
	case Running:
		return "running"
	}
	return "failure"
}

// ParseStatus reads what a leaf returned: "success", "failure", "running",
// true (success), false or nil (failure). ok is false for anything else.
func ParseStatus(v lua.LValue) (Status, bool) {
	switch v := v.(type) {
	case lua.LBool:
		if v {
			return Success, true
		}
		return Failure, true
	case *lua.LNilType:
		return Failure, true
	case lua.LString:
		switch v {
		case "success":
			return Success, true
		case "failure":
			return Failure, true
		case "running":
			return Running, true
		}
	}
	return Failure, false
}

// BTNode is the immutable definition of one behaviour-tree node, or of one
// item of a steps list (a function item is a BTAction).
type BTNode struct {
	Kind     BTKind
	Name     string // the name given; "" for the default
	Children []*BTNode
	Fn       *lua.LFunction // action
	Cond     Cond           // check, wait_until
	Seconds  float64        // wait, cooldown, timeout
	Count    int            // the count parameter (its meaning is the kind's: btKinds); 0 for none (forever)
	Status   Status         // force
	// parallel: succeed = "one" (else all), fail = "all" (else one).
	SucceedOne, FailAll bool
	Pos                 scripterr.Pos
	Problems            scripterr.ErrorList // found while building this node (not its children)
}

// BTree is a behaviour tree flattened in pre-order: Nodes[0] is the root, a
// node's subtree is Nodes[i:End].
type BTree struct {
	Nodes  []BTPlace
	byPath map[string]int
}

// Find returns the index of the node at path ("sequence.attack"), or -1.
func (t *BTree) Find(path string) int {
	if i, ok := t.byPath[path]; ok {
		return i
	}
	return -1
}

// BTPlace is a node at its place in a tree.
type BTPlace struct {
	Def    *BTNode
	Name   string // resolved: the given name, or kind#index (the root: kind)
	Path   string // names from the root node down, dot-joined
	Parent int    // -1 for the root
	Kids   []int  // children, in order
	End    int    // one past the last node of its subtree
}

// BTValue returns the node held by a Lua value made by one of the node
// functions (ai.sequence, ai.action, ai.wait…).
func BTValue(v lua.LValue) (*BTNode, bool) {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return nil, false
	}
	n, ok := ud.Value.(*BTNode)
	return n, ok
}

func pushBT(L *lua.LState, n *BTNode) int {
	ud := L.NewUserData()
	ud.Value = n
	L.SetMetatable(ud, L.GetTypeMetatable(btTypeName))
	L.Push(ud)
	return 1
}

// registerBTType makes the metatable of node values.
func registerBTType(L *lua.LState) {
	mt := L.NewTypeMetatable(btTypeName)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		n, _ := BTValue(L.Get(1))
		if n == nil {
			L.Push(lua.LString("node"))
			return 1
		}
		L.Push(lua.LString(fmt.Sprintf("ai.%s at %s", n.Kind, n.Pos)))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(btTypeName))
}

// btChild reads a child of a composite or decorator: a node, or a Lua
// function (short for ai.action(fn)).
func btChild(v lua.LValue, pos scripterr.Pos) (*BTNode, bool) {
	if n, ok := BTValue(v); ok {
		return n, true
	}
	if fn, ok := v.(*lua.LFunction); ok {
		return &BTNode{Kind: BTAction, Fn: fn, Pos: pos}, true
	}
	return nil, false
}

func luaComposite(L *lua.LState, kind BTKind) int {
	what := "ai." + kind.String()
	t, ok := L.Get(1).(*lua.LTable)
	if !ok || L.GetTop() != 1 {
		L.ArgError(1, what+" takes one table: "+what+" { child, child, …, name = … }")
	}
	n := &BTNode{Kind: kind, Pos: luabind.CallerPos(L)}
	size := t.Len()
	t.ForEach(func(k, v lua.LValue) {
		switch k := k.(type) {
		case lua.LNumber:
			if i := float64(k); i == math.Trunc(i) && i >= 1 && i <= float64(size) {
				return // a child, read below in order
			}
		case lua.LString:
			switch k {
			case "name":
				n.Name = nodeName(&n.Problems, n.Pos, what, v)
				return
			case "succeed", "fail":
				if kind != BTParallel {
					break
				}
				s, _ := v.(lua.LString)
				switch {
				case k == "succeed" && (s == "all" || s == "one"):
					n.SucceedOne = s == "one"
				case k == "fail" && (s == "all" || s == "one"):
					n.FailAll = s == "all"
				default:
					n.Problems.Add(n.Pos, `%s: %s must be "all" or "one", got %s`, what, string(k), describeLua(v))
				}
				return
			}
		}
		n.Problems.Add(n.Pos, "%s: unknown field %s (children are the list part; name = … names it)", what, lua.LVAsString(k))
	})
	for i := 1; i <= size; i++ {
		c, ok := btChild(t.RawGetInt(i), n.Pos)
		if !ok {
			n.Problems.Add(n.Pos, "%s: child %d must be a node (ai.action, ai.check, ai.sequence, …) or a function, got %s", what, i, t.RawGetInt(i).Type())
			continue
		}
		n.Children = append(n.Children, c)
	}
	if size == 0 {
		n.Problems.Add(n.Pos, "%s: a composite needs at least one child", what)
	}
	return pushBT(L, n)
}

// luaBTNode builds a decorator or a leaf: ai.kind(arg[, param][, { name = … }]).
func luaBTNode(L *lua.LState, kind BTKind) int {
	what := "ai." + kind.String()
	n := &BTNode{Kind: kind, Pos: luabind.CallerPos(L)}
	top := L.GetTop()
	if opts, ok := L.Get(top).(*lua.LTable); ok && top >= 2 {
		top--
		opts.ForEach(func(k, v lua.LValue) {
			if k == lua.LString("name") {
				n.Name = nodeName(&n.Problems, n.Pos, what, v)
				return
			}
			n.Problems.Add(n.Pos, "%s: unknown option %s (the last table takes name = …)", what, lua.LVAsString(k))
		})
	}
	arg := L.Get(1)
	params := 1
	if n.Kind.IsDecorator() {
		c, ok := btChild(arg, n.Pos)
		if !ok {
			n.Problems.Add(n.Pos, "%s: its first argument must be a node or a function, got %s", what, arg.Type())
		} else {
			n.Children = []*BTNode{c}
		}
		if btKinds[kind].param != btNoParam {
			params = 2
			var p lua.LValue = lua.LNil // the parameter, unless the options table stands there
			if top >= 2 {
				p = L.Get(2)
			}
			readParam(n, what, p)
		}
	} else {
		readParam(n, what, arg)
	}
	if top > params {
		n.Problems.Add(n.Pos, "%s: too many arguments (%d)", what, L.GetTop())
	}
	return pushBT(L, n)
}

// nodeName checks a name given to a node.
func nodeName(errs *scripterr.ErrorList, pos scripterr.Pos, what string, v lua.LValue) string {
	s, ok := v.(lua.LString)
	if !ok || s == "" {
		errs.Add(pos, "%s: name must be a non-empty string, got %s", what, describeLua(v))
		return ""
	}
	if strings.ContainsAny(string(s), ".[]{},") {
		errs.Add(pos, "%s: name %q may not contain any of . [ ] { } ,", what, string(s))
		return ""
	}
	if strings.ContainsFunc(string(s), func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		errs.Add(pos, "%s: name %q may not contain control characters (line breaks, escapes)", what, string(s))
		return ""
	}
	if len(s) > MaxNameBytes {
		errs.Add(pos, "%s: name is %d bytes long, more than %d", what, len(s), MaxNameBytes)
		return ""
	}
	return string(s)
}

// MaxNameBytes bounds the length of a tree node's name.
const MaxNameBytes = 200

// buildTree flattens root into a Tree, resolving default names and adding
// every node's problems, and those of its place (siblings with one name),
// to errs.
func buildTree(root *BTNode, pos scripterr.Pos, errs *scripterr.ErrorList) *BTree {
	t := &BTree{}
	seen := map[*BTNode]bool{}
	pathBytes, tooLong := 0, false
	var place func(n *BTNode, name string, parent int, path string)
	place = func(n *BTNode, name string, parent int, path string) {
		if tooLong {
			return
		}
		if pathBytes += len(path) + 1 + len(name); pathBytes > MaxPathBytes {
			errs.Add(pos, "ai.tree: the node paths are longer than %d bytes together (nest less deeply, or use shorter names)", MaxPathBytes)
			tooLong = true
			return
		}
		if len(t.Nodes) >= MaxTreeNodes {
			if len(t.Nodes) == MaxTreeNodes {
				errs.Add(pos, "ai.tree: more than %d nodes (a node used in several places counts at each)", MaxTreeNodes)
				t.Nodes = append(t.Nodes, BTPlace{})
			}
			return
		}
		if !seen[n] {
			seen[n] = true
			*errs = append(*errs, n.Problems...)
		}
		i := len(t.Nodes)
		if path != "" {
			path += "."
		}
		path += name
		t.Nodes = append(t.Nodes, BTPlace{Def: n, Name: name, Path: path, Parent: parent})
		names := map[string]bool{}
		for j, c := range n.Children {
			cname := c.Name
			if cname == "" {
				cname = fmt.Sprintf("%s#%d", c.Kind, j+1)
			}
			if names[cname] {
				errs.Add(c.Pos, "ai.%s: two children are named %q (names differ among siblings)", n.Kind, cname)
			}
			names[cname] = true
			if len(t.Nodes) <= MaxTreeNodes {
				t.Nodes[i].Kids = append(t.Nodes[i].Kids, len(t.Nodes))
			}
			place(c, cname, i, path)
		}
		if i < len(t.Nodes) {
			t.Nodes[i].End = len(t.Nodes)
		}
	}
	name := root.Name
	if name == "" {
		name = root.Kind.String()
	}
	place(root, name, -1, "")
	if len(t.Nodes) > MaxTreeNodes {
		t.Nodes = t.Nodes[:MaxTreeNodes]
	}
	t.byPath = make(map[string]int, len(t.Nodes))
	for i, tn := range t.Nodes {
		t.byPath[tn.Path] = i
	}
	return t
}

var treeFields = map[string]bool{"root": true, "context": true, "on_reload": true}

// decodeTree builds the state ai.tree{} makes.
func decodeTree(L *lua.LState, t *lua.LTable, pos scripterr.Pos) *State {
	s := &State{Kind: KindTree, Pos: pos}
	d := &decoder{L: L, pos: pos, errs: &s.Problems, warn: &s.Warnings, trans: -1}
	const what = "ai.tree"
	d.hooks(s, t, what)
	t.ForEach(func(k, _ lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok {
			d.errorf(pos, "%s: field keys must be names, got %s", what, k.Type())
			return
		}
		if !leafFields[string(ks)] && !treeFields[string(ks)] {
			d.warnf(pos, "%s: unknown field %q%s", what, string(ks), didYouMean(string(ks), leafFields, treeFields))
		}
	})
	s.Context = d.optTable(t, "context", what, "a table")
	s.OnReload = d.optFunc(t, "on_reload", what) // run after a reload when the tree is the root, as for every root
	root, ok := btChild(t.RawGetString("root"), pos)
	if !ok {
		d.errorf(pos, "%s: root must be a node (ai.sequence{…}, ai.action(fn), …), got %s", what, t.RawGetString("root").Type())
		return s
	}
	s.Tree = buildTree(root, pos, &s.Problems)
	return s
}

// decodeSteps reads a state's steps list.
func (d *decoder) steps(s *State, t *lua.LTable, what string) {
	s.StepsLoop = d.optBool(t, "steps_loop", what)
	v := t.RawGetString("steps")
	if v == lua.LNil {
		if s.StepsLoop {
			d.errorf(d.pos, "%s: steps_loop without steps", what)
		}
		return
	}
	list, ok := v.(*lua.LTable)
	if !ok {
		d.errorf(d.pos, "%s: steps must be a list of functions, ai.wait(s) and ai.wait_until(cond), got %s", what, v.Type())
		return
	}
	n := d.listLen(list, what, "steps")
	if n == 0 {
		d.errorf(d.pos, "%s: steps is empty", what)
	}
	if n > MaxTreeNodes {
		d.errorf(d.pos, "%s: more than %d steps", what, MaxTreeNodes)
		return
	}
	for i := 1; i <= n; i++ {
		item := list.RawGetInt(i)
		if fn, ok := item.(*lua.LFunction); ok {
			s.Steps = append(s.Steps, &BTNode{Kind: BTAction, Fn: fn, Pos: FuncPos(fn, d.pos)})
			continue
		}
		node, ok := BTValue(item)
		// ai.action(fn, { name = … }) is a function with a name, for
		// graphs and traces.
		if !ok || (node.Kind != BTWait && node.Kind != BTWaitUntil && node.Kind != BTAction) {
			got := item.Type().String()
			if ok {
				got = "ai." + node.Kind.String()
			}
			d.errorf(d.pos, "%s: steps item %d must be a function, ai.action(fn, { name = … }), ai.wait(seconds) or ai.wait_until(cond), got %s", what, i, got)
			continue
		}
		*d.errs = append(*d.errs, node.Problems...)
		s.Steps = append(s.Steps, node)
	}
}

// FuncPos is where a Lua function was written, or def when unknown.
func FuncPos(fn *lua.LFunction, def scripterr.Pos) scripterr.Pos {
	if fn != nil && fn.Proto != nil && fn.Proto.LineDefined > 0 {
		return scripterr.Pos{File: fn.Proto.SourceName, Line: fn.Proto.LineDefined}
	}
	return def
}

// Label describes a node for a diagram or a trace: its kind, its name when
// it was given one, and its parameters ("cooldown recover 0.5s", "check
// lt(health, 3)", "action chase fn@hunter.lua:40").
func (n *BTNode) Label() string {
	parts := []string{n.Kind.String()}
	if n.Name != "" {
		parts = append(parts, n.Name)
	}
	if l := btKinds[n.Kind].label; l != nil {
		parts = append(parts, l(n)...)
	}
	return strings.Join(parts, " ")
}

// StepLabel describes a step item: a function as fn@file:line, or by its
// name when it is given one (ai.action(fn, { name = "roar" })), else as
// Label.
func (n *BTNode) StepLabel() string {
	if n.Kind == BTAction {
		if n.Name != "" {
			return n.Name
		}
		return strings.TrimPrefix(n.Label(), "action ")
	}
	return n.Label()
}

// StepsLabel describes a state's steps on one line: "steps: fn@x.lua:3,
// wait 0.5s, wait_until is(go) (loop)".
func StepsLabel(s *State) string {
	if len(s.Steps) == 0 {
		return ""
	}
	items := make([]string, len(s.Steps))
	for i, it := range s.Steps {
		items[i] = it.StepLabel()
	}
	out := "steps: " + strings.Join(items, ", ")
	if s.StepsLoop {
		out += " (loop)"
	}
	return out
}
