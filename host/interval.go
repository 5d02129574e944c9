package host

// Tick rates (level of detail for AI): an agent ticked every k-th host
// tick, spread evenly over the host's ticks by agent id.

import (
	"errors"
	"fmt"
)

// ErrBadInterval: a tick interval below 1 (Agent.SetInterval,
// SpawnOptions.Interval).
var ErrBadInterval = errors.New("tick interval must be an integer ≥ 1")

// Interval is the agent's tick interval k: Host.Tick ticks it on the host
// ticks whose number n (TickNumber) makes (n + id) mod k == 0, so about
// 1/k of the agents with interval k tick on each host tick. 1 (every host
// tick) unless SpawnOptions.Interval or SetInterval said otherwise. It is
// served to every caller, also while the workers tick (it changes only
// between ticks); scripts read it with ai.interval().
func (a *Agent) Interval() int {
	if a.interval < 1 {
		return 1
	}
	return a.interval
}

// SetInterval sets the agent's tick interval k (see Interval): the game
// decides which agents tick less often (far from the players, off
// screen). It takes effect from the next host tick. The agent's dt, at
// each of its ticks, is the sum of the host ticks' dt since its previous
// tick, so its clock, timers and waits see real time; what it is owed when
// the interval changes is kept and handed over at its next tick. Events
// and messages for it wait for its tick. Snapshots keep the interval, and
// so does a reload.
//
// A k below 1 is an error wrapping ErrBadInterval and changes nothing.
// Like the other methods that change agents, it returns ErrReentrant while
// the workers run scripts, and ErrClosed for a removed agent.
func (a *Agent) SetInterval(k int) error {
	if err := a.usable(); err != nil {
		return err
	}
	if k < 1 {
		return fmt.Errorf("agent %d: interval %d: %w", a.id, k, ErrBadInterval)
	}
	a.interval = k
	return nil
}

// TickNumber is the number of host ticks the host has run (Tick and
// TickContext, a tick cut short included; not a tick refused while
// paused): the number of the last one, the first being 1. Agents with an
// interval above 1 are ticked by it (see Agent.Interval).
func (h *Host) TickNumber() int { return h.tickNo }

// savedInterval is the interval a snapshot records: 0 (left out) for 1,
// so the snapshots of agents that tick every host tick stay as they were.
func (a *Agent) savedInterval() int {
	if a.interval <= 1 {
		return 0
	}
	return a.interval
}

// due tells whether Host.Tick ticks the agent on host tick n.
func (a *Agent) due(n int) bool {
	k := a.interval
	return k <= 1 || (n+a.id)%k == 0
}

// Interval is ai.interval(): the running agent's tick interval.
func (r runner) Interval() int { return r.a.Interval() }
