package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// orderSrc: an agent sends ctx.ev to each of ctx.targets once a tick and
// records what ai.send_to returned; every agent counts the orders it is
// offered by sender (a when that never passes sees every one).
const orderSrc = `local ai = require("luaai")
return ai.fsm { initial = "s", context = { targets = {}, ev = "order", res = {}, got = {} }, states = {
  s = {
    update = function(ctx)
      for _, id in ipairs(ctx.targets) do
        local ok, why = ai.send_to(id, ctx.ev, { x = 0, y = 0 })
        ctx.res[#ctx.res + 1] = tostring(ok) .. (why and (" " .. why) or "")
      end
    end,
    transitions = { { on = "order", when = function(ctx)
      local s = tostring(ai.sender())
      ctx.got[s] = (ctx.got[s] or 0) + 1
      return false
    end, to = "s" } },
  },
} }`

// teamPolicy lets agents order only agents of their own team (the game's
// data): other events pass.
func teamPolicy(team map[int]string) func(from, to *host.Agent, event string) bool {
	return func(from, to *host.Agent, event string) bool {
		return event != "order" || team[from.ID()] == team[to.ID()]
	}
}

func TestMessagePolicy(t *testing.T) {
	team := map[int]string{1: "red", 2: "red", 3: "blue", 4: "blue"}
	cases := []struct {
		name    string
		policy  func(from, to *host.Agent, event string) bool
		ev      string
		targets []any   // agent 1 sends to these
		res     []any   // what ai.send_to returned, in tick 1
		got     []int64 // orders agents 2, 3 and 4 were offered from agent 1 after tick 2
	}{
		{name: "no policy", ev: "order", targets: []any{2.0, 3.0, 99.0}, res: []any{"true", "true", "false no agent"}, got: []int64{1, 1, 0}},
		{name: "same team only", policy: teamPolicy(team), ev: "order", targets: []any{2.0, 3.0, 4.0, 99.0},
			res: []any{"true", "false refused", "false refused", "false no agent"}, got: []int64{1, 0, 0}},
		{name: "another event passes", policy: teamPolicy(team), ev: "hello", targets: []any{2.0, 3.0}, res: []any{"true", "true"}, got: []int64{0, 0, 0}},
		{name: "refuses all, itself too", policy: func(_, _ *host.Agent, _ string) bool { return false }, ev: "order", targets: []any{1.0, 2.0},
			res: []any{"false refused", "false refused"}, got: []int64{0, 0, 0}},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/%d_workers", c.name, workers), func(t *testing.T) {
				h, err := host.New(host.Options{Workers: workers, MessagePolicy: c.policy})
				require.NoError(t, err)
				defer h.Close()
				b, err := h.LoadString("order.lua", orderSrc)
				require.NoError(t, err)
				s, err := h.Spawn(b, map[string]any{"targets": c.targets, "ev": c.ev})
				require.NoError(t, err)
				var rs []*host.Agent
				for range 3 {
					r, err := h.Spawn(b, nil)
					require.NoError(t, err)
					rs = append(rs, r)
				}
				require.NoError(t, h.Tick(0.1))
				require.Equal(t, c.res, s.Get("res"))
				require.NoError(t, s.Set("targets", []any{}))
				require.NoError(t, h.Tick(0.1))
				for i, r := range rs {
					got, _ := r.Get("got").(map[string]any)[fmt.Sprint(s.ID())].(float64)
					require.Equal(t, c.got[i], int64(got), "agent %d", r.ID())
					require.Empty(t, r.TakeErrors())
				}
				if c.name == "refuses all, itself too" {
					require.Empty(t, s.Get("got"), "a refused message to itself is not delivered")
				}
				require.Empty(t, s.TakeErrors())
			})
		}
	}
}

// A policy that panics fails the sender's callback with an error naming
// it; nothing is sent by that call, other agents' messages go through, and
// the host goes on ticking.
func TestMessagePolicyPanics(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%d_workers", workers), func(t *testing.T) {
			h, err := host.New(host.Options{Workers: workers, MessagePolicy: func(from, _ *host.Agent, _ string) bool {
				if from.ID() == 1 {
					panic("the game's team table is broken")
				}
				return true
			}})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("order.lua", orderSrc)
			require.NoError(t, err)
			bad, err := h.Spawn(b, map[string]any{"targets": []any{3.0}})
			require.NoError(t, err)
			good, err := h.Spawn(b, map[string]any{"targets": []any{3.0}})
			require.NoError(t, err)
			r, err := h.Spawn(b, nil)
			require.NoError(t, err)
			for range 3 {
				require.NoError(t, h.Tick(0.1))
			}
			errs := bad.TakeErrors()
			require.Len(t, errs, 3, "one a tick")
			for _, e := range errs {
				require.Contains(t, e.Error(), "order.lua:6: ai.send_to: the message policy panicked on \"order\" to agent 3: the game's team table is broken")
				require.Equal(t, host.CallbackUpdate, e.Callback)
			}
			require.Empty(t, bad.Get("res"), "the failed call returned nothing")
			require.Empty(t, good.TakeErrors())
			require.Empty(t, r.TakeErrors())
			require.Equal(t, map[string]any{"2": 2.0}, r.Get("got"), "only the good sender's messages, of ticks 1 and 2")
		})
	}
}

// floodSenders: agents 1..16 flood (ordering soldiers in a loop until the
// quota stops them), agents 17..185 are 169 honest commanders ordering
// four soldiers each a tick, agents 186..225 are the soldiers.
const (
	flooders, commanders, soldiers = 16, 169, 40
	firstSoldier                   = flooders + commanders + 1
)

const floodOrdersSrc = `local ai = require("luaai")
return ai.fsm { initial = "s", context = { role = "soldier", first = 0, n = 0, got = {}, seq = 0 }, states = {
  s = {
    update = function(ctx)
      local me = ai.id()
      if ctx.role == "flood" then
        for i = 1, 1e6 do ai.send_to(ctx.first + (me + i) % ctx.n, "order", { i = i }) end
      elseif ctx.role == "command" then
        for k = 0, 3 do assert(ai.send_to(ctx.first + (me * 7 + k) % ctx.n, "order", { k = k })) end
      end
    end,
    transitions = { { on = "order", when = function(ctx)
      local s = ai.sender()
      ctx.got[tostring(s)] = (ctx.got[tostring(s)] or 0) + 1
      ctx.seq = (ctx.seq * 31 + s) % 1000000007
      return false
    end, to = "s" } },
  },
} }`

func TestMessageQuotaIsPerSender(t *testing.T) {
	const ticks = 4
	var want []any
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%d_workers", workers), func(t *testing.T) {
			// No time budget: a soldier's tick offers some 17,000 orders to a
			// when, and this test is about what is delivered.
			h, err := host.New(host.Options{Workers: workers, Budget: -1, BudgetSteps: 1e9})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("flood.lua", floodOrdersSrc)
			require.NoError(t, err)
			var all []*host.Agent
			for i := 1; i < firstSoldier+soldiers; i++ {
				role := "soldier"
				switch {
				case i <= flooders:
					role = "flood"
				case i < firstSoldier:
					role = "command"
				}
				a, err := h.Spawn(b, map[string]any{"role": role, "first": float64(firstSoldier), "n": float64(soldiers)})
				require.NoError(t, err)
				all = append(all, a)
			}
			for range ticks {
				require.NoError(t, h.Tick(0.1))
			}
			received := map[string]int{}
			var got []any
			for _, a := range all {
				errs := a.TakeErrors()
				if a.ID() > flooders {
					require.Empty(t, errs, "agent %d", a.ID())
					continue
				}
				require.Len(t, errs, ticks, "flooder %d: one error a tick", a.ID())
				for _, e := range errs {
					require.ErrorContains(t, e, "more than 1024 messages (ai.send_to and ai.send) in one tick (MaxMessagesPerTick)")
				}
			}
			for _, a := range all[firstSoldier-1:] {
				for from, n := range a.Get("got").(map[string]any) {
					received[from] += int(n.(float64))
				}
				got = append(got, a.Get("got"), a.Get("seq"))
			}
			// Orders sent in ticks 1..3 were offered in ticks 2..4.
			for id := 1; id < firstSoldier; id++ {
				n := 4 * (ticks - 1) // every honest order
				if id <= flooders {
					n = host.DefaultMaxMessagesPerTick * (ticks - 1)
				}
				require.Equal(t, n, received[fmt.Sprint(id)], "orders from agent %d", id)
			}
			if want == nil {
				want = got
			}
			require.Equal(t, want, got, "the same deliveries, in the same order, whatever the workers")
		})
	}
}

// The quota is an option; a negative one is refused.
func TestMaxMessagesPerTickOption(t *testing.T) {
	cases := []struct {
		max     int
		sent    int    // of 10 ai.send and 10 ai.send_to a tick
		errText string // "" for none
	}{
		{max: 0, sent: 20},
		{max: 20, sent: 20},
		{max: 15, sent: 15, errText: "more than 15 messages"},
		{max: 1, sent: 1, errText: "more than 1 messages"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.max), func(t *testing.T) {
			h, err := host.New(host.Options{MaxMessagesPerTick: c.max})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("q.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { sent = 0 }, states = { s = { update = function(ctx)
  ctx.sent = 0
  for i = 1, 10 do ai.send("e") ctx.sent = ctx.sent + 1 end
  for i = 1, 10 do assert(ai.send_to(ai.id(), "e")) ctx.sent = ctx.sent + 1 end
end } } }`)
			require.NoError(t, err)
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			for range 2 {
				require.NoError(t, h.Tick(0.1))
				require.Equal(t, float64(c.sent), a.Get("sent"), "the quota starts afresh each tick")
				errs := a.TakeErrors()
				if c.errText == "" {
					require.Empty(t, errs)
					continue
				}
				require.Len(t, errs, 1)
				require.ErrorContains(t, errs[0], c.errText)
				call := "ai.send_to"
				if c.max < 10 {
					call = "ai.send"
				}
				require.True(t, strings.Contains(errs[0].Error(), call+": message quota exceeded"), "%v", errs[0])
			}
		})
	}
	_, err := host.New(host.Options{MaxMessagesPerTick: -1})
	require.ErrorContains(t, err, "MaxMessagesPerTick -1 is negative")
}
