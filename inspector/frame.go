package inspector

// What the inspector publishes: a row per agent for the list, a frame per
// followed agent, and the structure of each behaviour it runs. Built on the
// game goroutine, between ticks; encoded to JSON there so that the HTTP
// side holds bytes, not Lua values.

import (
	"encoding/json"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/internal/plainjson"
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
	Interval    int              `json:"interval"` // ticked every Interval-th host tick
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
	From    string `json:"from,omitempty"`   // "message" for ai.send_to
	Sender  int    `json:"sender,omitempty"` // the agent that sent it (ai.sender()); absent: the game
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

// rows lists every agent for the page's list.
func (in *inspector) rows() []rowJSON {
	rows := make([]rowJSON, 0, in.h.Len())
	for a := range in.h.All() {
		r := rowJSON{ID: a.ID(), Behaviour: a.Behaviour().Name(), Path: a.Path(), Ticks: a.Ticks(), Suspended: a.Suspended()}
		if e := in.errs[r.ID]; e != nil {
			r.Errors = e.count
		}
		_, r.Picked = in.watched[r.ID]
		rows = append(rows, r)
	}
	return rows
}

// frame builds and encodes a followed agent's frame.
func (in *inspector) frame(a *host.Agent) agentFrame {
	v := hosttool.View(a)
	f := frameJSON{
		ID: a.ID(), Tick: a.Ticks(), Clock: a.Clock(), Behaviour: a.Behaviour().Name(), Path: a.Path(),
		Suspended: a.Suspended(), Paused: a.PausedStates(), Active: v.Active, Interval: a.Interval(),
		Context:   plainjson.Safe(a.Context()),
		Structure: in.structureOf(a.Behaviour()),
	}
	for _, t := range v.Timers {
		f.Timers = append(f.Timers, timerJSON{State: t.State, Time: t.Time, Every: t.Every, Acc: t.Acc})
	}
	for _, st := range v.Steps {
		f.Steps = append(f.Steps, stepsJSON{State: st.State, Item: st.Item, Of: st.Of, Time: st.Time})
	}
	for _, st := range v.Stacks {
		f.Stacks = append(f.Stacks, stackJSON{Machine: st.Machine, States: st.States})
	}
	for _, d := range v.Decisions {
		f.Decisions = append(f.Decisions, decisionOf(d))
	}
	for _, x := range v.Inputs {
		f.Inputs = append(f.Inputs, inputJSON{State: x.State, Curve: x.Curve, X: x.X})
	}
	for _, e := range v.Events {
		ej := eventJSON{Name: clip(e.Name, 200), Payload: plainjson.Safe(e.Payload), Sender: e.Sender}
		if e.Message {
			ej.From = "message"
		}
		f.Events = append(f.Events, ej)
	}
	for _, r := range v.Requests {
		f.Requests = append(f.Requests, requestJSON{Machine: r.Machine, Kind: r.Kind, Target: r.Target, Payload: plainjson.Safe(r.Payload)})
	}
	if e := in.errs[f.ID]; e != nil {
		f.Errors, f.ErrorCount = e.recent, e.count
	}
	if n := in.notes[f.ID]; n != nil {
		f.Logs, f.Transitions = n.logs, n.transitions
	}
	return agentFrame{tick: f.Tick, structure: f.Structure, data: marshalFrame(&f)}
}

func decisionOf(d hosttool.DecisionView) decisionJSON {
	out := decisionJSON{Machine: d.Machine, Tick: d.Tick, Winner: d.Winner, Kept: d.Kept, Momentum: d.Momentum}
	for _, c := range d.Candidates {
		cj := candidateJSON{State: c.State, Score: plainjson.Number(c.Score)}
		for _, p := range c.Parts {
			cj.Parts = append(cj.Parts, partJSON{Name: p.Name, Value: plainjson.Number(p.Value)})
		}
		out.Candidates = append(out.Candidates, cj)
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

func treeNode(n *hosttool.TreeNodeInfo) *treeNodeJSON {
	out := &treeNodeJSON{Label: n.Label, Name: n.Name, Path: n.Path}
	for _, k := range n.Kids {
		out.Kids = append(out.Kids, treeNode(k))
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
	Name   string  `json:"name"` // as a coverage file names it
}

type curveJSON struct {
	Curve  string       `json:"curve"` // "logistic, k=2"
	Input  string       `json:"input"` // the scorer feeding it
	Points [][2]float64 `json:"points"`
}

// curvePoints is how many points of a curve the page plots.
const curvePoints = 41

// structureOf returns the id of b's structure, publishing it the first
// time it is met (a reload makes a new structure).
func (in *inspector) structureOf(b *host.Behaviour) int {
	info := hosttool.Structure(b)
	if id, ok := in.structures[info]; ok {
		return id
	}
	in.structSeq++
	id := in.structSeq
	in.structures[info] = id
	data, err := json.Marshal(map[string]any{"behaviour": b.Name(), "root": structureNode(info)})
	if err != nil {
		data, _ = json.Marshal(map[string]any{"behaviour": b.Name(), "error": err.Error()})
	}
	if len(in.structures) > 64 {
		// Structures of old reloads: forget the oldest ids (pages that
		// still show them fetch nothing new for them).
		for old, oid := range in.structures {
			if oid <= id-64 {
				delete(in.structures, old)
			}
		}
	}
	in.shared.addStructure(id, data)
	return id
}

func structureNode(n *hosttool.StateInfo) *structureJSON {
	s := &structureJSON{
		Name: n.Name, Path: n.Path, Kind: n.Kind, Initial: n.Initial, History: n.History,
		Every: n.Every, DecideEvery: n.DecideEvery, Momentum: n.Momentum, RandomTop: n.RandomTop,
		Hooks: n.Hooks, Score: n.Score, Lock: n.Lock, File: n.File, Line: n.Line,
		Steps: n.Steps, StepsLoop: n.StepsLoop,
	}
	if n.Tree != nil {
		s.Tree = treeNode(n.Tree)
	}
	for _, u := range n.Curves {
		c := curveJSON{Curve: u.Curve, Input: u.Input}
		for i := range curvePoints {
			x := float64(i) / (curvePoints - 1)
			c.Points = append(c.Points, [2]float64{x, u.Eval(x)})
		}
		s.Curves = append(s.Curves, c)
	}
	for _, t := range n.Transitions {
		s.Transitions = append(s.Transitions, structTransJSON{Kind: t.Kind, Target: t.Target, On: t.On, After: t.After, When: t.When, Run: t.Run, Name: t.Name})
	}
	for _, c := range n.Children {
		s.Children = append(s.Children, structureNode(c))
	}
	return s
}
