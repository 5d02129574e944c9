package host

import (
	"fmt"
	"math"
	"slices"

	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// eps is the tolerance of accumulated-time comparisons: ten ticks of 0.1
// reach 1.0.
const eps = 1e-9

// Tick advances the agent by dt seconds (docs/lua-reference.md: A tick): clock, requests, decide,
// update. Callback errors are reported (Options.OnError, Agent.TakeErrors) and
// do not stop the tick; the returned error is only for misuse (a tick from
// inside the agent's own tick, a closed host, a bad dt).
//
// From a script while the host's workers run (a bound Go value), it returns
// ErrReentrant.
func (a *Agent) Tick(dt float64) error {
	if err := a.usable(); err != nil {
		return err
	}
	return a.tickOne(dt)
}

// tickOne is Tick for agent:tick from Lua, which may run inside Host.Tick:
// the agent is the caller's own, in the caller's Lua state.
func (a *Agent) tickOne(dt float64) error {
	if err := a.alive(); err != nil {
		return err
	}
	if err := checkDt(dt); err != nil {
		return err
	}
	if a.suspension != NotSuspended {
		return ErrSuspended
	}
	if !a.w.busy {
		a.h.ApplyReloads()
	}
	err := a.tick(dt, lua.LNumber(dt))
	if !a.w.busy {
		a.w.vm.Idle()
		a.h.dispatch()
	}
	return err
}

func checkDt(dt float64) error {
	if dt < 0 || math.IsNaN(dt) || math.IsInf(dt, 0) {
		return fmt.Errorf("tick: %w, got %v", ErrBadDt, dt)
	}
	return nil
}

func (a *Agent) tick(dt float64, dtv lua.LValue) error {
	if a.ticking {
		return ErrTicking
	}
	a.ticking = true
	old := a.w.vm.SetRunner(runner{a})
	a.w.vm.BeginTick()
	a.tickStopped = false
	a.logs = 0
	defer func() {
		a.endLogs()
		a.w.vm.EndTick()
		a.w.vm.SetRunner(old)
		a.cur, a.curKind, a.curScore = nil, cbNone, false
		a.ticking = false
	}()

	a.ticks++
	a.clock += dt
	a.advance(a.t.root, dt)
	for _, s := range a.syncs {
		s.in(a.w)
	}

	// Events sent before this tick are what this decide phase sees.
	a.visible, a.incoming = a.incoming, a.visible[:0]
	if len(a.inbox) > 0 { // other agents' messages after its own events
		a.visible = append(a.visible, a.inbox...)
		clear(a.inbox)
		a.inbox = a.inbox[:0]
	}

	a.applyRequests()
	p := newPending(a.visible)
	a.decide(a.t.root, &p)
	if p.cut != nil && !a.tickStopped {
		// Stopped between callbacks: no callback carried the report.
		a.report(p.cut, CallbackWhen, scripterr.NewTickBudgetError(tickBudget(a.h.opts)))
	}
	// Events no transition consumed are dropped, those a stopped decide
	// phase did not reach too (Options.AgentTickBudget).
	path, dropped := "", a.h.opts.OnEventDropped != nil
	if dropped {
		a.w.records = slices.Grow(a.w.records, p.left)
	}
	for i := range a.visible {
		if dropped && !a.visible[i].consumed {
			if path == "" {
				path = a.Path()
			}
			a.w.records = append(a.w.records, record{kind: recDropped, drop: DroppedEvent{Agent: a.id, Tick: a.ticks, Event: a.visible[i].name, State: path, Sender: a.visible[i].from}})
		}
		a.visible[i] = event{}
	}
	a.visible = a.visible[:0]
	a.update(a.t.root, dtv, dt)
	for _, s := range a.syncs {
		s.out()
	}
	return nil
}

// advance is step 0: the clock of every active (not paused) state.
func (a *Agent) advance(n *place, dt float64) {
	for {
		rt := &a.nodes[n.id]
		rt.time += dt
		rt.every += dt
		if !n.isMachine() {
			return
		}
		m := &a.ms[n.mid]
		m.decideAcc += dt
		if len(m.stack) == 0 {
			return
		}
		if n.isRegions() {
			for _, i := range m.stack {
				a.advance(n.children[i], dt)
			}
			return
		}
		n = n.children[m.stack[len(m.stack)-1]]
	}
}

// activeMachines fills a.path with the active machines, each before the
// machines below it (the active path, root first; every region of an
// ai.regions state, in name order).
func (a *Agent) activeMachines() []*place {
	a.path = a.path[:0]
	a.addActive(a.t.root)
	return a.path
}

func (a *Agent) addActive(n *place) {
	for n.isMachine() {
		a.path = append(a.path, n)
		st := a.ms[n.mid].stack
		if len(st) == 0 {
			return
		}
		if n.isRegions() {
			for _, i := range st {
				a.addActive(n.children[i])
			}
			return
		}
		n = n.children[st[len(st)-1]]
	}
}

// enter makes n active: its hook first (given payload), then (for a
// machine) its initial state, or with history the state that was on top
// when it was left (given nil).
func (a *Agent) enter(n *place, payload lua.LValue) {
	if a.w.cov != nil {
		a.cover(link.CoverState, n.id, -1)
	}
	a.nodes[n.id] = placeRT{}
	if n.bt != nil {
		a.resetTree(n)
	}
	a.hookArg(n, n.def.Enter, cbEnter, payload)
	a.evFrom = 0 // the states entered below did not handle the event
	if !n.isMachine() {
		return
	}
	m := &a.ms[n.mid]
	m.decideAcc = 0
	m.req = request{}
	m.stack = m.stack[:0]
	if n.isRegions() { // every region, in name order
		for i, c := range n.children {
			m.stack = append(m.stack, i)
			a.enter(c, lua.LNil)
		}
		return
	}
	idx := n.initial
	if n.def.History && m.history >= 0 {
		idx = m.history
	}
	if idx < 0 {
		return
	}
	m.stack = append(m.stack, idx)
	a.enter(n.children[idx], lua.LNil)
}

// exit leaves n: for a machine, every state on its stack top first (each
// deepest first), then n's own hook.
func (a *Agent) exit(n *place) {
	if n.isMachine() {
		m := &a.ms[n.mid]
		if len(m.stack) > 0 {
			m.history = m.stack[len(m.stack)-1]
		}
		for len(m.stack) > 0 {
			a.exit(n.children[m.stack[len(m.stack)-1]])
			m.stack = m.stack[:len(m.stack)-1]
		}
		m.req = request{}
		m.forget()
	}
	if n.bt != nil {
		a.resetTree(n) // halted: no Lua runs
	}
	a.hook(n, n.def.Exit, cbExit)
}

// decide is step 2, root first down the active path, offering the
// pending events p to the transitions (eventmatch.go). It stops when the
// agent's tick budget runs out.
func (a *Agent) decide(n *place, p *pending) {
	for n.isMachine() {
		if p.tickOver(a.w.vm, n) {
			return
		}
		m := &a.ms[n.mid]
		if m.blocked == a.ticks {
			return
		}
		if n.def.DecideEvery > 0 {
			if m.decideAcc+eps < n.def.DecideEvery && p.left == 0 {
				return
			}
			m.decideAcc = 0
		}
		if n.isFSM() {
			top := a.top(n)
			if !a.locked(top) && a.tryTransitions(n, top, p) {
				return
			}
			n = top
			continue
		}
		if n.isRegions() {
			a.decideRegions(n, p)
			return
		}
		a.decideUtility(n)
		if len(m.stack) == 0 {
			return
		}
		n = a.top(n)
	}
}

func (a *Agent) locked(s *place) bool {
	if s.def.Lock == nil {
		return false
	}
	return a.test(s, s.def.Lock, lua.LNil, cbLock)
}

// tryTransitions tries the transitions of s, the top state of fsm n, in
// order, and reports whether one fired. A transition on an event is
// offered the unconsumed events of that name in the order they came, until
// one passes its when: it fires with that event, which is consumed (when
// the stack rules refuse it, the next transition is tried).
func (a *Agent) tryTransitions(n, s *place, p *pending) bool {
	vm := a.w.vm
	for i := range s.trans {
		if p.tickOver(vm, s) {
			return false // the agent's tick budget: see Options.AgentTickBudget
		}
		t := &s.trans[i]
		if t.After > 0 && a.nodes[s.id].time+eps < t.After {
			continue
		}
		if t.On == "" {
			if t.When != nil && !a.test(s, t.When, lua.LNil, cbWhen) {
				continue
			}
			if a.fire(n, s, t, lua.LNil) {
				return true
			}
			continue
		}
		skipped := 0
		for j := p.named(t.On, -1); j >= 0; j = p.named(t.On, j) {
			ev := &p.ev[j]
			if ev.consumed {
				if skipped++; skipped%pollEvery == 0 && p.tickOver(vm, s) {
					return false
				}
				continue
			}
			a.evFrom, a.evName = ev.from, ev.name // for ai.sender in its when, run and enter or resume, and Transition
			a.evNil = ev.payload == nil || ev.payload == lua.LNil
			if t.When != nil && !a.test(s, t.When, ev.payload, cbWhen) {
				a.evFrom, a.evName = 0, ""
				if p.tickOver(vm, s) {
					return false
				}
				continue
			}
			fired := a.fire(n, s, t, ev.payload)
			a.evFrom, a.evName = 0, ""
			if fired {
				p.consume(j)
				return true
			}
			break
		}
	}
	return false
}

// fire applies a transition whose conditions passed, passing payload (the
// firing event's, nil without one) to the state it enters or resumes;
// false when the stack rules refuse it (reported), so the next transition
// is tried.
func (a *Agent) fire(n, s *place, t *transition, payload lua.LValue) bool {
	if a.w.cov != nil {
		a.cover(link.CoverTransition, s.id, t.index)
	}
	var err error
	switch t.Kind {
	case defs.To:
		err = a.replace(n, t.target, TransitionTo, payload, t.Run)
	case defs.Push:
		err = a.push(n, t.target, payload, t.Run)
	case defs.Pop:
		err = a.pop(n, payload, t.Run)
	case defs.Internal:
		a.action(s, t.Run, payload) // no state changes; the event is handled
	}
	if err != nil {
		if pos := transitionPos(s, t); pos.Line > 0 {
			// Said at the transition's line, not the machine's.
			err = fmt.Errorf("%s: %w", pos, err)
		}
		a.report(s, CallbackTransition, err)
		return false
	}
	return true
}

// transitionPos is where transition t of state s is written: its entry in
// the script when the file can be read (found once, then kept), else where
// the definition was made.
func transitionPos(s *place, t *transition) scripterr.Pos {
	if t.at.Line > 0 {
		return t.at
	}
	t.at = t.Pos
	if s.parent != nil {
		place, ok := defs.NewSources().Children(s.parent.def)[s.name]
		if ok && t.index < len(place.Trans) && place.Trans[t.index].Line > 0 {
			t.at = place.Trans[t.index]
		}
	}
	return t.at
}

// update is step 3: root first down the active path (every region, in
// name order), honouring every.
func (a *Agent) update(n *place, dt lua.LValue, fdt float64) {
	for {
		if n.hasBody {
			rt := &a.nodes[n.id]
			if every := n.def.Every; every <= 0 {
				a.body(n, dt, fdt)
			} else if rt.every+eps >= every {
				acc := rt.every
				rt.every = 0
				a.body(n, lua.LNumber(acc), acc)
			}
		}
		if !n.isMachine() {
			return
		}
		st := a.ms[n.mid].stack
		if len(st) == 0 {
			return
		}
		if n.isRegions() {
			for _, i := range st {
				a.update(n.children[i], dt, fdt)
			}
			return
		}
		n = n.children[st[len(st)-1]]
	}
}

// --- protected calls, with the running state set for the functions usable inside callbacks ---

func (a *Agent) setCur(n *place, k callback) (*place, callback, bool) {
	pn, pk, ps := a.cur, a.curKind, a.curScore
	a.cur, a.curKind, a.curScore = n, k, false
	return pn, pk, ps
}

// hook runs a hook that takes only the context: fn(ctx).
func (a *Agent) hook(n *place, fn *lua.LFunction, k callback) { a.hookArg(n, fn, k, nil) }

// action runs a transition's run(ctx, payload), as the callback "run" of
// the state the transition leaves (or stays in).
func (a *Agent) action(n *place, fn *lua.LFunction, payload lua.LValue) {
	a.hookArg(n, fn, cbRun, payload)
}

// hookArg runs a hook: fn(ctx, payload) for enter, resume and run, or
// fn(ctx) when payload is Go nil.
func (a *Agent) hookArg(n *place, fn *lua.LFunction, k callback, payload lua.LValue) {
	if fn == nil {
		return
	}
	pn, pk, ps := a.setCur(n, k)
	var err error
	if payload == nil {
		err = a.w.vm.CallHook(fn, a.ctx, false, 0)
	} else {
		err = a.w.vm.CallUpdate(fn, a.ctx, payload)
	}
	a.cur, a.curKind, a.curScore = pn, pk, ps
	if err != nil {
		a.report(n, Callback(k.String()), err)
	}
}

func (a *Agent) hookDt(n *place, fn *lua.LFunction, dt lua.LValue) {
	pn, pk, ps := a.setCur(n, cbUpdate)
	err := a.w.vm.CallUpdate(fn, a.ctx, dt)
	a.cur, a.curKind, a.curScore = pn, pk, ps
	if err != nil {
		a.report(n, CallbackUpdate, err)
	}
}

func (a *Agent) test(n *place, c defs.Cond, payload lua.LValue, k callback) bool {
	pn, pk, ps := a.setCur(n, k)
	var ok bool
	var err error
	if a.w.prof == nil {
		ok, err = c.Test(a.w.vm, a.ctx, payload)
	} else {
		ok, err = a.testProfiled(c, payload)
	}
	a.cur, a.curKind, a.curScore = pn, pk, ps
	if err != nil {
		a.report(n, Callback(k.String()), err)
		return false
	}
	return ok
}
