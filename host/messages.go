package host

// Events and messages (docs/lua-reference.md: A tick, Functions usable inside callbacks):
// an agent's own events (Agent.Send, ai.send, agent:send) wait in its
// incoming list for its next decide phase; messages from other agents
// (ai.send_to) are queued per worker during a tick and delivered at its end,
// ordered by sender id then send order, into the receiver's inbox, seen
// after its own events. Every event remembers who sent it (ai.sender: 0
// for the game). Options.MessagePolicy may refuse an ai.send_to, and
// Options.MaxMessagesPerTick bounds what one agent queues in a tick. Here
// too: how snapshots save both lists, and how hosttool.View shows them.

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/internal/luaval"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// Send queues an event for the agent's next decide phase. payload is
// converted like a context value.
func (a *Agent) Send(name string, payload any) error {
	if err := a.usable(); err != nil {
		return err
	}
	if len(a.incoming) >= MaxPendingEvents {
		return fmt.Errorf("send %q: %w", name, errTooManyEvents)
	}
	a.incoming = append(a.incoming, event{name: name, payload: toLua(a.w.vm.L, payload)})
	return nil
}

// MaxPendingEvents bounds the events waiting for one agent's next tick
// (Agent.Send, ai.send, agent:send): past it a send is refused, so a
// script that sends in a loop cannot make the next decide phase scan
// without end.
const MaxPendingEvents = 1 << 16

var errTooManyEvents = fmt.Errorf("more than %d events are waiting for the agent's next tick", MaxPendingEvents)

// sendLua queues an event sent from Lua by the game's side (agent:send):
// it has no sender.
func (a *Agent) sendLua(name string, payload lua.LValue) error {
	if len(a.incoming) >= MaxPendingEvents {
		return errTooManyEvents
	}
	a.incoming = append(a.incoming, event{name: name, payload: payload})
	return nil
}

// Send is ai.send: an event for the agent itself, its own id as the
// sender, counted against Options.MaxMessagesPerTick. The message policy
// does not see it (it crosses no agents).
func (r runner) Send(name string, payload lua.LValue) error {
	a := r.a
	if err := a.quotaLeft(); err != nil {
		return err
	}
	if len(a.incoming) >= MaxPendingEvents {
		return errTooManyEvents
	}
	a.sent++
	a.incoming = append(a.incoming, event{name: name, payload: payload, from: a.id})
	return nil
}

// SendTo is ai.send_to: (false, nil) for an id that names no live agent,
// defs.ErrSendRefused when Options.MessagePolicy refuses it, an error
// past Options.MaxMessagesPerTick or when the policy panics. During
// Host.Tick the message waits for the end of the tick
// (Host.deliverMessages orders them the same whatever the workers);
// otherwise it is delivered at once, for the receiver's next tick.
func (r runner) SendTo(id int, name string, payload any) (bool, error) {
	a := r.a
	to, ok := a.h.target(id)
	if id == a.id {
		// Itself, from its spawn-time enter too (before the host lists it).
		to, ok = a, true
	}
	if !ok || to.removed {
		if a.h.remoteOn() {
			return a.sendElsewhere(id, name, payload) // an agent of another host?
		}
		return false, nil
	}
	if err := a.quotaLeft(); err != nil {
		return false, err
	}
	if allow := a.h.opts.MessagePolicy; allow != nil {
		ok, err := a.allowed(allow, to, name)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, defs.ErrSendRefused
		}
	}
	a.sent++
	if a.w.busy {
		a.msgSeq++
		a.w.msgQ = append(a.w.msgQ, pendingMsg{from: a.id, seq: a.msgSeq, to: to, name: name, payload: payload})
		return true, nil
	}
	to.deliver(a.id, name, payload)
	return true, nil
}

// deliver puts a message from agent from into the agent's inbox, its
// payload rebuilt in the agent's own Lua state.
func (a *Agent) deliver(from int, name string, payload any) {
	a.inbox = append(a.inbox, event{name: name, payload: luaval.FromPlain(a.w.vm.L, payload), from: from, at: a.h.tickNo})
}

// pendingMsg is an ai.send_to made while the workers ran: 56 bytes, and
// its payload's copy.
type pendingMsg struct {
	from, seq int // the sender's id, and its count of sends
	to        *Agent
	name      string
	payload   any // luaval.CopyPlain's copy
	// toID and remote: a message for another host (to is nil), its
	// payload encoded.
	toID   int
	remote []byte
}

// DefaultMaxMessagesPerTick is Options.MaxMessagesPerTick's default.
const DefaultMaxMessagesPerTick = 1024

// errMessageQuota: an agent queued more than Options.MaxMessagesPerTick
// messages (ai.send_to and ai.send) in one tick. The call past it is a Lua
// error in that agent's callback, whose message says so.
var errMessageQuota = errors.New("message quota exceeded")

// errPolicyPanic: Options.MessagePolicy panicked on an ai.send_to. The
// call is a Lua error in the sender's callback, with the panic's value;
// the message is not sent and the host goes on.
var errPolicyPanic = errors.New("the message policy panicked")

// quotaLeft is an error when the agent has queued its
// Options.MaxMessagesPerTick messages in its current tick (its
// spawn-time enter counts as tick 0).
func (a *Agent) quotaLeft() error {
	if a.sentAt != a.ticks {
		a.sentAt, a.sent = a.ticks, 0
	}
	if limit := a.h.opts.MaxMessagesPerTick; a.sent >= limit {
		return fmt.Errorf("%w: more than %d messages (ai.send_to and ai.send) in one tick (MaxMessagesPerTick)", errMessageQuota, limit)
	}
	return nil
}

// allowed asks the message policy whether the agent may send event to
// to; a panic in it is an error.
func (a *Agent) allowed(allow func(from, to *Agent, event string) bool, to *Agent, event string) (ok bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			ok, err = false, fmt.Errorf("%w on %q to agent %d: %v", errPolicyPanic, event, to.id, v)
		}
	}()
	return allow(a, to, event), nil
}

// deliverMessages puts the messages sent during a tick into their
// receivers' inboxes, ordered by sender id, then send order: the same
// whatever the worker count.
func (h *Host) deliverMessages() {
	var all []pendingMsg
	for _, w := range h.workers {
		all = append(all, w.msgQ...)
		clear(w.msgQ)
		w.msgQ = w.msgQ[:0]
	}
	if len(all) == 0 {
		return
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].from != all[j].from {
			return all[i].from < all[j].from
		}
		return all[i].seq < all[j].seq
	})
	for _, m := range all {
		if m.to == nil {
			h.remoteQ = append(h.remoteQ, m) // for Options.OnSendElsewhere
			continue
		}
		if m.to.removed {
			continue
		}
		m.to.deliver(m.from, m.name, m.payload)
	}
}

// eventsView adds the pending events, then the messages, at most
// maxViewEvents of each.
func (a *Agent) eventsView(v *link.AgentView) {
	for _, e := range a.incoming[:min(len(a.incoming), maxViewEvents)] {
		v.Events = append(v.Events, link.PendingEvent{Name: e.name, Payload: payloadOf(e.payload), Sender: e.from})
	}
	for _, e := range a.inbox[:min(len(a.inbox), maxViewEvents)] {
		v.Events = append(v.Events, link.PendingEvent{Name: e.name, Payload: payloadOf(e.payload), Message: true, Sender: e.from})
	}
}

// payloadOf converts an event's or request's payload to plain data.
func payloadOf(v lua.LValue) any {
	if v == nil || v == lua.LNil {
		return nil
	}
	return luaval.ToGo(v)
}

// Saving and restoring the events and messages waiting for the next tick.

type eventSnapshot struct {
	Name    string          `json:"name"`
	Payload json.RawMessage `json:"payload"`
	From    int             `json:"from,omitempty"` // the sender's id (ai.sender); absent: the game
	// Age, for a message, is how many host ticks before the save the tick
	// that delivered it ended (absent: the last one), so messages delivered
	// by different ticks stay apart in another host.
	Age int `json:"age,omitempty"`
}

// encodeEvents writes queued events (what: "event" or "message") for a
// snapshot taken after host tick now.
func encodeEvents(enc *encoder, what string, events []event, now int) ([]eventSnapshot, error) {
	var out []eventSnapshot
	for i, ev := range events {
		p, err := enc.encode(ev.payload, fmt.Sprintf("%s %d (%s) payload", what, i+1, ev.name))
		if err != nil {
			return nil, err
		}
		s := eventSnapshot{Name: ev.name, Payload: p, From: ev.from}
		if what == "message" {
			s.Age = max(now-ev.at, 0)
		}
		out = append(out, s)
	}
	return out, nil
}

// decodeEvents reads them back into a host after tick now, appending to
// into; ids renames senders (Import's id map).
func decodeEvents(d *decoder, what string, saved []eventSnapshot, into []event, now int, ids map[int]int) ([]event, error) {
	if err := savedEvents(what, len(saved)); err != nil {
		return into, err
	}
	last := -1
	for _, ev := range saved {
		p, err := d.decode(ev.Payload)
		if err != nil {
			return into, fmt.Errorf("%s %q payload: %w", what, ev.Name, err)
		}
		e, err := savedEvent(what, ev.Name, ev.From, ev.Age, &last, p, now, ids)
		if err != nil {
			return into, err
		}
		into = append(into, e)
	}
	return into, nil
}

// savedEvents checks the count of an agent's saved events: no more than
// the MaxPendingEvents a running agent can be sent. (Messages are bounded
// by the senders' quotas, and in a file by its size.)
func savedEvents(what string, n int) error {
	if what == "event" && n > MaxPendingEvents {
		return fmt.Errorf("%d events waiting for the agent's next tick, more than the %d it can be sent", n, MaxPendingEvents)
	}
	return nil
}

// savedEvent is a saved event or message (what) of sender from and age
// checked and made for a host after tick now, its sender renamed by ids;
// last is the age of the one before it in its list (-1 for none), set to
// this one's.
func savedEvent(what, name string, from, age int, last *int, payload lua.LValue, now int, ids map[int]int) (event, error) {
	if from < 0 || from > MaxID {
		return event{}, fmt.Errorf("%s %q: sender %d is not an agent id", what, name, from)
	}
	if age < 0 || age > maxSnapshotCount || (what != "message" && age != 0) {
		return event{}, fmt.Errorf("%s %q: age %d out of range", what, name, age)
	}
	if *last >= 0 && age > *last {
		return event{}, fmt.Errorf("%s %q: age %d after a message of age %d (messages are saved oldest first)", what, name, age, *last)
	}
	*last = age
	if to, ok := ids[from]; ok {
		from = to
	}
	return event{name: name, payload: payload, from: from, at: now - age}, nil
}
