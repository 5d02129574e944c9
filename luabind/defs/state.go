package defs

import (
	"sort"
	"strconv"
	"strings"

	"github.com/luaai/luaai/internal/scripterr"
	lua "github.com/yuin/gopher-lua"
)

// Kind says what a state definition is.
type Kind uint8

// The kinds of state.
const (
	KindLeaf    Kind = iota // a plain table
	KindFSM                 // ai.fsm{}
	KindUtility             // ai.utility{}
	KindTree                // ai.tree{}: a state whose body is a behaviour tree
	KindRegions             // ai.regions{}: machines all active at once
)

// String is the kind's name: "fsm", "utility", "tree", "regions" or "leaf".
func (k Kind) String() string {
	switch k {
	case KindFSM:
		return "fsm"
	case KindUtility:
		return "utility"
	case KindTree:
		return "tree"
	case KindRegions:
		return "regions"
	}
	return "leaf"
}

// State is the immutable definition of one state: a leaf or a machine. A
// machine definition carries no name: its name is its key in the parent's
// states, so one definition may be placed in several parents.
type State struct {
	Kind Kind
	Pos  scripterr.Pos // where the definition was written (the ai.fsm/ai.utility call, or the enclosing one for a leaf)

	Enter, Exit, Update, Pause, Resume *lua.LFunction
	Lock                               Cond // nil: never locked
	Every                              float64
	Transitions                        []Transition
	Score                              Scorer    // utility children only
	Steps                              []*BTNode // BTAction (a function), BTWait or BTWaitUntil items
	StepsLoop                          bool
	// Final marks a state meant to be the end: luaai explore does not
	// report it as a dead end when nothing leads out of it.
	Final bool
	Tree  *BTree // KindTree only

	// Machines only.
	Initial     string  // "" for a utility machine without initial
	Children    []Child // sorted by name
	Context     *lua.LTable
	DecideEvery float64
	History     bool
	Momentum    float64
	RandomTop   int // 0: select the best
	OnReload    *lua.LFunction
	Renamed     map[string]string

	// Problems found while building this definition (not its children's).
	Problems scripterr.ErrorList
	// Warnings are suspicious but legal things (unknown fields).
	Warnings scripterr.ErrorList

	owner any         // set by the host that runs this definition (SetOwner)
	env   *lua.LTable // a root loaded by LoadProto: the mod's globals (ModulesOf)
}

// Owner is what SetOwner recorded: the host keeps the behaviour a root
// definition belongs to here rather than in a map, so a definition made at
// run time (ai.spawn(ai.fsm{…})) is garbage once no agent or script holds it.
func (s *State) Owner() any { return s.owner }

// SetOwner records the owner of a root definition (see Owner).
func (s *State) SetOwner(v any) { s.owner = v }

// Child is a named state of a machine.
type Child struct {
	Name string
	Def  *State
}

// IsMachine reports whether the state has children.
func (s *State) IsMachine() bool {
	return s.Kind == KindFSM || s.Kind == KindUtility || s.Kind == KindRegions
}

// Child returns the index of the named child, or -1.
func (s *State) Child(name string) int {
	i := sort.Search(len(s.Children), func(i int) bool { return s.Children[i].Name >= name })
	if i < len(s.Children) && s.Children[i].Name == name {
		return i
	}
	return -1
}

// TransitionKind says what a transition does.
type TransitionKind uint8

// The kinds of transition.
const (
	To TransitionKind = iota
	Push
	Pop
	Replace  // ai.replace only: a definition's transitions are To, Push, Pop or Internal
	Internal // a transition with only run: it fires and changes no state
)

// HasTarget reports whether the kind names a state to enter (to, push,
// replace); pop and internal transitions name none.
func (k TransitionKind) HasTarget() bool { return k == To || k == Push || k == Replace }

// String is the transition's kind: "to", "push", "pop", "replace" or
// "internal".
func (k TransitionKind) String() string {
	switch k {
	case Push:
		return "push"
	case Pop:
		return "pop"
	case Replace:
		return "replace"
	case Internal:
		return "internal"
	}
	return "to"
}

// Name says which transition it is, as coverage and graphs name it: "to
// chase on noise", "pop after 2s", "to flee when lt(hp, 10)".
func (t Transition) Name() string {
	parts := []string{t.Kind.String()}
	if t.Target != "" {
		parts = append(parts, t.Target)
	}
	if t.On != "" {
		parts = append(parts, "on "+t.On)
	}
	if t.After > 0 {
		parts = append(parts, "after "+strconv.FormatFloat(t.After, 'g', -1, 64)+"s")
	}
	if t.When != nil {
		parts = append(parts, "when "+Describe(t.When))
	}
	return strings.Join(parts, " ")
}

// ParseTransitionKind reads "to", "push", "pop" or "replace".
func ParseTransitionKind(s string) (TransitionKind, bool) {
	for k := To; k <= Replace; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return To, false
}

// Transition is one entry of a state's transitions.
type Transition struct {
	Kind   TransitionKind
	Target string // "" for pop and internal
	When   Cond   // nil: always
	On     string // event name, "" for none
	After  float64
	Run    *lua.LFunction // the action, run(ctx, payload) when it fires; nil: none
	Pos    scripterr.Pos
}

// MaxPathBytes bounds the length of the paths of a behaviour's placed
// states together, and of a tree's nodes: an engine keeps every path, so
// a deep nest of long names would cost depth × length bytes a node.
const MaxPathBytes = 1 << 20

// pathBytes is the length of the paths of the states placed below s
// together, when s's own path is prefix bytes long; it stops counting
// past limit.
func pathBytes(s *State, prefix, limit int) int {
	total := 0
	for _, c := range s.Children {
		n := len(c.Name)
		if prefix > 0 {
			n += prefix + 1
		}
		total += n
		if total > limit {
			return total
		}
		total += pathBytes(c.Def, n, limit-total)
		if total > limit {
			return total
		}
	}
	return total
}

// CheckRoot validates a machine as the root of a behaviour and returns every
// problem in it and below it, sorted by position.
func CheckRoot(root *State, file string) scripterr.ErrorList {
	var errs scripterr.ErrorList
	if root == nil {
		errs.Add(scripterr.Pos{File: file}, "the script must return a machine (ai.fsm{}, ai.utility{}, ai.regions{} or ai.tree{})")
		return errs
	}
	if len(root.Transitions) > 0 {
		errs.Add(root.Pos, "the root machine takes no transitions (it has no siblings)")
	}
	if n := places(root, MaxPlaces, map[*State]int{}); n > MaxPlaces {
		errs.Add(root.Pos, "the behaviour places more than %d states (a machine used in several parents counts once in each)", MaxPlaces)
		return errs
	}
	if n := pathBytes(root, 0, MaxPathBytes); n > MaxPathBytes {
		errs.Add(root.Pos, "the behaviour's state paths are longer than %d bytes together (nest less deeply, or use shorter names)", MaxPathBytes)
		return errs
	}
	EachState(root, func(n *Node) { errs = append(errs, n.Def.Problems...) })
	for old, nw := range root.Renamed {
		if _, ok := root.Lookup(nw); !ok {
			errs.Add(root.Pos, "renamed: %q maps to %q, which is not a state path", old, nw)
		}
	}
	errs.Sort()
	return errs
}

// Warnings returns the warnings of a definition and everything below it.
func Warnings(root *State) scripterr.ErrorList {
	var out scripterr.ErrorList
	EachState(root, func(n *Node) { out = append(out, n.Def.Warnings...) })
	out.Sort()
	return out
}

// Lookup finds the definition at a dotted path below s.
func (s *State) Lookup(path string) (*State, bool) {
	cur := s
	for _, part := range strings.Split(path, ".") {
		i := cur.Child(part)
		if i < 0 {
			return nil, false
		}
		cur = cur.Children[i].Def
	}
	return cur, true
}

// MachineValue returns the machine definition held by a Lua value made by
// ai.fsm or ai.utility.
func MachineValue(v lua.LValue) (*State, bool) {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return nil, false
	}
	m, ok := ud.Value.(*State)
	return m, ok
}
