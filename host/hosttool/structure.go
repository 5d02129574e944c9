package hosttool

import (
	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/internal/link"
)

// StateInfo is a state of a behaviour as a tool draws it.
type StateInfo struct {
	Name, Path  string
	Kind        string // "state", "fsm", "utility", "regions" or "tree"
	Initial     string // a machine's initial child
	History     bool
	Every       float64
	DecideEvery float64
	Momentum    float64
	RandomTop   int
	Hooks       []string // the hooks it has: "enter", "update", "exit", "pause", "resume"
	Score, Lock string   // a native scorer or lock described, "function" for Lua, "" for none
	Curves      []CurveInfo
	Transitions []TransitionInfo
	File        string
	Line        int
	Steps       []string // the steps, described
	StepsLoop   bool
	Final       bool          // marked final = true: an end on purpose
	Tree        *TreeNodeInfo // an ai.tree state's root node
	Children    []*StateInfo
}

// CurveInfo is one response curve of a native scorer.
type CurveInfo struct {
	Curve string                  // "logistic, k=2"
	Input string                  // the scorer feeding it
	Eval  func(x float64) float64 // the curve
}

// TransitionInfo is a transition of a state.
type TransitionInfo struct {
	Kind   string // "to", "push", "pop" or "replace"
	Target string
	On     string
	After  float64
	When   string // a native condition described, "function" for Lua, "" for none
	Run    bool   // it has a run function
	Name   string // as coverage names it: "to chase on noise"
}

// TreeNodeInfo is a behaviour-tree node; Path is what AgentView.Active
// names it by, as "state[path]".
type TreeNodeInfo struct {
	Label string
	Name  string
	Path  string
	Kids  []*TreeNodeInfo
}

// Structure is the structure of b as its latest load or reload built it:
// the same pointer until the next reload, so a tool can tell versions
// apart. Call it on the goroutine that owns the host.
func Structure(b *host.Behaviour) *StateInfo {
	s, _ := link.Funcs.Structure(b, func(s *link.StateInfo) any { return stateInfo(s) }).(*StateInfo)
	return s
}

func stateInfo(s *link.StateInfo) *StateInfo {
	return &StateInfo{
		Name: s.Name, Path: s.Path, Kind: s.Kind, Initial: s.Initial, History: s.History,
		Every: s.Every, DecideEvery: s.DecideEvery, Momentum: s.Momentum, RandomTop: s.RandomTop,
		Hooks: s.Hooks, Score: s.Score, Lock: s.Lock,
		Curves:      mapSlice(s.Curves, func(c link.CurveInfo) CurveInfo { return CurveInfo(c) }),
		Transitions: mapSlice(s.Transitions, func(t link.TransitionInfo) TransitionInfo { return TransitionInfo(t) }),
		File:        s.File, Line: s.Line, Steps: s.Steps, StepsLoop: s.StepsLoop, Final: s.Final,
		Tree:     treeInfo(s.Tree),
		Children: mapSlice(s.Children, stateInfo),
	}
}

func treeInfo(n *link.TreeNodeInfo) *TreeNodeInfo {
	if n == nil {
		return nil
	}
	return &TreeNodeInfo{Label: n.Label, Name: n.Name, Path: n.Path, Kids: mapSlice(n.Kids, treeInfo)}
}
