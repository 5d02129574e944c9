package host

// Views: an agent at the end of a tick and a behaviour's structure as
// plain Go data, for tools that show them (the web inspector). Each
// feature adds its part from its own file (stack.go, steps.go, btree.go,
// utility.go, messages.go).

import "github.com/luaai/luaai/luabind/defs"

// MaxViewEvents bounds the pending events (and, apart, the messages) an
// AgentView lists: a script may queue thousands.
const MaxViewEvents = 100

// AgentView is what an agent is between ticks, beyond what its own methods
// (Path, Paused, Context, Suspended, Ticks, Clock) say.
type AgentView struct {
	// Active is the active states' paths, outermost first (every region
	// of an ai.regions state, in name order); the running nodes of an
	// ai.tree state follow it as "state[node]".
	Active []string
	Stacks []StackView // machines with more than one state on their stack
	Timers []TimerView // every active state but the root
	Steps  []StepsView // active states with steps
	// Decisions are the last decisions of the active utility machines,
	// kept while the agent is followed or watched.
	Decisions []DecisionView
	Inputs    []CurveInput   // the current inputs of the active candidates' native curves
	Events    []PendingEvent // sent events, then ai.send_to messages, for the next tick
	Requests  []PendingRequest
}

// StackView is an fsm's stack, bottom first.
type StackView struct {
	Machine string
	States  []string
}

// TimerView is how long an active state has been active, and for a state
// with every, the seconds since its last timed update.
type TimerView struct {
	State string
	Time  float64
	Every float64 // the state's every; 0 for none
	Acc   float64
}

// StepsView is where an active state's steps are: Item from 0 (Of when
// done) and the seconds in it.
type StepsView struct {
	State string
	Item  int
	Of    int
	Time  float64
}

// DecisionView is a utility machine's last decision and its momentum.
type DecisionView struct {
	Decision
	Momentum float64
}

// CurveInput is the current input of a candidate's native curve: the x a
// plot of the curve marks.
type CurveInput struct {
	State string // the candidate
	Curve int    // index among its curves (StateInfo.Curves)
	X     float64
}

// PendingEvent is an event waiting for the next tick.
type PendingEvent struct {
	Name    string
	Payload any  // plain data
	Message bool // sent by another agent (ai.send_to)
	Sender  int  // the id of the agent that sent it (ai.send_to, ai.send; ai.sender()); 0 for the game's
}

// PendingRequest is an ai.push, ai.pop or ai.replace waiting for its
// machine's next decide phase.
type PendingRequest struct {
	Machine string
	Kind    string // "push", "pop" or "replace"
	Target  string // the state pushed or replaced with; "" for pop
	Payload any    // plain data
}

// View returns a's view. Call it on the goroutine that owns the host,
// between ticks, or from the agent's own callbacks (Caller); for a removed
// agent it is the zero AgentView.
//
// While the workers tick, only the agent's own callbacks may read it (see
// the package's Concurrency section): any other caller gets the zero AgentView, and the
// first refusal of each behaviour is reported to OnError.
func (a *Agent) View() AgentView {
	var v AgentView
	if !a.readable("View") || a.removed {
		return v
	}
	a.eachActive(a.t.root, func(n *place) {
		if n != a.t.root {
			v.Active = append(v.Active, n.path)
			v.Timers = append(v.Timers, a.timerView(n))
		}
		a.stepsView(n, &v)
		a.treeView(n, &v)
		if n.isMachine() {
			a.stackView(n, &v)
			a.decisionView(n, &v)
		}
	})
	a.eventsView(&v)
	a.requestsView(&v)
	return v
}

func (a *Agent) timerView(n *place) TimerView {
	rt := a.nodes[n.id]
	t := TimerView{State: n.path, Time: rt.time}
	if n.def.Every > 0 {
		t.Every, t.Acc = n.def.Every, rt.every
	}
	return t
}

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
	Name   string // as coverage names it: "to chase on noise" (defs.Transition.Name)
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
func (b *Behaviour) Structure() *StateInfo {
	t := b.layout()
	if t.info == nil {
		t.info = stateInfo(t.root)
	}
	return t.info
}

func stateInfo(n *place) *StateInfo {
	d := n.def
	s := &StateInfo{
		Name: n.name, Path: n.path, Kind: d.Kind.String(), Every: d.Every,
		DecideEvery: d.DecideEvery, Momentum: d.Momentum, RandomTop: d.RandomTop,
		History: d.History, File: d.Pos.File, Line: d.Pos.Line, StepsLoop: d.StepsLoop,
		Final: d.Final,
	}
	if n.isMachine() && n.initial >= 0 {
		s.Initial = n.children[n.initial].name
	}
	for _, it := range d.Steps {
		s.Steps = append(s.Steps, it.StepLabel())
	}
	if n.bt != nil {
		s.Tree = treeInfo(n, 0)
	}
	for _, hk := range []struct {
		name string
		set  bool
	}{{"enter", d.Enter != nil}, {"update", d.Update != nil}, {"exit", d.Exit != nil}, {"pause", d.Pause != nil}, {"resume", d.Resume != nil}} {
		if hk.set {
			s.Hooks = append(s.Hooks, hk.name)
		}
	}
	if d.Score != nil {
		s.Score = describeOr(d.Score, "function")
		for _, u := range defs.CurvesIn(d.Score) {
			s.Curves = append(s.Curves, CurveInfo{Curve: u.Curve.String(), Input: describeOr(u.Input, "function"), Eval: u.Curve.Eval})
		}
	}
	if d.Lock != nil {
		s.Lock = describeOr(d.Lock, "function")
	}
	for _, tr := range n.trans {
		ti := TransitionInfo{Kind: tr.Kind.String(), Target: tr.Target, On: tr.On, After: tr.After, Run: tr.Run != nil, Name: tr.Name()}
		if tr.When != nil {
			ti.When = describeOr(tr.When, "function")
		}
		s.Transitions = append(s.Transitions, ti)
	}
	for _, c := range n.children {
		s.Children = append(s.Children, stateInfo(c))
	}
	return s
}

// describeOr describes a native condition or scorer, or says what it is.
func describeOr(v any, otherwise string) string {
	if d := defs.Describe(v); d != "" {
		return d
	}
	return otherwise
}
