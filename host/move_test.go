package host_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/require"
)

// walkerSrc is an NPC that walks (random steps, turning at ±30), pings a
// random peer now and then with ai.send_to, answers a ping by pushing a
// state that pongs the sender (ai.sender() in its enter), and rests on a
// timer: a stack, timers, random numbers and messages to move with it.
const walkerSrc = `local ai = require("luaai")
return ai.fsm { initial = "walk",
  context = { x = 0, dir = 1, peers = {}, n = 0, log = {} },
  states = {
    walk = {
      update = function(ctx)
        ctx.x = ctx.x + ctx.dir * ai.random(1, 4)
        if ctx.x > 30 then ctx.dir = -1 elseif ctx.x < -30 then ctx.dir = 1 end
        if #ctx.peers > 0 and ai.random() < 0.5 then
          ctx.n = ctx.n + 1
          assert(ai.send_to(ctx.peers[ai.random(#ctx.peers)], "ping", { n = ctx.n, from_x = ctx.x }))
        end
      end,
      transitions = {
        { on = "ping", push = "answer", run = function(ctx, p) ctx.log[#ctx.log + 1] = ai.sender() .. ":" .. p.n end },
        { on = "pong", run = function(ctx) ctx.log[#ctx.log + 1] = "pong:" .. ai.sender() end },
        { after = 3, to = "rest" },
      },
    },
    answer = {
      enter = function(ctx) assert(ai.send_to(ai.sender(), "pong")) end,
      transitions = { { after = 0.3, pop = true } },
    },
    rest = { transitions = { { after = 1, to = "walk" } } },
  } }`

// world is the walkers' world, on one host or split in two zones at x = 0.
type world struct {
	zones  []*host.Host
	beh    []*host.Behaviour
	trace  map[int][]string // per agent: its transitions, restores left out
	outbox []host.Message   // what the zones' ticks sent elsewhere
	moved  int              // handoffs done
}

func newWorld(t testing.TB, zones, npcs int) *world {
	t.Helper()
	w := &world{trace: map[int][]string{}}
	for z := 0; z < zones; z++ {
		opts := host.Options{
			Seed: 7, Workers: 1 + z%2,
			OnTransition: func(tr host.Transition) {
				if tr.Kind != host.TransitionRestore {
					w.trace[tr.Agent] = append(w.trace[tr.Agent], fmt.Sprintf("%d %s %s>%s %s/%d", tr.Tick, tr.Kind, tr.From, tr.To, tr.Event, tr.Sender))
				}
			},
		}
		if zones > 1 {
			opts.OnSendElsewhere = func(m host.Message) { w.outbox = append(w.outbox, m) }
		}
		h, err := host.New(opts)
		require.NoError(t, err)
		t.Cleanup(func() { h.Close() })
		b, err := h.LoadString("walker.lua", walkerSrc)
		require.NoError(t, err)
		w.zones, w.beh = append(w.zones, h), append(w.beh, b)
	}
	for i := 0; i < npcs; i++ {
		id := 1000 + 7*i // the game's ids
		x := float64((i*13)%61 - 30)
		var peers []any
		for k := 1; k <= 3; k++ {
			peers = append(peers, float64(1000+7*((i+k*5)%npcs)))
		}
		z := w.zoneOf(x)
		// Some tick every second or third host tick: messages of several
		// host ticks wait in their inboxes, and move with them.
		_, err := w.zones[z].SpawnWith(w.beh[z], host.SpawnOptions{ID: id, Interval: 1 + i%3, Overrides: map[string]any{"x": x, "peers": peers}})
		require.NoError(t, err)
	}
	return w
}

func (w *world) zoneOf(x float64) int {
	if len(w.zones) == 1 || x < 0 {
		return 0
	}
	return 1
}

// step ticks every zone, hands the walkers that crossed x = 0 over, then
// delivers the messages sent across, each to the zone that now holds its
// receiver.
func (w *world) step(t testing.TB) {
	t.Helper()
	for _, h := range w.zones {
		require.NoError(t, h.Tick(0.1))
	}
	if len(w.zones) == 1 {
		return
	}
	var docs [2][]byte
	for z, h := range w.zones {
		var leaving []*host.Agent
		for _, a := range h.Agents() {
			if w.zoneOf(a.Get("x").(float64)) != z {
				leaving = append(leaving, a)
			}
		}
		if len(leaving) > 0 {
			doc, err := h.Export(leaving...)
			require.NoError(t, err)
			docs[1-z] = doc
			w.moved += len(leaving)
		}
	}
	for z, doc := range docs {
		if doc != nil {
			_, err := w.zones[z].Import(doc, host.ImportOptions{}, w.beh[z])
			require.NoError(t, err)
		}
	}
	out := w.outbox
	w.outbox = nil
	for _, m := range out {
		delivered := false
		for _, h := range w.zones {
			if _, ok := h.Agent(m.To); ok {
				require.NoError(t, h.Deliver(m))
				delivered = true
			}
		}
		require.True(t, delivered, "message to %d: no zone holds it", m.To)
	}
}

// agents is every walker, by id, with the final snapshot of each.
func (w *world) snapshots(t testing.TB) map[int]string {
	out := map[int]string{}
	for _, h := range w.zones {
		for _, a := range h.Agents() {
			s, err := a.Snapshot()
			require.NoError(t, err)
			out[a.ID()] = string(s)
		}
	}
	return out
}

func TestMovedAgentsContinueExactly(t *testing.T) {
	one, two := newWorld(t, 1, 60), newWorld(t, 2, 60)
	for range 150 {
		one.step(t)
		two.step(t)
	}
	require.Greater(t, two.moved, 20, "walkers crossed the border")
	require.Equal(t, len(one.trace), len(two.trace))
	for id, tr := range one.trace {
		require.Equal(t, tr, two.trace[id], "agent %d's trace", id)
	}
	require.Equal(t, one.snapshots(t), two.snapshots(t), "every agent ends the same, pending messages included")
	pongs := 0
	for _, s := range one.snapshots(t) {
		pongs += strings.Count(s, "pong:")
	}
	require.Greater(t, pongs, 50, "answers reached their senders")
}

func TestGameIDs(t *testing.T) {
	next := 5000
	h, err := host.New(host.Options{Seed: 3, NewID: func() int { next += 10; return next }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("walker.lua", walkerSrc)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.Equal(t, 5010, a.ID())
	c, err := h.SpawnWith(b, host.SpawnOptions{ID: 42})
	require.NoError(t, err)
	require.Equal(t, 42, c.ID())
	require.Equal(t, []int{42, 5010}, ids(h.Agents()), "the host's list stays in id order")

	cases := []struct {
		name string
		id   int
		want error
	}{
		{"in use", 42, host.ErrIDInUse},
		{"zero from the allocator", 0, nil},
		{"negative", -3, host.ErrBadID},
	}
	// Past MaxID, where an int can hold it (on 32-bit MaxID is math.MaxInt).
	if maxID := host.MaxID; maxID < math.MaxInt {
		cases = append(cases, struct {
			name string
			id   int
			want error
		}{"past MaxID", maxID + 1, host.ErrBadID})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.SpawnWith(b, host.SpawnOptions{ID: tc.id})
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
		})
	}
	next = 41 // the allocator hands out 51; then one in use
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	next = 32
	_, err = h.Spawn(b, nil)
	require.ErrorIs(t, err, host.ErrIDInUse)
}

func ids(list []*host.Agent) []int {
	var out []int
	for _, a := range list {
		out = append(out, a.ID())
	}
	return out
}

// randomsOf is what ai.random gives an agent in its first calls.
const randomsSrc = `local ai = require("luaai")
return ai.fsm { initial = "s", context = { r = {} }, states = { s = {
  update = function(ctx) for i = 1, 4 do ctx.r[#ctx.r + 1] = ai.random(1000000) end end } } }`

func TestRandomFollowsTheAgent(t *testing.T) {
	draws := func(t *testing.T, seed uint64, opts host.SpawnOptions, before int) []any {
		h, err := host.New(host.Options{Seed: seed})
		require.NoError(t, err)
		defer h.Close()
		b, err := h.LoadString("r.lua", randomsSrc)
		require.NoError(t, err)
		for range before { // other agents first: the host's numbering moves
			_, err := h.Spawn(b, nil)
			require.NoError(t, err)
		}
		a, err := h.SpawnWith(b, opts)
		require.NoError(t, err)
		require.NoError(t, a.Tick(0.1))
		return a.Get("r").([]any)
	}
	base := draws(t, 9, host.SpawnOptions{ID: 77}, 0)
	require.Equal(t, base, draws(t, 9, host.SpawnOptions{ID: 77}, 30), "the same id on another host: the same stream")
	require.NotEqual(t, base, draws(t, 9, host.SpawnOptions{ID: 78}, 0))
	require.NotEqual(t, base, draws(t, 10, host.SpawnOptions{ID: 77}, 0), "Options.Seed still counts")
	given := draws(t, 9, host.SpawnOptions{ID: 5, Seed: 1234}, 0)
	require.Equal(t, given, draws(t, 1, host.SpawnOptions{ID: 900, Seed: 1234}, 3), "a seed given at spawn: the same stream under any id, any host")
	require.NotEqual(t, given, draws(t, 9, host.SpawnOptions{ID: 5, Seed: 1235}, 0))
}

// zone is a host of walkers for the import tests.
func zone(t *testing.T, opts host.Options, n int, firstID int) (*host.Host, *host.Behaviour) {
	t.Helper()
	h, err := host.New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	b, err := h.LoadString("walker.lua", walkerSrc)
	require.NoError(t, err)
	for i := range n {
		_, err := h.SpawnWith(b, host.SpawnOptions{ID: firstID + i})
		require.NoError(t, err)
	}
	return h, b
}

func TestImportKeepsTheHostsNumbering(t *testing.T) {
	src, sb := zone(t, host.Options{}, 3, 1001)
	dst, db := zone(t, host.Options{}, 0, 1)
	for range 2 {
		_, err := dst.Spawn(db, nil)
		require.NoError(t, err)
	}
	a, _ := src.Agent(1001)
	doc, err := src.Export(a)
	require.NoError(t, err)
	_, ok := src.Agent(1001)
	require.False(t, ok, "exported agents leave")
	require.ErrorIs(t, a.Tick(0.1), host.ErrClosed)
	_, err = dst.Import(doc, host.ImportOptions{}, db)
	require.NoError(t, err)
	c, err := dst.Spawn(db, nil)
	require.NoError(t, err)
	require.Equal(t, 3, c.ID(), "an import does not move the host's numbering")
	_ = sb

	// The host's numbering skips ids imported agents hold.
	a2, _ := src.Agent(1002)
	doc, err = src.Export(a2)
	require.NoError(t, err)
	_, err = dst.Import(doc, host.ImportOptions{IDs: map[int]int{1002: 4}}, db)
	require.NoError(t, err)
	c, err = dst.Spawn(db, nil)
	require.NoError(t, err)
	require.Equal(t, 5, c.ID())
	require.Equal(t, []int{1, 2, 3, 4, 5, 1001}, ids(dst.Agents()))
}

func TestExportRefuses(t *testing.T) {
	h, _ := zone(t, host.Options{}, 3, 1)
	other, _ := zone(t, host.Options{}, 1, 1)
	a, _ := h.Agent(1)
	o, _ := other.Agent(1)
	_, err := h.Export(a, o)
	require.ErrorIs(t, err, host.ErrWrongHost)
	_, err = h.Export(a, a)
	require.ErrorContains(t, err, "twice")
	b2, _ := h.Agent(2)
	require.NoError(t, b2.Set("peers", []any{"not", map[string]any{}}))
	require.NoError(t, b2.Bind("f", func() {})) // a Go function: cannot be saved
	_, err = h.Export(a, b2)
	require.ErrorIs(t, err, host.ErrUnsaveable)
	require.Len(t, h.Agents(), 3, "nothing was taken out")
	require.NoError(t, b2.Set("f", nil))
	_, err = h.Export(a, b2)
	require.NoError(t, err)
	require.Equal(t, []int{3}, ids(h.Agents()))
}

func TestImportHostileDocuments(t *testing.T) {
	src, _ := zone(t, host.Options{}, 3, 1001)
	for range 5 {
		require.NoError(t, src.Tick(0.1))
	}
	doc, err := src.Export(src.Agents()...)
	require.NoError(t, err)
	var file map[string]any
	require.NoError(t, json.Unmarshal(doc, &file))
	edit := func(fn func(agents []any)) []byte {
		var f map[string]any
		require.NoError(t, json.Unmarshal(doc, &f))
		fn(f["agents"].([]any))
		out, err := json.Marshal(f)
		require.NoError(t, err)
		return out
	}
	setID := func(i int, id any) []byte {
		return edit(func(agents []any) { agents[i].(map[string]any)["id"] = id })
	}
	// A variable, so that one past it is no constant overflow on 32-bit
	// (where it wraps negative: as bad an id).
	maxID := host.MaxID
	// An id past MaxID is ErrBadID; on 32-bit, where it is past an int
	// too, the document cannot be read (ErrBadSnapshot, which an ErrBadID
	// from an import wraps as well).
	pastMaxErr := host.ErrBadID
	if maxID == math.MaxInt {
		pastMaxErr = host.ErrBadSnapshot
	}
	cases := []struct {
		name string
		doc  []byte
		ids  map[int]int
		want error
		msg  string
	}{
		{name: "an id the host holds", doc: doc, ids: map[int]int{1002: 7}, want: host.ErrIDInUse},
		{name: "an id the host holds, unmapped", doc: setID(1, 7), want: host.ErrIDInUse},
		{name: "an id twice in the document", doc: setID(2, 1001), want: host.ErrIDInUse, msg: "twice"},
		{name: "an id past MaxID", doc: setID(1, float64(1<<60)), want: pastMaxErr},
		{name: "an id of zero", doc: setID(1, 0), want: host.ErrBadID},
		{name: "an id that is not an integer", doc: setID(1, 2.5), want: host.ErrBadSnapshot},
		{name: "the map gives an id past MaxID", doc: doc, ids: map[int]int{1001: maxID + 1}, want: host.ErrBadID},
		{name: "the map gives two agents one id", doc: doc, ids: map[int]int{1001: 50, 1003: 50}, want: host.ErrIDInUse, msg: "both map to id 50"},
		{name: "the map gives an agent the id another keeps", doc: doc, ids: map[int]int{1001: 1002}, want: host.ErrIDInUse},
		{name: "the map names an agent not in the document", doc: doc, ids: map[int]int{99: 50}, msg: "not in the document"},
		{name: "a state the behaviour has not", doc: edit(func(a []any) {
			a[2].(map[string]any)["machines"].(map[string]any)[""].(map[string]any)["stack"] = []any{"fly"}
		}), want: host.ErrBadSnapshot, msg: `no state "fly"`},
		{name: "a message from a negative sender", doc: edit(func(a []any) {
			a[2].(map[string]any)["messages"] = []any{map[string]any{"name": "ping", "payload": nil, "from": -4}}
		}), want: host.ErrBadSnapshot, msg: "not an agent id"},
		{name: "a message of negative age", doc: edit(func(a []any) {
			a[2].(map[string]any)["messages"] = []any{map[string]any{"name": "ping", "payload": nil, "from": 4, "age": -1}}
		}), want: host.ErrBadSnapshot, msg: "age"},
		{name: "a timer that is not finite", doc: edit(func(a []any) {
			a[2].(map[string]any)["clock"] = -1
		}), want: host.ErrBadSnapshot},
		{name: "an unknown field", doc: edit(func(a []any) { a[0].(map[string]any)["zone"] = 3 }), want: host.ErrBadSnapshot},
		{name: "not JSON", doc: []byte(`{"version":1,"agents":[{"id":`), want: host.ErrBadSnapshot},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dst, db := zone(t, host.Options{}, 1, 7)
			_, err := dst.Import(tc.doc, host.ImportOptions{IDs: tc.ids}, db)
			require.Error(t, err)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
			}
			if tc.msg != "" {
				require.ErrorContains(t, err, tc.msg)
			}
			require.Equal(t, []int{7}, ids(dst.Agents()), "nothing half-imported")
			// The same host takes the good document afterwards, renamed.
			got, err := dst.Import(doc, host.ImportOptions{IDs: map[int]int{1002: 2002}}, db)
			require.NoError(t, err)
			require.Equal(t, []int{1001, 2002, 1003}, ids(got))
			require.NoError(t, dst.Tick(0.1))
		})
	}
}

// inboxOrderSrc records every ping it handles with its sender, in the order
// its decide phase offers them.
const inboxOrderSrc = `local ai = require("luaai")
return ai.fsm { initial = "s", context = { to = 0, got = {}, sends = 0 }, states = { s = {
  update = function(ctx)
    for i = 1, ctx.sends do assert(ai.send_to(ctx.to, "ping", { i = i })) end
  end,
  transitions = { { on = "ping", when = function(ctx, p)
    ctx.got[#ctx.got + 1] = ai.sender() .. "." .. p.i
    return false
  end, run = function() end } },
} } }`

func TestDeliverTakesTheSendersPlace(t *testing.T) {
	var out []host.Message
	h, err := host.New(host.Options{OnSendElsewhere: func(m host.Message) { out = append(out, m) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("order.lua", inboxOrderSrc)
	require.NoError(t, err)
	recv, err := h.SpawnWith(b, host.SpawnOptions{ID: 50})
	require.NoError(t, err)
	for _, id := range []int{20, 60} { // local senders around the remote ones
		_, err := h.SpawnWith(b, host.SpawnOptions{ID: id, Overrides: map[string]any{"to": 50.0, "sends": 2.0}})
		require.NoError(t, err)
	}
	far, err := h.SpawnWith(b, host.SpawnOptions{ID: 70, Overrides: map[string]any{"to": 999.0, "sends": 1.0}})
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, []host.Message{{From: 70, To: 999, Event: "ping", Payload: json.RawMessage(`{"i":1}`)}}, out,
		"an ai.send_to to an id this host does not hold goes to the game")
	require.NoError(t, h.Remove(far))
	for _, m := range []host.Message{
		{From: 10, To: 50, Event: "ping", Payload: json.RawMessage(`{"i":1}`)},
		{From: 40, To: 50, Event: "ping", Payload: json.RawMessage(`{"i":1}`)},
		{From: 40, To: 50, Event: "ping", Payload: json.RawMessage(`{"i":2}`)},
		{From: 90, To: 50, Event: "ping", Payload: json.RawMessage(`{"i":1}`)},
		{From: 20, To: 50, Event: "ping", Payload: json.RawMessage(`{"i":3}`)},
	} {
		require.NoError(t, h.Deliver(m))
	}
	view := hosttool.View(recv)
	var senders []int
	for _, e := range view.Events {
		senders = append(senders, e.Sender)
	}
	require.Equal(t, []int{10, 20, 20, 20, 40, 40, 60, 60, 90}, senders, "the inspector's view shows them with their senders")
	snap, err := recv.Snapshot()
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	want := []any{"10.1", "20.1", "20.2", "20.3", "40.1", "40.2", "60.1", "60.2", "90.1"}
	require.Equal(t, want, recv.Get("got"))

	// A snapshot keeps them, senders and all.
	h2, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("order.lua", inboxOrderSrc)
	require.NoError(t, err)
	got, err := h2.Restore(snap, b2)
	require.NoError(t, err)
	require.NoError(t, h2.Tick(0.1))
	require.Equal(t, want, got[0].Get("got"))
}

func TestDeliverRefuses(t *testing.T) {
	h, b := zone(t, host.Options{}, 0, 1)
	a, err := h.SpawnWith(b, host.SpawnOptions{ID: 5})
	require.NoError(t, err)
	maxID := host.MaxID // a variable: see TestImportHostileDocuments
	cases := []struct {
		name string
		m    host.Message
		want error
	}{
		{"a sender of id 0", host.Message{From: 0, To: 5, Event: "ping"}, host.ErrBadMessage},
		{"a negative sender", host.Message{From: -2, To: 5, Event: "ping"}, host.ErrBadMessage},
		{"a sender past MaxID", host.Message{From: maxID + 1, To: 5, Event: "ping"}, host.ErrBadMessage},
		{"no event name", host.Message{From: 3, To: 5}, host.ErrBadMessage},
		{"a receiver elsewhere", host.Message{From: 3, To: 6, Event: "ping"}, host.ErrNoAgent},
		{"a payload that is not JSON", host.Message{From: 3, To: 5, Event: "ping", Payload: json.RawMessage(`{"a":`)}, host.ErrBadMessage},
		{"a bound Go value", host.Message{From: 3, To: 5, Event: "ping", Payload: json.RawMessage(`{"$bound":"ctx.x"}`)}, host.ErrBadMessage},
		{"a payload nested too deep", host.Message{From: 3, To: 5, Event: "ping", Payload: json.RawMessage(strings.Repeat("[", 500) + strings.Repeat("]", 500))}, host.ErrBadMessage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, h.Deliver(tc.m), tc.want)
			require.Empty(t, hosttool.View(a).Events, "nothing delivered")
		})
	}
}

func TestElsewhereDecides(t *testing.T) {
	var out []host.Message
	h, err := host.New(host.Options{
		Workers:         2,
		Elsewhere:       func(from *host.Agent, to int, event string) bool { return to%2 == 0 },
		OnSendElsewhere: func(m host.Message) { out = append(out, m) },
	})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("s.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { r = {} }, states = { s = {
  update = function(ctx)
    for _, to in ipairs({ 400, 401, 402 }) do
      local ok, why = ai.send_to(to, "hi", { id = ai.id() })
      ctx.r[#ctx.r + 1] = tostring(ok) .. "/" .. tostring(why)
    end
  end } } }`)
	require.NoError(t, err)
	for _, id := range []int{300, 1, 150} { // on both workers
		_, err := h.SpawnWith(b, host.SpawnOptions{ID: id})
		require.NoError(t, err)
	}
	require.NoError(t, h.Tick(0.1))
	a, _ := h.Agent(1)
	require.Equal(t, []any{"true/nil", "false/no agent", "true/nil"}, a.Get("r"))
	var got []string
	for _, m := range out {
		got = append(got, fmt.Sprintf("%d>%d %s", m.From, m.To, m.Payload))
	}
	require.Equal(t, []string{
		`1>400 {"id":1}`, `1>402 {"id":1}`, `150>400 {"id":150}`, `150>402 {"id":150}`, `300>400 {"id":300}`, `300>402 {"id":300}`,
	}, got, "in sender order, whatever the workers")
}

func TestElsewherePanicFailsTheSender(t *testing.T) {
	var errs []*host.ScriptError
	h, err := host.New(host.Options{
		Elsewhere: func(*host.Agent, int, string) bool { panic("router down") },
		OnError:   func(e *host.ScriptError) { errs = append(errs, e) },
	})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("s.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function() ai.send_to(9, "hi") end } } }`)
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.Len(t, errs, 1)
	require.ErrorContains(t, errs[0], "router down")
	require.NoError(t, h.Tick(0.1), "the host goes on")
}

// TestImportMergesIntoTheLists imports agents whose ids fall among the
// host's (a merge, not an append) into a host of three workers: every
// list stays in id order, and each agent is found by its id.
func TestImportMergesIntoTheLists(t *testing.T) {
	big, bb := zone(t, host.Options{Workers: 3}, 600, 1)
	small, _ := zone(t, host.Options{}, 40, 10_000)
	var moving []*host.Agent
	for _, a := range small.Agents()[:20] {
		moving = append(moving, a)
	}
	doc, err := small.Export(moving...)
	require.NoError(t, err)
	ren := map[int]int{}
	for i, a := range moving {
		ren[a.ID()] = 3 + 25*i // among the big host's ids: a merge, not an append
	}
	for _, a := range big.Agents() {
		if a.ID()%25 == 3 && a.ID() < 3+25*20 {
			require.NoError(t, big.Remove(a))
		}
	}
	got, err := big.Import(doc, host.ImportOptions{IDs: ren}, bb)
	require.NoError(t, err)
	require.Len(t, got, 20)
	all := ids(big.Agents())
	require.True(t, slices.IsSorted(all))
	require.Len(t, all, 600)
	for _, a := range got {
		x, ok := big.Agent(a.ID())
		require.True(t, ok)
		require.Same(t, a, x)
	}
	require.NoError(t, big.Tick(0.1))
}

// ai.spawn takes its ids from Options.NewID too: during a tick, after the
// tick, in the order of the spawning agent's id and its calls; an id the
// host cannot take fails that spawn, reported for the spawning agent.
func TestNewIDServesAISpawn(t *testing.T) {
	var got []string
	var errs []*host.ScriptError
	next := []int{900, 901, 901, 902}
	h, err := host.New(host.Options{
		NewID: func() int { id := next[0]; next = next[1:]; return id },
		OnTransition: func(tr host.Transition) {
			got = append(got, fmt.Sprintf("%d %s", tr.Agent, tr.Kind))
		},
		OnError: func(e *host.ScriptError) { errs = append(errs, e) },
	})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("parent.lua", `local ai = require("luaai")
local child = ai.fsm { initial = "idle", states = { idle = {} } }
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = { update = function(ctx)
  if ctx.n == 0 then ctx.n = 1 ai.spawn(child) ai.spawn(child) end
end } } }`)
	require.NoError(t, err)
	_, err = h.SpawnWith(b, host.SpawnOptions{ID: 50})
	require.NoError(t, err)
	_, err = h.SpawnWith(b, host.SpawnOptions{ID: 40})
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, []string{"50 spawn", "40 spawn", "900 spawn", "901 spawn", "902 spawn"}, got, "agent 40's spawns first")
	require.Len(t, errs, 1)
	require.Equal(t, 50, errs[0].Agent)
	require.ErrorIs(t, errs[0], host.ErrIDInUse)
	require.Contains(t, errs[0].Error(), "Options.NewID")

	next = nil // the allocator panics: the spawn fails, the host goes on
	_, err = h.Spawn(b, nil)
	require.ErrorContains(t, err, "Options.NewID panicked")
	require.NoError(t, h.Tick(0.1))
}

// Import gives back what a document cannot hold, as RestoreFrom does:
// Rebind the bound Go values, Attach the game's data; a failing Attach
// refuses the whole import.
func TestImportRebindsAndAttaches(t *testing.T) {
	type body struct{ HP int }
	src, _ := zone(t, host.Options{}, 2, 1)
	for _, a := range src.Agents() {
		require.NoError(t, a.Bind("body", &body{HP: 10 * a.ID()}))
	}
	doc, err := src.Export(src.Agents()...)
	require.NoError(t, err)
	dst, db := zone(t, host.Options{}, 0, 1)
	_, err = dst.Import(doc, host.ImportOptions{Attach: func(a *host.Agent, synced []string) error {
		if a.ID() == 2 {
			return fmt.Errorf("no entity for agent 2")
		}
		return nil
	}}, db)
	require.ErrorContains(t, err, "no entity for agent 2")
	require.Empty(t, dst.Agents(), "nothing half-imported")
	var paths []string
	got, err := dst.Import(doc, host.ImportOptions{
		IDs: map[int]int{1: 101, 2: 102},
		Rebind: func(a *host.Agent, path string) any {
			paths = append(paths, fmt.Sprint(a.ID(), " ", path))
			return &body{HP: a.ID()}
		},
		Attach: func(a *host.Agent, synced []string) error { a.SetUserData(fmt.Sprint("entity-", a.ID())); return nil },
	}, db)
	require.NoError(t, err)
	require.Equal(t, []string{"101 body", "102 body"}, paths)
	for _, a := range got {
		require.Equal(t, fmt.Sprint("entity-", a.ID()), a.UserData())
		v, ok := a.Get("body").(*body)
		require.True(t, ok)
		require.Equal(t, a.ID(), v.HP)
	}
}

// A receiver that ticks every fifth host tick holds messages of two host
// ticks when it moves; a message from another host for the later tick
// goes after the earlier tick's, whatever its sender's id.
func TestMovedInboxKeepsItsTicksApart(t *testing.T) {
	zone := func() (*host.Host, *host.Behaviour) {
		h, err := host.New(host.Options{OnSendElsewhere: func(host.Message) {}})
		require.NoError(t, err)
		t.Cleanup(func() { h.Close() })
		b, err := h.LoadString("order.lua", inboxOrderSrc)
		require.NoError(t, err)
		return h, b
	}
	a, ab := zone()
	b, bb := zone()
	_, err := a.SpawnWith(ab, host.SpawnOptions{ID: 50, Interval: 5}) // ticks at host ticks 5, 10…
	require.NoError(t, err)
	s, err := a.SpawnWith(ab, host.SpawnOptions{ID: 60, Overrides: map[string]any{"to": 50.0, "sends": 1.0}})
	require.NoError(t, err)
	for tick := 1; tick <= 2; tick++ {
		require.NoError(t, a.Tick(0.1))
		require.NoError(t, b.Tick(0.1))
		require.NoError(t, s.Set("sends", 0.0)) // 60 sends in tick 1 only
	}
	r, _ := a.Agent(50)
	doc, err := a.Export(r)
	require.NoError(t, err)
	got, err := b.Import(doc, host.ImportOptions{}, bb)
	require.NoError(t, err)
	require.NoError(t, b.Deliver(host.Message{From: 10, To: 50, Event: "ping", Payload: json.RawMessage(`{"i":1}`)}))
	for range 3 {
		require.NoError(t, b.Tick(0.1))
	}
	require.Equal(t, []any{"60.1", "10.1"}, got[0].Get("got"))
}
