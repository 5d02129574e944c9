package host

// The stack of an fsm (docs/lua-reference.md: A tick, step 1; Transitions): ai.push,
// ai.pop and ai.replace asked for by hooks are requests, applied at the
// start of the next tick, innermost machine first; the same push, pop and
// replace carry out the transitions that name them. Here too: how a stack
// and a pending request are saved, restored, carried over a reload and
// shown (hosttool.View).

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// request is a push, pop or replace asked for by ai.push/ai.pop/ai.replace,
// applied at the start of the next tick.
type request struct {
	pending bool
	kind    defs.TransitionKind // Push, Pop or Replace
	target  int                 // child index; -1 for Pop
	where   string              // "file:line: " of the ai.* call, for an error when it is applied
	payload lua.LValue          // for the entered state's enter, or (Pop) the resumed state's resume
}

// Request asks for a push, pop or replace on the nearest fsm holding the
// running state, applied at the start of the next tick.
func (r runner) Request(kind defs.TransitionKind, name string, payload lua.LValue) error {
	a := r.a
	if !a.curKind.isHook() {
		return fmt.Errorf("in %s: %w", a.curKind, ErrNotInHook)
	}
	m := a.cur.fsm
	if m == nil {
		return fmt.Errorf("state %q: %w", a.cur.path, ErrNoMachine)
	}
	req := request{pending: true, kind: kind, target: -1, where: a.w.vm.L.Where(1), payload: payload}
	if kind != defs.Pop {
		req.target = m.def.Child(name)
		if req.target < 0 {
			where := m.path
			if where == "" {
				where = "the root machine"
			}
			return fmt.Errorf("%q is not a state of %s: %w", name, where, ErrUnknownState)
		}
	}
	a.ms[m.mid].req = req
	a.requested = true
	return nil
}

// applyRequests is step 1: pending ai.push/pop/replace, innermost first.
//
// An agent none of whose machines holds one (requested is false) has
// nothing to apply: the active path is not walked.
func (a *Agent) applyRequests() {
	if !a.requested {
		return
	}
	defer a.noteRequests()
	path := a.activeMachines()
	if a.t.regions {
		// Innermost machine first, then in region name order (the path is
		// in pre-order, regions in name order: a stable sort by depth).
		slices.SortStableFunc(path, func(x, y *place) int { return y.depth - x.depth })
		for _, n := range path {
			a.applyRequest(n)
		}
		return
	}
	for i := len(path) - 1; i >= 0; i-- { // one branch: innermost first
		a.applyRequest(path[i])
	}
}

// noteRequests sets requested to whether any machine of the agent holds a
// pending request: one made while the requests were applied, or one on a
// machine off the active path (paused in a stack), applied when it is back.
func (a *Agent) noteRequests() {
	a.requested = false
	for i := range a.ms {
		if a.ms[i].req.pending {
			a.requested = true
			return
		}
	}
}

// applyRequest applies the pending request of machine n, if any.
func (a *Agent) applyRequest(n *place) {
	m := &a.ms[n.mid]
	req := m.req
	if !req.pending {
		return
	}
	m.req = request{}
	var err error
	switch req.kind {
	case defs.Push:
		err = a.push(n, req.target, req.payload, nil)
	case defs.Pop:
		err = a.pop(n, req.payload, nil)
	case defs.Replace:
		err = a.replace(n, req.target, TransitionReplace, req.payload, nil)
	}
	if err != nil {
		// Said where the modder asked for it, not where the state is.
		a.report(a.top(n), CallbackTransition, fmt.Errorf("%sai.%s: %w", req.where, req.kind, err))
		return
	}
	m.blocked = a.ticks
}

func (a *Agent) top(n *place) *place {
	st := a.ms[n.mid].stack
	if len(st) == 0 {
		return n
	}
	return n.children[st[len(st)-1]]
}

func (a *Agent) onStack(n *place, idx int) bool {
	for _, i := range a.ms[n.mid].stack {
		if i == idx {
			return true
		}
	}
	return false
}

// onStackHint says why child idx of fsm n is paused on its stack and how a
// script gets back to it: the pushdown pitfall is a state pushed over it
// that left with to, which replaced the top and kept idx paused below.
func (a *Agent) onStackHint(n *place, idx int) string {
	st := a.ms[n.mid].stack
	name := n.children[idx].name
	top := n.children[st[len(st)-1]].name
	var at []string
	c := n.children[idx]
	for i := range c.trans {
		if t := &c.trans[i]; t.Kind == defs.Push {
			if pos := transitionPos(c, t); pos.Line > 0 {
				at = append(at, pos.String())
			}
		}
	}
	pushed := "by ai.push in its code"
	if len(at) > 0 {
		pushed = "at " + strings.Join(at, ", ")
	}
	return fmt.Sprintf(": %q is paused below %q since a state was pushed over it (pushed over it %s); "+
		"a pushed state that leaves with to replaces itself and keeps %q paused: "+
		"leave a pushed state with pop = true (or ai.pop()) to resume %q",
		name, top, pushed, name, name)
}

// replace exits the top state of fsm n and enters child idx. Naming the
// active state changes nothing; naming a paused one is refused.
// run is a transition's action: it runs after the exits and before the
// enters, and also on a transition to the active state.
func (a *Agent) replace(n *place, idx int, kind TransitionKind, payload lua.LValue, run *lua.LFunction) error {
	m := &a.ms[n.mid]
	cur := m.stack[len(m.stack)-1]
	if cur == idx {
		a.action(n.children[cur], run, payload)
		return nil
	}
	if a.onStack(n, idx) {
		return fmt.Errorf("%s %q: %w%s", kind, n.children[idx].name, ErrOnStack, a.onStackHint(n, idx))
	}
	from := n.children[cur]
	a.exit(from)
	m.stack = m.stack[:len(m.stack)-1]
	a.between(n, from, run, payload)
	m.stack = append(m.stack, idx)
	to := n.children[idx]
	a.emit(kind, from, to)
	a.enter(to, payload)
	return nil
}

// push pauses the top state of fsm n and enters child idx above it.
func (a *Agent) push(n *place, idx int, payload lua.LValue, run *lua.LFunction) error {
	m := &a.ms[n.mid]
	cur := m.stack[len(m.stack)-1]
	if cur == idx {
		a.action(n.children[cur], run, payload)
		return nil
	}
	if a.onStack(n, idx) {
		return fmt.Errorf("push %q: %w%s", n.children[idx].name, ErrOnStack, a.onStackHint(n, idx))
	}
	if len(m.stack) >= a.h.opts.MaxStackDepth {
		return fmt.Errorf("push %q onto %d states: %w (MaxStackDepth %d)", n.children[idx].name, len(m.stack), ErrStackDepth, a.h.opts.MaxStackDepth)
	}
	covered := n.children[cur]
	a.hook(covered, covered.def.Pause, cbPause)
	a.between(n, covered, run, payload)
	m.stack = append(m.stack, idx)
	to := n.children[idx]
	a.emit(TransitionPush, covered, to)
	a.enter(to, payload)
	return nil
}

// between runs a transition's action while fsm n is between states: the
// state left (or paused) is no longer active and the next not yet, so
// ai.state() ends at n and ai.active of the old state is false (states
// paused below stay paused).
func (a *Agent) between(n, from *place, run *lua.LFunction, payload lua.LValue) {
	if run == nil {
		return
	}
	prev := a.gap
	a.gap = n
	a.action(from, run, payload)
	a.gap = prev
}

// pop exits the top state of fsm n and resumes the one below.
func (a *Agent) pop(n *place, payload lua.LValue, run *lua.LFunction) error {
	m := &a.ms[n.mid]
	if len(m.stack) < 2 {
		return fmt.Errorf("pop %q: %w", n.children[m.stack[len(m.stack)-1]].name, ErrEmptyStack)
	}
	from := n.children[m.stack[len(m.stack)-1]]
	a.exit(from)
	m.stack = m.stack[:len(m.stack)-1]
	a.between(n, from, run, payload)
	to := n.children[m.stack[len(m.stack)-1]]
	a.emit(TransitionPop, from, to)
	a.hookArg(to, to.def.Resume, cbResume, payload)
	return nil
}

// stackView adds fsm n's stack when more than one state is on it.
func (a *Agent) stackView(n *place, v *link.AgentView) {
	st := a.ms[n.mid].stack
	if !n.isFSM() || len(st) < 2 {
		return
	}
	names := make([]string, len(st))
	for i, c := range st {
		names[i] = n.children[c].name
	}
	v.Stacks = append(v.Stacks, link.StackView{Machine: n.path, States: names})
}

// requestsView adds the pending requests of every machine.
func (a *Agent) requestsView(v *link.AgentView) {
	for _, m := range a.t.machines {
		r := a.ms[m.mid].req
		if !r.pending {
			continue
		}
		pr := link.PendingRequest{Machine: m.path, Kind: r.kind.String(), Payload: payloadOf(r.payload)}
		if r.target >= 0 && r.target < len(m.children) {
			pr.Target = m.children[r.target].name
		}
		v.Requests = append(v.Requests, pr)
	}
}

// Saving and restoring a pending request.

type requestSnapshot struct {
	Kind    string          `json:"kind"` // push, pop, replace
	Target  string          `json:"target,omitempty"`
	Where   string          `json:"where,omitempty"`   // "file:line: " of the ai.* call, for its error
	Payload json.RawMessage `json:"payload,omitempty"` // absent: nil
}

// requestWhere names a machine's pending request's payload in errors.
func requestWhere(n *place) string {
	where := n.path
	if where == "" {
		where = "root"
	}
	return "machine " + where + " request payload"
}

// saveRequest writes machine n's pending request, nil for none.
func (a *Agent) saveRequest(n *place, enc *encoder) (*requestSnapshot, error) {
	req := &a.ms[n.mid].req
	if !req.pending {
		return nil, nil
	}
	r := &requestSnapshot{Kind: req.kind.String(), Where: req.where}
	if req.target >= 0 {
		r.Target = n.children[req.target].name
	}
	if req.payload != nil && req.payload != lua.LNil {
		var err error
		if r.Payload, err = enc.encode(req.payload, requestWhere(n)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// restoreRequest reads what saveRequest wrote for fsm n.
func restoreRequest(n *place, d *decoder, r *requestSnapshot) (request, error) {
	if len(r.Where) > 1024 {
		return request{}, fmt.Errorf("request where is %d bytes long", len(r.Where))
	}
	var payload lua.LValue = lua.LNil
	if len(r.Payload) > 0 {
		var err error
		if payload, err = d.decode(r.Payload); err != nil {
			return request{}, fmt.Errorf("request payload: %w", err)
		}
	}
	return requestFor(n, r.Kind, r.Target, r.Where, payload)
}

// remapStack carries machine o's stack over a reload to n (idx: o's
// children's places in n, -1 for gone). gone: the active child is gone (n
// re-enters its initial after the swap); left: states that must be exited
// after the swap, paused below a stack that can no longer be one.
func remapStack(o, n *place, om, nm *machineRT, idx []int) (gone bool, left *leftStates) {
	for _, c := range om.stack {
		if j := idx[c]; j >= 0 {
			nm.stack = append(nm.stack, j)
		}
	}
	if n.isRegions() || o.isRegions() {
		return remapRegions(o, n, om, nm)
	}
	gone = len(om.stack) > 0 && idx[om.stack[len(om.stack)-1]] < 0
	if !n.isFSM() && len(nm.stack) > 1 {
		// An fsm with a stack became a utility machine, which has no
		// stack: the top stays active, the states paused below it are
		// left (their exit hooks run after the swap).
		left = &leftStates{n, append([]int(nil), nm.stack[:len(nm.stack)-1]...)}
		nm.stack = append(nm.stack[:0], nm.stack[len(nm.stack)-1])
	}
	return gone, left
}

// remapRequest carries fsm o's pending request over a reload (om to nm);
// dropped: the state that asked for it (the top of the stack) is gone,
// and the request with it.
func remapRequest(n *place, om, nm *machineRT, idx []int) (dropped bool) {
	switch {
	case !n.isFSM(): // requests go to fsms only
	case !om.req.pending:
	case len(om.stack) > 0 && idx[om.stack[len(om.stack)-1]] < 0:
		return true
	case om.req.kind == defs.Pop:
		nm.req = om.req
	case idx[om.req.target] >= 0:
		nm.req = om.req // its payload and where it was asked for too
		nm.req.target = idx[om.req.target]
	}
	return false
}
