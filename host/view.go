package host

// Views: an agent at the end of a tick and a behaviour's structure as
// plain Go data, for hosttool (the web inspector shows them). Each
// feature adds its part from its own file (stack.go, steps.go, btree.go,
// utility.go, messages.go).

import (
	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/luabind/defs"
)

// maxViewEvents bounds the pending events (and, apart, the messages) a
// view lists: a script may queue thousands (hosttool.MaxViewEvents).
const maxViewEvents = 100

// view is hosttool.View: the zero view for a removed agent or a refused
// read.
func (a *Agent) view() link.AgentView {
	var v link.AgentView
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

func (a *Agent) timerView(n *place) link.TimerView {
	rt := a.nodes[n.id]
	t := link.TimerView{State: n.path, Time: rt.time}
	if n.def.Every > 0 {
		t.Every, t.Acc = n.def.Every, rt.every
	}
	return t
}

// structure is hosttool.Structure: build turns the structure into the
// tool's, kept until the next reload so the tool gets the same pointer.
func (b *Behaviour) structure(build func(*link.StateInfo) any) any {
	t := b.layout()
	if t.info == nil {
		t.info = build(stateInfo(t.root))
	}
	return t.info
}

func stateInfo(n *place) *link.StateInfo {
	d := n.def
	s := &link.StateInfo{
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
			s.Curves = append(s.Curves, link.CurveInfo{Curve: u.Curve.String(), Input: describeOr(u.Input, "function"), Eval: u.Curve.Eval})
		}
	}
	if d.Lock != nil {
		s.Lock = describeOr(d.Lock, "function")
	}
	for _, tr := range n.trans {
		ti := link.TransitionInfo{Kind: tr.Kind.String(), Target: tr.Target, On: tr.On, After: tr.After, Run: tr.Run != nil, Name: tr.Name()}
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
