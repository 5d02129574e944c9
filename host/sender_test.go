package host_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/require"
)

// senderSrc records ai.sender() in every hook and condition it runs: the
// note event fires an internal transition (when, run), go pushes busy
// (the paused state's pause, the run, busy's enter, its initial state's
// enter), back pops it (busy's exit, the run, idle's resume). Its update
// sends ctx.ev once, with ai.send_to(ctx.to) or ai.send.
const senderSrc = `local ai = require("luaai")
local function rec(ctx, what) ctx.seen[#ctx.seen + 1] = what .. "=" .. tostring(ai.sender()) end
local function upd(ctx)
  rec(ctx, "update")
  if ctx.ev == "" then return end
  if ctx.how == "send_to" then assert(ai.send_to(ctx.to, ctx.ev, { claim = 99 })) else ai.send(ctx.ev) end
  ctx.ev = ""
end
local function run(ctx) rec(ctx, "run") end
return ai.fsm { initial = "idle", context = { seen = {}, to = 0, ev = "", how = "" }, states = {
  idle = {
    update = upd,
    pause = function(ctx) rec(ctx, "pause") end,
    resume = function(ctx) rec(ctx, "resume") end,
    transitions = {
      { on = "note", when = function(ctx) rec(ctx, "when") return true end, run = run },
      { on = "go", push = "busy", run = run },
    },
  },
  busy = ai.fsm { initial = "inner",
    enter = function(ctx) rec(ctx, "enter") end,
    exit = function(ctx) rec(ctx, "exit") end,
    transitions = { { on = "back", pop = true, run = run } },
    states = { inner = { update = upd, enter = function(ctx) rec(ctx, "inner") end } },
  },
} }`

// handled is what the receiver's hooks saw, updates left out (each
// checked to see nil).
func handled(t *testing.T, a *host.Agent) []string {
	t.Helper()
	var out []string
	for _, s := range a.Get("seen").([]any) {
		s := s.(string)
		if strings.HasPrefix(s, "update=") {
			require.Equal(t, "update=nil", s, "an update handles no event")
			continue
		}
		out = append(out, s)
	}
	return out
}

// wantHandled is what handled returns after note, go and back from
// sender s ("nil": the game).
func wantHandled(s string) []string {
	return []string{
		"when=" + s, "run=" + s, // note: an internal transition
		"pause=nil", "run=" + s, "enter=" + s, "inner=nil", // go: push busy
		"exit=nil", "run=" + s, "resume=" + s, // back: pop
	}
}

func TestSenderSeenInHandlers(t *testing.T) {
	cases := []struct {
		name string
		// send makes the event ev reach receiver r, sent by agent s
		// (the receiver itself for ai.send) or by the game.
		send func(t *testing.T, s, r *host.Agent, ev string)
		want func(s, r *host.Agent) string
	}{
		{name: "ai.send_to", send: func(t *testing.T, s, r *host.Agent, ev string) {
			require.NoError(t, s.Set("how", "send_to"))
			require.NoError(t, s.Set("to", float64(r.ID())))
			require.NoError(t, s.Set("ev", ev))
		}, want: func(s, _ *host.Agent) string { return fmt.Sprint(s.ID()) }},
		{name: "ai.send", send: func(t *testing.T, _, r *host.Agent, ev string) {
			require.NoError(t, r.Set("how", "send"))
			require.NoError(t, r.Set("ev", ev))
		}, want: func(_, r *host.Agent) string { return fmt.Sprint(r.ID()) }},
		{name: "Agent.Send from Go", send: func(t *testing.T, _, r *host.Agent, ev string) {
			require.NoError(t, r.Send(ev, map[string]any{"claim": 99}))
		}, want: func(_, _ *host.Agent) string { return "nil" }},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/%d_workers", c.name, workers), func(t *testing.T) {
				h, err := host.New(host.Options{Workers: workers})
				require.NoError(t, err)
				defer h.Close()
				b, err := h.LoadString("sender.lua", senderSrc)
				require.NoError(t, err)
				var agents []*host.Agent
				for range 5 { // the sender 2 and the receiver 5 on different workers
					a, err := h.Spawn(b, nil)
					require.NoError(t, err)
					agents = append(agents, a)
				}
				s, r := agents[1], agents[4]
				for _, ev := range []string{"note", "go", "back"} {
					c.send(t, s, r, ev)
					require.NoError(t, h.Tick(0.1))
					require.NoError(t, h.Tick(0.1))
				}
				require.Equal(t, wantHandled(c.want(s, r)), handled(t, r))
				for _, a := range agents {
					require.Empty(t, a.TakeErrors())
				}
			})
		}
	}
}

// ai.sender outside any callback (a script's main chunk) is nil.
func TestSenderOutsideCallbacks(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	_, err = h.LoadString("main.lua", `local ai = require("luaai")
assert(ai.sender() == nil)
return ai.fsm { initial = "a", states = { a = {} } }`)
	require.NoError(t, err)
}

// A pending message keeps its sender through a snapshot; a snapshot
// written before senders were saved loads, its events from the game.
func TestSenderSurvivesSnapshots(t *testing.T) {
	cases := []struct {
		name string
		edit func(string) string
		want string
	}{
		{name: "saved", edit: func(s string) string { return s }, want: "2"},
		{name: "an old snapshot without senders", edit: func(s string) string {
			require.Contains(t, s, `,"from":2`)
			return strings.ReplaceAll(s, `,"from":2`, "")
		}, want: "nil"},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/%d_workers", c.name, workers), func(t *testing.T) {
				h, err := host.New(host.Options{Workers: workers})
				require.NoError(t, err)
				defer h.Close()
				b, err := h.LoadString("sender.lua", senderSrc)
				require.NoError(t, err)
				for range 3 {
					_, err := h.Spawn(b, nil)
					require.NoError(t, err)
				}
				s, _ := h.Agent(2)
				require.NoError(t, s.Set("how", "send_to"))
				require.NoError(t, s.Set("to", 3.0))
				require.NoError(t, s.Set("ev", "note"))
				require.NoError(t, h.Tick(0.1)) // queued for agent 3's next tick
				snap, err := h.Snapshot()
				require.NoError(t, err)

				h2, err := host.New(host.Options{Workers: 5 - workers})
				require.NoError(t, err)
				defer h2.Close()
				b2, err := h2.LoadString("sender.lua", senderSrc)
				require.NoError(t, err)
				_, err = h2.Restore([]byte(c.edit(string(snap))), b2)
				require.NoError(t, err)
				require.NoError(t, h2.Tick(0.1))
				r, ok := h2.Agent(3)
				require.True(t, ok)
				require.Equal(t, []string{"when=" + c.want, "run=" + c.want}, handled(t, r))
			})
		}
	}
}

func TestSenderShownInView(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("sender.lua", senderSrc)
	require.NoError(t, err)
	s, err := h.Spawn(b, map[string]any{"how": "send_to", "to": 2.0, "ev": "note"})
	require.NoError(t, err)
	r, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, r.Send("go", nil))
	var got []hosttool.PendingEvent
	for _, e := range hosttool.View(r).Events {
		got = append(got, hosttool.PendingEvent{Name: e.Name, Message: e.Message, Sender: e.Sender})
	}
	require.Equal(t, []hosttool.PendingEvent{{Name: "go"}, {Name: "note", Message: true, Sender: s.ID()}}, got)
}
