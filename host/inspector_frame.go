package host

// What the inspector publishes: a row per agent for the list, a frame per
// followed agent, and the structure of each behaviour it runs. Built on the
// game goroutine, between ticks; encoded to JSON there so that the HTTP
// side holds bytes, not Lua values.

import (
	"encoding/json"
	"github.com/luaai/luaai/internal/plainjson"
	"math"

	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// rowJSON is an agent in the list.
type rowJSON struct {
	ID        int    `json:"id"`
	Behaviour string `json:"behaviour"`
	Path      string `json:"path"`
	Ticks     int    `json:"ticks"`
	Errors    int    `json:"errors"`
	Suspended bool   `json:"suspended,omitempty"`
	Picked    bool   `json:"picked,omitempty"`
}

// frameJSON is a followed agent at the end of a tick.
type frameJSON struct {
	ID          int              `json:"id"`
	Tick        int              `json:"tick"`
	Clock       float64          `json:"clock"`
	Behaviour   string           `json:"behaviour"`
	Structure   int              `json:"structure"` // id of its behaviour's structure
	Path        string           `json:"path"`
	Active      []string         `json:"active"` // the active path, outermost first
	Paused      []string         `json:"paused"` // states paused on stacks
	Stacks      []stackJSON      `json:"stacks"`
	Steps       []stepsJSON      `json:"steps,omitempty"` // progress of the active states' steps
	Suspended   bool             `json:"suspended,omitempty"`
	Context     any              `json:"context"`
	Decisions   []decisionJSON   `json:"decisions"`
	Timers      []timerJSON      `json:"timers"`
	Events      []eventJSON      `json:"events"`   // pending, for the next tick
	Requests    []requestJSON    `json:"requests"` // pending ai.push/pop/replace
	Errors      []errorJSON      `json:"errors"`   // the most recent
	ErrorCount  int              `json:"error_count"`
	Logs        []logJSON        `json:"logs"`        // this tick's
	Transitions []transitionJSON `json:"transitions"` // this tick's
	Inputs      []inputJSON      `json:"inputs"`      // current inputs of the plotted curves
}

// stepsJSON is where an active state's steps are: item (from 0; of when
// done) and the seconds in it.
type stepsJSON struct {
	State string  `json:"state"`
	Item  int     `json:"item"`
	Of    int     `json:"of"`
	Time  float64 `json:"time"`
}

type stackJSON struct {
	Machine string   `json:"machine"`
	States  []string `json:"states"` // bottom first
}

type decisionJSON struct {
	Machine    string          `json:"machine"`
	Tick       int             `json:"tick"`
	Winner     string          `json:"winner"`
	Kept       bool            `json:"kept,omitempty"`
	Momentum   float64         `json:"momentum,omitempty"`
	Candidates []candidateJSON `json:"candidates"`
}

type candidateJSON struct {
	State string     `json:"state"`
	Score any        `json:"score"` // a number, or "nan"/"inf"
	Parts []partJSON `json:"parts,omitempty"`
}

type partJSON struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

type timerJSON struct {
	State string  `json:"state"`
	Time  float64 `json:"time"`            // seconds active
	Every float64 `json:"every,omitempty"` // the state's every, when it has one
	Acc   float64 `json:"acc,omitempty"`   // seconds since its last timed update
}

type eventJSON struct {
	Name    string `json:"name"`
	Payload any    `json:"payload,omitempty"`
	From    string `json:"from,omitempty"` // "message" for ai.send_to
}

type requestJSON struct {
	Machine string `json:"machine"`
	Kind    string `json:"kind"`
	Target  string `json:"target,omitempty"`
	Payload any    `json:"payload,omitempty"`
}

type errorJSON struct {
	Tick     int    `json:"tick"`
	Callback string `json:"callback"`
	State    string `json:"state"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Msg      string `json:"msg"`
}

type logJSON struct {
	Tick  int    `json:"tick"`
	State string `json:"state"`
	Msg   string `json:"msg"`
}

type transitionJSON struct {
	Tick int    `json:"tick"`
	Kind string `json:"kind"`
	From string `json:"from"`
	To   string `json:"to"`
}

type inputJSON struct {
	State string  `json:"state"` // the candidate
	Curve int     `json:"curve"` // index among its curves
	X     float64 `json:"x"`
}

// maxShownEvents bounds the pending events and messages a frame lists.
const maxShownEvents = 100

// rows lists every agent for the page's list.
func (in *inspector) rows() []rowJSON {
	rows := make([]rowJSON, len(in.h.agents))
	for i, a := range in.h.agents {
		r := &rows[i]
		r.ID, r.Behaviour, r.Path, r.Ticks, r.Suspended = a.id, a.b.name, a.Path(), a.ticks, a.Suspended()
		if e := in.errs[a.id]; e != nil {
			r.Errors = e.count
		}
		_, r.Picked = in.watched[a.id]
	}
	return rows
}

// frame builds and encodes a followed agent's frame.
func (in *inspector) frame(a *Agent) agentFrame {
	f := frameJSON{
		ID: a.id, Tick: a.ticks, Clock: a.clock, Behaviour: a.b.name, Path: a.Path(),
		Suspended: a.Suspended(), Paused: a.Paused(),
		Context:   plainjson.Safe(a.Context()),
		Structure: in.structureOf(a.t),
	}
	// The active states, their stacks, timers, steps, trees, decisions
	// and curves.
	a.eachActive(a.t.root, func(n *node) {
		if n != a.t.root {
			f.Active = append(f.Active, n.path)
		}
		rt := a.nodes[n.id]
		if n != a.t.root {
			t := timerJSON{State: n.path, Time: rt.time}
			if n.def.Every > 0 {
				t.Every, t.Acc = n.def.Every, rt.every
			}
			f.Timers = append(f.Timers, t)
		}
		if len(n.def.Steps) > 0 {
			f.Steps = append(f.Steps, stepsJSON{State: n.path, Item: rt.step, Of: len(n.def.Steps), Time: rt.stepTime})
		}
		if n.bt != nil {
			for i, tn := range n.bt.Nodes {
				if a.bt[n.btBase+i].on {
					f.Active = append(f.Active, n.path+"["+tn.Path+"]")
				}
			}
		}
		if !n.isMachine() {
			return
		}
		st := a.ms[n.mid].stack
		if n.isFSM() && len(st) > 1 {
			names := make([]string, len(st))
			for i, c := range st {
				names[i] = n.children[c].name
			}
			f.Stacks = append(f.Stacks, stackJSON{Machine: n.path, States: names})
		}
		if n.def.Kind == luabind.KindUtility {
			if d, ok := a.decisions[n.path]; ok {
				f.Decisions = append(f.Decisions, decisionOf(d, n.def.Momentum))
			}
			f.Inputs = append(f.Inputs, curveInputs(a, n)...)
		}
	})
	// At most maxShownEvents of them: a script may queue thousands.
	for _, e := range a.incoming[:min(len(a.incoming), maxShownEvents)] {
		f.Events = append(f.Events, eventJSON{Name: clip(e.name, 200), Payload: payloadJSON(e.payload)})
	}
	for _, e := range a.inbox[:min(len(a.inbox), maxShownEvents)] {
		f.Events = append(f.Events, eventJSON{Name: clip(e.name, 200), Payload: payloadJSON(e.payload), From: "message"})
	}
	for _, m := range a.t.machines {
		r := a.ms[m.mid].req
		if !r.pending {
			continue
		}
		rq := requestJSON{Machine: m.path, Kind: r.kind.String(), Payload: payloadJSON(r.payload)}
		if r.target >= 0 && r.target < len(m.children) {
			rq.Target = m.children[r.target].name
		}
		f.Requests = append(f.Requests, rq)
	}
	if e := in.errs[a.id]; e != nil {
		f.Errors, f.ErrorCount = e.recent, e.count
	}
	if n := in.notes[a.id]; n != nil {
		f.Logs, f.Transitions = n.logs, n.transitions
	}
	return agentFrame{tick: a.ticks, structure: f.Structure, data: marshalFrame(&f)}
}

// plain converts an event's or request's payload for the page.
func payloadJSON(v lua.LValue) any {
	if v == nil || v == lua.LNil {
		return nil
	}
	return plainjson.Safe(luabind.ToGo(v))
}

func decisionOf(d Decision, momentum float64) decisionJSON {
	out := decisionJSON{Machine: d.Machine, Tick: d.Tick, Winner: d.Winner, Kept: d.Kept, Momentum: momentum}
	for _, c := range d.Candidates {
		cj := candidateJSON{State: c.State, Score: plainjson.Number(c.Score)}
		for _, p := range c.Parts {
			cj.Parts = append(cj.Parts, partJSON{Name: p.Name, Value: plainjson.Number(p.Value)})
		}
		out.Candidates = append(out.Candidates, cj)
	}
	return out
}

// curveInputs scores the inputs of the curves of utility machine n's
// candidates that run no Lua (fields, numbers), for the page to mark on
// the plots.
func curveInputs(a *Agent, n *node) []inputJSON {
	var out []inputJSON
	for _, c := range n.children {
		if c.def.Score == nil {
			continue
		}
		for i, u := range luabind.CurvesIn(c.def.Score) {
			if !u.Native {
				continue
			}
			x, err := u.Input.Score(a.w.vm, a.ctx)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			out = append(out, inputJSON{State: c.path, Curve: i, X: x})
		}
	}
	return out
}

// structureJSON is a state of a behaviour's tree, as the page draws it.
type structureJSON struct {
	Name        string            `json:"name"`
	Path        string            `json:"path"`
	Kind        string            `json:"kind"`
	Initial     string            `json:"initial,omitempty"`
	History     bool              `json:"history,omitempty"`
	Every       float64           `json:"every,omitempty"`
	DecideEvery float64           `json:"decide_every,omitempty"`
	Momentum    float64           `json:"momentum,omitempty"`
	RandomTop   int               `json:"random_top,omitempty"`
	Hooks       []string          `json:"hooks,omitempty"`
	Score       string            `json:"score,omitempty"`
	Lock        string            `json:"lock,omitempty"`
	Curves      []curveJSON       `json:"curves,omitempty"`
	Transitions []structTransJSON `json:"transitions,omitempty"`
	File        string            `json:"file,omitempty"`
	Line        int               `json:"line,omitempty"`
	Children    []*structureJSON  `json:"children,omitempty"`
	Steps       []string          `json:"steps,omitempty"` // the items, described
	StepsLoop   bool              `json:"steps_loop,omitempty"`
	Tree        *treeNodeJSON     `json:"tree,omitempty"` // an ai.tree state's nodes
}

// treeNodeJSON is a behaviour-tree node as the page draws it; path is what
// a frame's active list names it by: "state[node.path]".
type treeNodeJSON struct {
	Label string          `json:"label"`
	Name  string          `json:"name"`
	Path  string          `json:"path"`
	Kids  []*treeNodeJSON `json:"kids,omitempty"`
}

func treeStructure(n *node, i int) *treeNodeJSON {
	tn := &n.bt.Nodes[i]
	out := &treeNodeJSON{Label: tn.Def.Label(), Name: tn.Name, Path: n.btPaths[i]}
	for _, c := range tn.Kids {
		out.Kids = append(out.Kids, treeStructure(n, c))
	}
	return out
}

type structTransJSON struct {
	Kind   string  `json:"kind"`
	Target string  `json:"target,omitempty"`
	On     string  `json:"on,omitempty"`
	After  float64 `json:"after,omitempty"`
	When   string  `json:"when,omitempty"`
	Run    bool    `json:"run,omitempty"`
}

type curveJSON struct {
	Curve  string       `json:"curve"` // "logistic, k=2"
	Input  string       `json:"input"` // the scorer feeding it
	Points [][2]float64 `json:"points"`
}

// curvePoints is how many points of a curve the page plots.
const curvePoints = 41

// structureOf returns the id of t's structure, publishing it the first
// time t is met (a reload makes a new tree, hence a new structure).
func (in *inspector) structureOf(t *tree) int {
	if id, ok := in.trees[t]; ok {
		return id
	}
	in.treeSeq++
	id := in.treeSeq
	in.trees[t] = id
	data, err := json.Marshal(map[string]any{"behaviour": t.name, "root": structureNode(t.root)})
	if err != nil {
		data, _ = json.Marshal(map[string]any{"behaviour": t.name, "error": err.Error()})
	}
	if len(in.trees) > 64 {
		// Trees of old reloads: forget the oldest ids (pages that still
		// show them fetch nothing new for them).
		for old, oid := range in.trees {
			if oid <= id-64 {
				delete(in.trees, old)
			}
		}
	}
	in.shared.addStructure(id, data)
	return id
}

func structureNode(n *node) *structureJSON {
	d := n.def
	s := &structureJSON{
		Name: n.name, Path: n.path, Kind: d.Kind.String(), Every: d.Every,
		DecideEvery: d.DecideEvery, Momentum: d.Momentum, RandomTop: d.RandomTop,
		History: d.History, File: d.Pos.File, Line: d.Pos.Line,
	}
	if n.isMachine() && n.initial >= 0 {
		s.Initial = n.children[n.initial].name
	}
	for _, it := range d.Steps {
		s.Steps = append(s.Steps, it.StepLabel())
	}
	s.StepsLoop = d.StepsLoop
	if n.bt != nil {
		s.Tree = treeStructure(n, 0)
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
		for _, u := range luabind.CurvesIn(d.Score) {
			c := curveJSON{Curve: u.Curve.String(), Input: describeOr(u.Input, "function")}
			for i := range curvePoints {
				x := float64(i) / (curvePoints - 1)
				c.Points = append(c.Points, [2]float64{x, u.Curve.Eval(x)})
			}
			s.Curves = append(s.Curves, c)
		}
	}
	if d.Lock != nil {
		s.Lock = describeOr(d.Lock, "function")
	}
	for _, tr := range n.trans {
		tj := structTransJSON{Kind: tr.Kind.String(), Target: tr.Target, On: tr.On, After: tr.After, Run: tr.Run != nil}
		if tr.When != nil {
			tj.When = describeOr(tr.When, "function")
		}
		s.Transitions = append(s.Transitions, tj)
	}
	for _, c := range n.children {
		s.Children = append(s.Children, structureNode(c))
	}
	return s
}

// describeOr describes a native condition or scorer, or says what it is.
func describeOr(v any, otherwise string) string {
	if d := luabind.Describe(v); d != "" {
		return d
	}
	return otherwise
}
