package host

// Observers: tools attached to a running host (the web inspector, a
// recorder) that are told what it does, on the goroutine that owns it, and
// may follow some agents in full. The host knows nothing of what they do
// with it.

import "github.com/luaai/luaai/host/internal/link"

// observer is a hosttool.Observer: what a tool attached with
// hosttool.Observe is told, on the goroutine that owns the host, inside
// Tick.
type observer struct {
	beforeTick func()
	afterTick  func(ran bool)
	transition func(Transition)
	err        func(*ScriptError)
	log        func(Log)
}

// observation is an observer attached to a host (hosttool.Observation).
type observation struct {
	h        *Host
	o        observer
	followed map[*Agent]bool
	lastN    int // agents at the last RosterChanged
	lastSeq  int // h.roster then
	closed   bool
}

// observe is hosttool.Observe. The funcs of o are nil or of the types
// link.Observer names.
func (h *Host) observe(lo link.Observer) *observation {
	o := observer{beforeTick: lo.BeforeTick, afterTick: lo.AfterTick}
	o.transition, _ = lo.Transition.(func(Transition))
	o.err, _ = lo.Error.(func(*ScriptError))
	o.log, _ = lo.Log.(func(Log))
	ob := &observation{h: h, o: o, followed: map[*Agent]bool{}, lastN: -1}
	h.observers = append(h.observers, ob)
	return ob
}

// Follow is hosttool.Observation.Follow.
func (ob *observation) Follow(x any, on bool) error {
	a, _ := x.(*Agent)
	switch {
	case a == nil || a.h != ob.h:
		return ErrWrongHost
	case ob.h.running:
		return ErrReentrant
	}
	ob.follow(a, on)
	return nil
}

func (ob *observation) follow(a *Agent, on bool) {
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
func (ob *observation) Following(a any) bool {
	x, _ := a.(*Agent)
	return ob.followed[x]
}

// RosterChanged reports whether agents were spawned, restored or removed
// since the last call (true on the first).
func (ob *observation) RosterChanged() bool {
	h := ob.h
	changed := len(h.agents) != ob.lastN || h.roster != ob.lastSeq
	ob.lastN, ob.lastSeq = len(h.agents), h.roster
	return changed
}

// Close detaches ob: its hooks are no longer called and the agents it
// followed are no longer followed for it.
func (ob *observation) Close() {
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
		if ob.o.beforeTick != nil {
			ob.o.beforeTick()
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
		if ob.o.afterTick != nil {
			ob.o.afterTick(ran)
		}
	}
}
