package host

// Messages between hosts: an ai.send_to to an id this host does not hold
// goes to the game (Options.Elsewhere, Options.OnSendElsewhere) instead of
// vanishing, and Host.Deliver puts a message from another host into its
// receiver's inbox where a local ai.send_to from the same sender would
// have put it.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/luaai/luaai/internal/luaval"
	lua "github.com/yuin/gopher-lua"
)

// Message is an ai.send_to between hosts: one this host's agent sent to
// an id the host does not hold (Options.OnSendElsewhere), or one the game
// brings from another host (Host.Deliver). The game carries it as it is.
type Message struct {
	// From is the sending agent's id, To the receiving agent's.
	From, To int
	// Event is the event's name.
	Event string
	// Payload is the event's payload in the encoding of snapshots (JSON:
	// "null" for none; tables as objects or arrays, numbers that JSON
	// cannot hold as {"$num": …}): plain data, which Deliver rebuilds
	// exactly.
	Payload json.RawMessage
}

// Errors of Host.Deliver, wrapped with %w.
var (
	// ErrNoAgent: the message names a receiver this host does not hold.
	ErrNoAgent = errors.New("no such agent in this host")
	// ErrBadMessage: the message names a sender that is not an agent id
	// (below 1, above MaxID), has no event name, or a payload that is not
	// plain data in the encoding of snapshots.
	ErrBadMessage = errors.New("bad message")
)

// remoteOn reports whether ai.send_to offers absent ids to the game.
func (h *Host) remoteOn() bool {
	return h.opts.Elsewhere != nil || h.opts.OnSendElsewhere != nil
}

// sendElsewhere is ai.send_to to id, which this host does not hold, when
// the game takes such messages: Options.Elsewhere says whether it goes
// (and so what ai.send_to returns); if so it is counted against the
// sender's quota, its payload encoded here (charged to the sender), and
// queued for OnSendElsewhere after the tick.
func (a *Agent) sendElsewhere(id int, name string, payload any) (bool, error) {
	h := a.h
	if ask := h.opts.Elsewhere; ask != nil {
		ok, err := a.askElsewhere(ask, id, name)
		if err != nil || !ok {
			return false, err
		}
	}
	if err := a.quotaLeft(); err != nil {
		return false, err
	}
	enc := &encoder{}
	v := luaval.FromPlain(a.w.vm.L, payload)
	if err := enc.count(v, "payload", 0); err != nil {
		return false, err
	}
	p, err := enc.encode(v, "payload")
	if err != nil {
		return false, err
	}
	a.sent++
	a.msgSeq++
	m := pendingMsg{from: a.id, seq: a.msgSeq, toID: id, name: name, remote: p}
	if a.w.busy {
		a.w.msgQ = append(a.w.msgQ, m)
	} else {
		h.remoteQ = append(h.remoteQ, m)
	}
	return true, nil
}

// askElsewhere asks Options.Elsewhere; a panic in it is an error.
func (a *Agent) askElsewhere(ask func(from *Agent, to int, event string) bool, to int, event string) (ok bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			ok, err = false, fmt.Errorf("%w on %q to agent %d: %v", errElsewherePanic, event, to, v)
		}
	}()
	return ask(a, to, event), nil
}

// errElsewherePanic: Options.Elsewhere panicked on an ai.send_to.
var errElsewherePanic = errors.New("Options.Elsewhere panicked")

// sendRemote hands the messages for other hosts to OnSendElsewhere, in
// sender order (sender id, then send order), on the game's goroutine.
func (h *Host) sendRemote() {
	if len(h.remoteQ) == 0 {
		return
	}
	q := h.remoteQ
	h.remoteQ = nil
	sort.SliceStable(q, func(i, j int) bool {
		if q[i].from != q[j].from {
			return q[i].from < q[j].from
		}
		return q[i].seq < q[j].seq
	})
	if h.opts.OnSendElsewhere == nil {
		return
	}
	for _, m := range q {
		if h.closed {
			return
		}
		h.opts.OnSendElsewhere(Message{From: m.from, To: m.toID, Event: m.name, Payload: m.remote})
	}
}

// Deliver puts a message from an agent of another host into the inbox of
// its receiver, an agent of this host: exactly where an ai.send_to from
// that sender in the last host tick would have put it (by sender id, then
// send order, among the messages that tick delivered), so the receiver's
// next tick sees what it would see with every agent in one host.
// ai.sender() returns m.From while the receiver handles it, the inspector
// shows it, and snapshots and exports keep it.
//
// Call it between host ticks, for each message a tick of the other hosts
// sent (Options.OnSendElsewhere there), in the order they were sent; the
// hosts tick in step. A receiver not in this host is an error wrapping
// ErrNoAgent (the game forwards it to where the agent went); a sender id
// below 1 or above MaxID, an empty event name, or a payload that is not
// plain data in the encoding of snapshots an error wrapping ErrBadMessage;
// a receiver with MaxPendingEvents messages waiting an error too. On an
// error nothing is delivered. The message policy does not see it: which
// hosts may send what is the game's to check.
func (h *Host) Deliver(m Message) error {
	if err := h.usable(); err != nil {
		return err
	}
	if h.running {
		return fmt.Errorf("deliver: %w", ErrReentrant)
	}
	switch {
	case m.From < 1 || m.From > MaxID:
		return fmt.Errorf("deliver %q to agent %d: %w: sender %d is not an agent id", m.Event, m.To, ErrBadMessage, m.From)
	case m.Event == "":
		return fmt.Errorf("deliver to agent %d: %w: no event name", m.To, ErrBadMessage)
	}
	to, ok := h.target(m.To)
	if !ok || to.removed {
		return fmt.Errorf("deliver %q to agent %d: %w", m.Event, m.To, ErrNoAgent)
	}
	if len(to.inbox) >= MaxPendingEvents {
		return fmt.Errorf("deliver %q to agent %d: %w", m.Event, m.To, errTooManyEvents)
	}
	raw := m.Payload
	if len(raw) == 0 {
		raw = json.RawMessage("null")
	}
	// Read as the element of a list, so a bound value anywhere, the
	// whole payload too, is seen (and refused).
	d := &decoder{L: to.w.vm.L}
	v, err := d.decode(slices.Concat([]byte("["), raw, []byte("]")))
	if err == nil && len(d.bound) > 0 {
		err = errors.New("a bound Go value is not plain data")
	}
	if err != nil {
		return fmt.Errorf("deliver %q to agent %d: %w: payload: %w", m.Event, m.To, ErrBadMessage, err)
	}
	p := v.(*lua.LTable).RawGetInt(1)
	ev := event{name: m.Event, payload: p, from: m.From, at: h.tickNo}
	// After every message of an earlier tick, and of this tick from a
	// sender with a lower or the same id.
	i := len(to.inbox)
	for i > 0 && to.inbox[i-1].at == ev.at && to.inbox[i-1].from > ev.from {
		i--
	}
	to.inbox = append(to.inbox, event{})
	copy(to.inbox[i+1:], to.inbox[i:])
	to.inbox[i] = ev
	return nil
}
