package host_test

import (
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// Senders 1..6 message receiver 7 twice a tick; the receiver logs what it
// takes. Messages: deliveries are ordered by sender id, then send order,
// the same whatever the worker count; seen in the tick after the send.
const messagesSrc = `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { got = {}, role = "send", sent = 0 }, states = {
  idle = {
    update = function(ctx)
      if ctx.role ~= "send" then return end
      ctx.sent = ctx.sent + 1
      local payload = { from = ai.id(), n = ctx.sent }
      assert(ai.send_to(7, "msg", payload))
      payload.n = -1 -- the message was copied: this change is not seen
      assert(ai.send_to(7, "msg", { from = ai.id(), n = ctx.sent + 0.5 }))
      assert(ai.send_to(99, "msg") == false)
    end,
    transitions = {
      { on = "msg", run = function(ctx, p) ctx.got[#ctx.got + 1] = p.from .. ":" .. p.n end },
    },
  },
} }`

func TestMessagesOrderedWhateverTheWorkers(t *testing.T) {
	var want []any
	for _, workers := range []int{1, 2, 4} {
		h, err := host.New(host.Options{Workers: workers, Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7})
		require.NoError(t, err)
		b, err := h.LoadString("msg.lua", messagesSrc)
		require.NoError(t, err)
		for i := 1; i <= 7; i++ {
			over := map[string]any{}
			if i == 7 {
				over["role"] = "receive"
			}
			_, err := h.Spawn(b, over)
			require.NoError(t, err)
		}
		for range 3 {
			require.NoError(t, h.Tick(0.1))
		}
		r, _ := h.Agent(7)
		got := r.Get("got").([]any)
		if want == nil {
			want = got
			// one message a tick is taken (an internal transition fires once
			// a tick per state): the first of tick 1's, then of tick 2's.
			require.Equal(t, []any{"1:1", "1:2"}, got[:2])
		}
		require.Equal(t, want, got, "%d workers", workers)
		require.Empty(t, r.TakeErrors())
		h.Close()
	}
}

// An agent's own events come before other agents' messages; a payload
// that is not plain data is an error in the sender; with agents ticked one
// at a time the receiver's next tick sees the message; undelivered
// messages are kept by snapshots.
func TestMessagesRules(t *testing.T) {
	f := newFixture(t, `
return ai.fsm { initial = "a", context = { to = 0, what = "none" }, states = {
  a = {
    update = function(ctx)
      if ctx.what == "plain" then ai.send_to(ctx.to, "e", { v = "msg", list = { 1, 2 } }) end
      if ctx.what == "function" then ai.send_to(ctx.to, "e", { f = print }) end
      if ctx.what == "meta" then ai.send_to(ctx.to, "e", setmetatable({}, {})) end
      if ctx.what == "cycle" then local t = {} t.t = t ai.send_to(ctx.to, "e", t) end
      if ctx.what == "bad id" then ai.send_to(ctx.to, "e", print) end
      ctx.what = "none"
    end,
    transitions = { { on = "e", run = function(ctx, p) log(ctx, "e " .. (type(p) == "table" and p.v or tostring(p))) end } },
  },
} }`)
	one, two := f.spawn(nil), f.spawn(nil)
	require.Equal(t, 1, one.ID())
	require.NoError(t, one.Set("to", 2.0))
	require.NoError(t, one.Set("what", "plain"))
	f.tick(one, 0.1) // ticked alone: delivered at once
	snap, err := two.Snapshot()
	require.NoError(t, err)
	require.Contains(t, string(snap), `"messages":[{"name":"e","payload":{"list":[1,2],"v":"msg"},"from":1}]`)
	require.NoError(t, two.Send("e", "own"))

	f.tick(two, 0.1)
	require.Equal(t, []string{"e own"}, takeLog(two), "its own event first; the message, not taken this tick, is dropped")

	for what, msg := range map[string]string{
		"function": "ai.send_to: the payload must be plain data (nil, booleans, numbers, strings and tables of those): not plain data: [f] is a function",
		"meta":     "not plain data: the value has a metatable",
		"cycle":    "not plain data: [t] contains itself",
		"bad id":   "not plain data: the value is a function",
	} {
		f.se = nil
		require.NoError(t, one.Set("what", what))
		if what == "bad id" {
			require.NoError(t, one.Set("to", 99.0)) // checked before the id is looked up
		}
		f.tick(one, 0.1)
		require.Len(t, f.se, 1, what)
		require.Contains(t, f.se[0].Msg, msg, what)
	}

	g := newFixture(t, f.src)
	restored, err := g.h.Restore(snap, g.b)
	require.NoError(t, err)
	g.tick(restored[0], 0.1)
	require.Equal(t, []string{"e msg"}, takeLog(restored[0]), "the kept message is seen by the restored agent")
}
