// Package link carries what package hosttool reads of a host without host
// exporting it: plain data that host fills, and functions host registers
// when it is initialised. Handles (a host, an agent, a behaviour) travel as
// any; hosttool passes only the pointers host handed out.
package link

import (
	"fmt"
	"reflect"
	"time"

	"github.com/luaai/luaai/luabind/defs"
)

// Funcs are the functions host registers in its init; hosttool calls them.
var Funcs struct {
	View          func(a any) AgentView
	Structure     func(b any, build func(*StateInfo) any) any
	Definition    func(b any) *defs.State
	RunLua        func(h any, fn func(*defs.VM) error) error
	Coverage      func(h any) []BehaviourCoverage
	CoverageHits  func(h any, fn func(CoverageItem))
	ResetCoverage func(h any)
	Profile       func(h any) Profile
	Observe       func(h any, o Observer) Observation
}

// Observer is hosttool.Observer with host's types as any: Transition is a
// func(host.Transition), Error a func(*host.ScriptError), Log a
// func(host.Log), each nil or of that type.
type Observer struct {
	BeforeTick func()
	AfterTick  func(ran bool)
	Transition any
	Error      any
	Log        any
}

// Observation is an attached Observer; the agents are *host.Agent.
type Observation interface {
	Follow(a any, on bool) error
	Following(a any) bool
	RosterChanged() bool
	Close()
}

// AgentView and the types below mirror hosttool's, field for field.
type AgentView struct {
	Active    []string
	Stacks    []StackView
	Timers    []TimerView
	Steps     []StepsView
	Decisions []DecisionView
	Inputs    []CurveInput
	Events    []PendingEvent
	Requests  []PendingRequest
}

type StackView struct {
	Machine string
	States  []string
}

type TimerView struct {
	State string
	Time  float64
	Every float64
	Acc   float64
}

type StepsView struct {
	State string
	Item  int
	Of    int
	Time  float64
}

// DecisionView's Decision is a host.Decision.
type DecisionView struct {
	Decision any
	Momentum float64
}

type CurveInput struct {
	State string
	Curve int
	X     float64
}

type PendingEvent struct {
	Name    string
	Payload any
	Message bool
	Sender  int
}

type PendingRequest struct {
	Machine string
	Kind    string
	Target  string
	Payload any
}

type StateInfo struct {
	Name, Path  string
	Kind        string
	Initial     string
	History     bool
	Every       float64
	DecideEvery float64
	Momentum    float64
	RandomTop   int
	Hooks       []string
	Score, Lock string
	Curves      []CurveInfo
	Transitions []TransitionInfo
	File        string
	Line        int
	Steps       []string
	StepsLoop   bool
	Final       bool
	Tree        *TreeNodeInfo
	Children    []*StateInfo
}

type CurveInfo struct {
	Curve string
	Input string
	Eval  func(x float64) float64
}

type TransitionInfo struct {
	Kind   string
	Target string
	On     string
	After  float64
	When   string
	Run    bool
	Name   string
}

type TreeNodeInfo struct {
	Label string
	Name  string
	Path  string
	Kids  []*TreeNodeInfo
}

// CoverKind is what a CoverageItem counts; hosttool.CoverKind has the
// same values.
type CoverKind uint8

// The coverage kinds, in hosttool's order.
const (
	CoverState CoverKind = iota
	CoverTransition
	CoverTreeNode
	CoverStep
	CoverChoice
)

var coverNames = [...]string{"state", "transition", "tree node", "step", "choice"}

func (k CoverKind) String() string {
	if int(k) < len(coverNames) {
		return coverNames[k]
	}
	return fmt.Sprintf("CoverKind(%d)", k)
}

type CoverageItem struct {
	Kind CoverKind
	Name string
	File string
	Line int
	Hits int
}

type BehaviourCoverage struct {
	File  string
	Items []CoverageItem
}

// ProfileEntry's Callback is a host.Callback's text.
type ProfileEntry struct {
	Native   string
	Compiled bool
	File     string
	Line     int
	Callback string
	State    string
	Calls    int
	Total    time.Duration
}

type Profile struct {
	Entries   []ProfileEntry
	Ticks     int
	InTicks   time.Duration
	InLua     time.Duration
	InNatives time.Duration
}

// KindOf names the Lua type plain data becomes: "a number", "a string",
// "a boolean", "a table" or "nil"; otherwise its Go type.
func KindOf(v any) string {
	if v == nil {
		return "nil"
	}
	switch reflect.ValueOf(v).Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Map, reflect.Slice, reflect.Array:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}
