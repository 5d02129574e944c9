package host

// Observers: tools attached to a running host (the web inspector, a
// recorder) that are told what it does, on the goroutine that owns it, and
// may follow some agents in full. The host knows nothing of what they do
// with it.

// Observer is what a tool attached with Host.Observe is told. Every func
// is optional and called on the goroutine that owns the host, inside Tick;
// none may call Tick. Transitions and log lines are recorded only for the
// agents an observation follows (or for all when Options.OnTransition or
// OnLog is set), so the hooks may also receive other agents'. A Tick
// called from a hook returns ErrReentrant.
type Observer struct {
	// BeforeTick is called at the start of every Tick, before the pause
	// check: the place to apply what the tool queued for the game (sends,
	// sets, Host.Pause, Step, Resume).
	BeforeTick func()
	// AfterTick is called at the end of every Tick, after the hooks of
	// Options; ran is false for a tick the pause refused.
	AfterTick func(ran bool)
	// Transition receives what Options.OnTransition receives.
	Transition func(Transition)
	// Error receives every script error, never throttled (Options.OnError
	// is).
	Error func(*ScriptError)
	// Log receives ai.log lines, as Options.OnLog does.
	Log func(Log)
}

// Observation is an Observer attached to a host: Host.Observe returns it.
// Use it on the goroutine that owns the host.
type Observation struct {
	h        *Host
	o        Observer
	followed map[*Agent]bool
	lastN    int // agents at the last RosterChanged
	lastSeq  int // h.roster then
	closed   bool
}

// Observe attaches o to h until the returned Observation is closed. Call
// it on the goroutine that owns h.
func (h *Host) Observe(o Observer) *Observation {
	ob := &Observation{h: h, o: o, followed: map[*Agent]bool{}, lastN: -1}
	h.observers = append(h.observers, ob)
	return ob
}

// Follow makes the host keep a's utility decisions (Agent.LastDecision)
// and record its transitions and log lines for the observers while on is
// true, whatever the hooks of Options; it costs what watching costs.
// Following an agent twice is following it once. A removed agent is
// forgotten. It returns ErrWrongHost for an agent of another host, and
// ErrReentrant from a script while the workers run (Follow belongs to the
// goroutine that owns the host, between ticks).
func (ob *Observation) Follow(a *Agent, on bool) error {
	switch {
	case a == nil || a.h != ob.h:
		return ErrWrongHost
	case ob.h.running:
		return ErrReentrant
	}
	ob.follow(a, on)
	return nil
}

func (ob *Observation) follow(a *Agent, on bool) {
	if ob.closed || on == ob.followed[a] {
		return
	}
	if on {
		ob.followed[a] = true
		a.followers++
		return
	}
	delete(ob.followed, a)
	a.followers--
	if a.followers == 0 && !a.watch {
		a.decisions = nil
	}
}

// Following reports whether ob follows a.
func (ob *Observation) Following(a *Agent) bool { return ob.followed[a] }

// RosterChanged reports whether agents were spawned, restored or removed
// since the last call (true on the first).
func (ob *Observation) RosterChanged() bool {
	h := ob.h
	changed := len(h.agents) != ob.lastN || h.roster != ob.lastSeq
	ob.lastN, ob.lastSeq = len(h.agents), h.roster
	return changed
}

// Close detaches ob: its hooks are no longer called and the agents it
// followed are no longer followed for it.
func (ob *Observation) Close() {
	if ob.closed {
		return
	}
	for a := range ob.followed {
		ob.follow(a, false)
	}
	ob.closed = true
	h := ob.h
	for k, x := range h.observers {
		if x == ob {
			h.observers = append(h.observers[:k:k], h.observers[k+1:]...)
			break
		}
	}
}

// observeBefore and observeAfter call the observers at the start and end
// of a tick.
func (h *Host) observeBefore() {
	h.dispatch1 = true
	defer func() { h.dispatch1 = false }()
	for _, ob := range h.observers {
		if ob.o.BeforeTick != nil {
			ob.o.BeforeTick()
		}
	}
}

func (h *Host) observeAfter(ran bool) {
	h.dispatch1 = true
	defer func() { h.dispatch1 = false }()
	for _, ob := range h.observers {
		for a := range ob.followed {
			if a.removed {
				ob.follow(a, false)
			}
		}
		if ob.o.AfterTick != nil {
			ob.o.AfterTick(ran)
		}
	}
}
