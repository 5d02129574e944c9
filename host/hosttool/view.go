package hosttool

import (
	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/internal/link"
)

// MaxViewEvents bounds the pending events (and, apart, the messages) an
// AgentView lists: a script may queue thousands.
const MaxViewEvents = 100

// AgentView is what an agent is between ticks, beyond what its own methods
// (Path, PausedStates, Context, Suspended, Ticks, Clock) say.
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
	host.Decision
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
// between ticks, or from the agent's own callbacks (host.Caller); for a
// removed agent it is the zero AgentView.
//
// While the workers tick, only the agent's own callbacks may read it (as
// with the agent's read methods): any other caller gets the zero
// AgentView, and the first refusal of each behaviour is reported to
// host.Options.OnError.
func View(a *host.Agent) AgentView {
	v := link.Funcs.View(a)
	return AgentView{
		Active: v.Active,
		Stacks: mapSlice(v.Stacks, func(x link.StackView) StackView { return StackView(x) }),
		Timers: mapSlice(v.Timers, func(x link.TimerView) TimerView { return TimerView(x) }),
		Steps:  mapSlice(v.Steps, func(x link.StepsView) StepsView { return StepsView(x) }),
		Decisions: mapSlice(v.Decisions, func(x link.DecisionView) DecisionView {
			d, _ := x.Decision.(host.Decision)
			return DecisionView{Decision: d, Momentum: x.Momentum}
		}),
		Inputs:   mapSlice(v.Inputs, func(x link.CurveInput) CurveInput { return CurveInput(x) }),
		Events:   mapSlice(v.Events, func(x link.PendingEvent) PendingEvent { return PendingEvent(x) }),
		Requests: mapSlice(v.Requests, func(x link.PendingRequest) PendingRequest { return PendingRequest(x) }),
	}
}
