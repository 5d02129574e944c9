package defs

import lua "github.com/yuin/gopher-lua"

// maxPlaces bounds the states a behaviour places: a definition used in
// several parents counts at each place, so ten machines each holding the
// previous one twice would otherwise place 2^10 states, and forty 2^40.
const maxPlaces = 10000

// Node is a state at one place of a definition tree.
type Node struct {
	Def    *State
	Name   string // its key in the parent's states; "" for the root
	Path   string // the dotted path from the root; "" for the root
	Parent *Node  // nil for the root
	Index  int    // its position among the parent's children (name order)
	Depth  int    // 0 for the root
}

// Walk visits every place of the tree below root in pre-order, children in
// name order: the one walk over a definition that validation, the linter,
// the graph writer and the host's runtime tree share. When visit returns
// false the children of that node are not visited. A definition used in
// several parents is visited at each place; CheckRoot refuses trees of more
// than maxPlaces places, so a checked tree is walked in bounded time.
func Walk(root *State, visit func(n *Node) bool) {
	if root == nil {
		return
	}
	var walk func(n *Node)
	walk = func(n *Node) {
		if !visit(n) {
			return
		}
		for i, c := range n.Def.Children {
			path := c.Name
			if n.Path != "" {
				path = n.Path + "." + c.Name
			}
			walk(&Node{Def: c.Def, Name: c.Name, Path: path, Parent: n, Index: i, Depth: n.Depth + 1})
		}
	}
	walk(&Node{Def: root})
}

// EachState calls fn once for each distinct definition below root (root
// included), at the first place Walk finds it.
func EachState(root *State, fn func(n *Node)) {
	seen := map[*State]bool{}
	Walk(root, func(n *Node) bool {
		if seen[n.Def] {
			return false
		}
		seen[n.Def] = true
		fn(n)
		return true
	})
}

// places counts the places of the tree below s (s included), stopping at
// limit+1; memo holds the counts of definitions already counted.
func places(s *State, limit int, memo map[*State]int) int {
	if n, ok := memo[s]; ok {
		return n
	}
	n := 1
	for _, c := range s.Children {
		if n += places(c.Def, limit, memo); n > limit {
			n = limit + 1
			break
		}
	}
	memo[s] = n
	return n
}

// Env is the global table of the mod whose root LoadProto returned s (the
// script's globals, and what its modules share); nil for other definitions.
func (s *State) Env() *lua.LTable { return s.env }

// EachFunction calls fn for every Lua function the definitions below root
// hold themselves: hooks, on_reload, transitions' run and when, lock and
// score functions, steps and tree leaves. (Functions inside native
// conditions and scorers are not visited.) A function held in several
// places is visited at each.
func EachFunction(root *State, fn func(*lua.LFunction)) {
	visit := func(f *lua.LFunction) {
		if f != nil {
			fn(f)
		}
	}
	cond := func(c Cond) {
		if lc, ok := c.(LuaCond); ok {
			visit(lc.Fn)
		}
	}
	var node func(n *BTNode)
	node = func(n *BTNode) {
		visit(n.Fn)
		cond(n.Cond)
		for _, c := range n.Children {
			node(c)
		}
	}
	EachState(root, func(n *Node) {
		s := n.Def
		for _, f := range []*lua.LFunction{s.Enter, s.Exit, s.Update, s.Pause, s.Resume, s.OnReload} {
			visit(f)
		}
		cond(s.Lock)
		for i := range s.Transitions {
			visit(s.Transitions[i].Run)
			cond(s.Transitions[i].When)
		}
		if ls, ok := s.Score.(LuaScorer); ok {
			visit(ls.Fn)
		}
		for _, st := range s.Steps {
			node(st)
		}
		if s.Tree != nil && len(s.Tree.Nodes) > 0 {
			node(s.Tree.Nodes[0].Def)
		}
	})
}
