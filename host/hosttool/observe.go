package hosttool

import (
	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/internal/link"
)

// Observer is what a tool attached with Observe is told. Every func is
// optional and called on the goroutine that owns the host, inside Tick;
// none may call Tick (it returns host.ErrReentrant there). Transitions and
// log lines are recorded only for the agents an observation follows (or
// for all when host.Options.OnTransition or OnLog is set), so the hooks may
// also receive other agents'.
type Observer struct {
	// BeforeTick is called at the start of every Tick, before the pause
	// check: the place to apply what the tool queued for the game (sends,
	// sets, Host.Pause, Step, Resume).
	BeforeTick func()
	// AfterTick is called at the end of every Tick, after the hooks of
	// host.Options; ran is false for a tick the pause refused.
	AfterTick func(ran bool)
	// Transition receives what host.Options.OnTransition receives.
	Transition func(host.Transition)
	// Error receives every script error, never throttled
	// (host.Options.OnError is).
	Error func(*host.ScriptError)
	// Log receives ai.log lines, as host.Options.OnLog does.
	Log func(host.Log)
}

// Observation is an Observer attached to a host: Observe returns it. Use
// it on the goroutine that owns the host.
type Observation struct{ ob link.Observation }

// Observe attaches o to h until the returned Observation is closed. Call
// it on the goroutine that owns h.
func Observe(h *host.Host, o Observer) *Observation {
	lo := link.Observer{BeforeTick: o.BeforeTick, AfterTick: o.AfterTick}
	if o.Transition != nil {
		lo.Transition = o.Transition
	}
	if o.Error != nil {
		lo.Error = o.Error
	}
	if o.Log != nil {
		lo.Log = o.Log
	}
	return &Observation{link.Funcs.Observe(h, lo)}
}

// Follow makes the host keep a's utility decisions (Agent.LastDecision)
// and record its transitions and log lines for the observers while on is
// true, whatever the hooks of host.Options; it costs what watching costs.
// Following an agent twice is following it once. A removed agent is
// forgotten. It returns host.ErrWrongHost for an agent of another host,
// and host.ErrReentrant from a script while the workers run (Follow
// belongs to the goroutine that owns the host, between ticks).
func (o *Observation) Follow(a *host.Agent, on bool) error {
	if a == nil {
		return host.ErrWrongHost
	}
	return o.ob.Follow(a, on)
}

// Following reports whether o follows a.
func (o *Observation) Following(a *host.Agent) bool { return a != nil && o.ob.Following(a) }

// RosterChanged reports whether agents were spawned, restored or removed
// since the last call (true on the first).
func (o *Observation) RosterChanged() bool { return o.ob.RosterChanged() }

// Close detaches o: its hooks are no longer called and the agents it
// followed are no longer followed for it.
func (o *Observation) Close() { o.ob.Close() }
