package host

// The binary record of an agent with something pending (tag 3): events
// sent to it, messages from other agents and push, pop or replace
// requests, all waiting for its next tick. Its record is tag 1's, then
//
//	requests: count, then per request its machine's path, kind, target
//	(its state's name, "" for a pop), where (the ai.* call's
//	"file:line: "), payload;
//	events: count, then per event its name, sender (varint: 0 for the
//	game), payload;
//	messages: count, then per message its name, sender, age (uvarint: the
//	host ticks since the tick that delivered it ended), payload.
//
// Strings are record strings (snapbin.go); payloads are Lua values as a
// context is written, length-prefixed. The context and the payloads are
// one walk for tables reached twice: a table shared between the context
// and a payload is one table again when read back.

import (
	"encoding/binary"
	"fmt"

	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// binRecPending tags the binary record of an agent with something pending.
const binRecPending = 3

// binPending is what an agent has pending, its payloads encoded.
type binPending struct {
	reqs             []binRequest
	events, messages []binEvent
}

// binRequest is a machine's pending request.
type binRequest struct {
	path, kind, target, where string
	payload                   []byte
}

// binEvent is a pending event or message.
type binEvent struct {
	name      string
	from, age int
	payload   []byte
}

// hasPending tells whether a has events, messages or requests pending.
func (a *Agent) hasPending() bool {
	return len(a.incoming) > 0 || len(a.inbox) > 0 || a.requestPending()
}

// copyPending encodes a's context and what it has pending into c (c.rec.Ctx
// and c.pend) in the binary form, tables reached twice across them counted
// first, in the order a load reads them: the context, the requests
// (machines in layout order), the events, the messages.
func (a *Agent) copyPending(enc *encoder, c *saveCopy) error {
	enc.reset()
	reqs := a.pendingMachines()
	type root struct {
		v    lua.LValue
		name string
	}
	roots := []root{{a.ctx, "ctx"}}
	for _, n := range reqs {
		roots = append(roots, root{a.ms[n.mid].req.payload, requestWhere(n)})
	}
	for i, ev := range a.incoming {
		roots = append(roots, root{ev.payload, fmt.Sprintf("event %d (%s) payload", i+1, ev.name)})
	}
	for i, ev := range a.inbox {
		roots = append(roots, root{ev.payload, fmt.Sprintf("message %d (%s) payload", i+1, ev.name)})
	}
	for _, r := range roots {
		if err := enc.count(r.v, r.name, 0); err != nil {
			return fmt.Errorf("agent %d: %w", a.id, err)
		}
	}
	enc.bound = nil
	vals := make([][]byte, len(roots))
	for i, r := range roots {
		v := r.v
		if v == nil {
			v = lua.LNil
		}
		var err error
		if vals[i], err = enc.encodeBin(v, r.name); err != nil {
			return fmt.Errorf("agent %d: %w", a.id, err)
		}
	}
	c.rec.Ctx = vals[0]
	p := &binPending{}
	for i, n := range reqs {
		req := &a.ms[n.mid].req
		r := binRequest{path: n.path, kind: req.kind.String(), where: req.where, payload: vals[1+i]}
		if req.target >= 0 {
			r.target = n.children[req.target].name
		}
		p.reqs = append(p.reqs, r)
	}
	rest := vals[1+len(reqs):]
	for i, ev := range a.incoming {
		p.events = append(p.events, binEvent{name: ev.name, from: ev.from, payload: rest[i]})
	}
	rest = rest[len(a.incoming):]
	for i, ev := range a.inbox {
		p.messages = append(p.messages, binEvent{name: ev.name, from: ev.from, age: max(a.h.tickNo-ev.at, 0), payload: rest[i]})
	}
	c.pend = p
	return nil
}

// pendingMachines are a's machines with a request pending, in layout
// order.
func (a *Agent) pendingMachines() []*place {
	var out []*place
	for _, n := range a.t.places {
		if n.isMachine() && a.ms[n.mid].req.pending {
			out = append(out, n)
		}
	}
	return out
}

// pending writes p after a record's machines.
func (w *binWriter) pending(b []byte, p *binPending) []byte {
	b = binary.AppendUvarint(b, uint64(len(p.reqs)))
	for _, r := range p.reqs {
		b = w.str(b, r.path)
		b = w.str(b, r.kind)
		b = w.str(b, r.target)
		b = w.str(b, r.where)
		b = append(b, r.payload...)
	}
	for li, list := range [][]binEvent{p.events, p.messages} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, ev := range list {
			b = w.str(b, ev.name)
			b = binary.AppendVarint(b, int64(ev.from))
			if li == 1 { // messages
				b = binary.AppendUvarint(b, uint64(ev.age))
			}
			b = append(b, ev.payload...)
		}
	}
	return b
}

// binPendingRead reads what pending wrote into a (decoded with d, the
// decoder of its context: a table it shares with the context is the
// same table), for a host after tick now; ids renames senders (Import's
// id map).
func (a *Agent) binPendingRead(r *binReader, d *decoder, now int, ids map[int]int) error {
	for range r.count(4) {
		n, path := r.placeAt(a.t)
		kind, target, where := r.str(), r.str(), r.str()
		if r.err != nil {
			return r.err
		}
		if n == nil || !n.isMachine() {
			return fmt.Errorf("request for machine %q, which is not in behaviour %s", path, a.t.name)
		}
		payload, err := binPayload(r, d)
		if err != nil {
			return fmt.Errorf("machine %q: request payload: %w", path, err)
		}
		m := &a.ms[n.mid]
		if m.req.pending {
			return fmt.Errorf("machine %q: two requests", path)
		}
		if m.req, err = requestFor(n, kind, target, where, payload); err != nil {
			return fmt.Errorf("machine %q: %w", path, err)
		}
	}
	for _, what := range []string{"event", "message"} {
		n := r.count(3)
		if r.err != nil {
			return r.err
		}
		if err := savedEvents(what, n); err != nil {
			return err
		}
		last := -1
		for range n {
			name := r.str()
			from := max(min(r.varint(), MaxID+1), -1)
			age := uint64(0)
			if what == "message" {
				age = r.uvarint()
			}
			if r.err != nil {
				return r.err
			}
			payload, err := binPayload(r, d)
			if err != nil {
				return fmt.Errorf("%s %q payload: %w", what, name, err)
			}
			ev, err := savedEvent(what, name, int(from), int(min(age, maxSnapshotCount+1)), &last, payload, now, ids)
			if err != nil {
				return err
			}
			if what == "event" {
				a.incoming = append(a.incoming, ev)
			} else {
				a.inbox = append(a.inbox, ev)
			}
		}
	}
	return r.err
}

// binPayload reads a length-prefixed value with d.
func binPayload(r *binReader, d *decoder) (lua.LValue, error) {
	size := r.u32()
	if r.err == nil && size > len(r.b)-r.i {
		r.fail("a value of %d bytes in the %d left", size, len(r.b)-r.i)
	}
	if r.err != nil {
		return nil, r.err
	}
	end := r.i + size
	d.size, d.gapLeft = size, snapshotGapRatio*int64(size)
	v, err := d.binValue(r, 0)
	if err == nil && r.i != end {
		err = r.fail("the value ends at byte %d, not %d", r.i, end)
	}
	return unbound(v), err
}

// requestFor is fsm n's pending request of kind to target, checked.
func requestFor(n *place, kind, target, where string, payload lua.LValue) (request, error) {
	if len(where) > 1024 {
		return request{}, fmt.Errorf("request where is %d bytes long", len(where))
	}
	if !n.isFSM() {
		// ai.push, ai.pop and ai.replace reach fsms only.
		return request{}, fmt.Errorf("a %s machine takes no request", n.def.Kind)
	}
	if payload == nil {
		payload = lua.LNil
	}
	req := request{pending: true, target: -1, payload: payload, where: where}
	switch req.kind, _ = defs.ParseTransitionKind(kind); req.kind {
	case defs.Push, defs.Replace:
		if req.target = n.def.Child(target); req.target < 0 {
			return request{}, fmt.Errorf("request for state %q, which it does not have", target)
		}
	case defs.Pop:
	default:
		return request{}, fmt.Errorf("request kind %q", kind)
	}
	return req, nil
}
