package host_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/fuzzgen"
	"github.com/luaai/luaai/internal/plainjson"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// The rules of payloads, messages, steps, trees and regions, each written
// from the contract's sentence.

func semHost(t *testing.T, opts host.Options) *host.Host {
	t.Helper()
	h, err := host.New(opts)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return h
}

func semLoad(t *testing.T, h *host.Host, src string) *host.Behaviour {
	t.Helper()
	b, err := h.LoadString("sem.lua", src)
	require.NoError(t, err)
	return b
}

// "An agent can message itself, from its spawn-time enter too."
func TestSelfMessageAtSpawn(t *testing.T) {
	h := semHost(t, host.Options{})
	b := semLoad(t, h, `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { sent = "no" }, states = {
  idle = { enter = function(ctx) ctx.sent = tostring(ai.send_to(ai.id(), "ping", { n = 1 })) end,
    transitions = { { to = "pinged", on = "ping", run = function(ctx, p) ctx.n = p.n end } } },
  pinged = {} } }`)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	sent, _ := a.Text("sent")
	require.Equal(t, "true", sent)
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "pinged", a.Path())
	n, _ := a.Number("n")
	require.Equal(t, 1.0, n)
}

// "steps_loop = true, steps = { ai.wait(0.1), f } at dt 0.1 runs f every
// tick from the second."
func TestLoopedWaitCountsFromTheLoop(t *testing.T) {
	h := semHost(t, host.Options{})
	b := semLoad(t, h, `local ai = require("luaai")
return ai.fsm { initial = "s", context = { ran = "" }, states = { s = {
  steps_loop = true,
  steps = { ai.wait(0.1), function(ctx) ctx.ran = ctx.ran .. ctx.tick .. " " end },
  update = function(ctx) ctx.tick = (ctx.tick or 0) + 1 end,
} } }`)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	for range 6 {
		require.NoError(t, h.Tick(0.1))
	}
	ran, _ := a.Text("ran")
	require.Equal(t, "2 3 4 5 6 ", ran)
}

// "A transition's run sees the machine between states: the exited state
// is no longer active (ai.state(), ai.active), the entered one not yet."
func TestRunSeesTheMachineBetweenStates(t *testing.T) {
	h := semHost(t, host.Options{})
	b := semLoad(t, h, `local ai = require("luaai")
local function seen(ctx) ctx.seen[#ctx.seen + 1] = tostring(ai.state()) .. " a=" .. tostring(ai.active("a")) .. " b=" .. tostring(ai.active("b")) .. " c=" .. tostring(ai.active("c")) end
return ai.fsm { initial = "top", context = { seen = {} }, states = {
  top = ai.fsm { initial = "a", states = {
    a = { transitions = { { to = "b", on = "go", run = seen } } },
    b = { transitions = { { push = "c", on = "go", run = seen } } },
    c = { transitions = { { pop = true, on = "go", run = seen } } },
  } } } }`)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	for range 3 {
		require.NoError(t, a.Send("go", nil))
		require.NoError(t, h.Tick(0.1))
	}
	seen, _ := a.Get("seen").([]any)
	require.Equal(t, []any{
		"top a=false b=false c=false", // to: a exited, b not yet entered
		"top a=false b=true c=false",  // push: b paused (still on the stack), c not yet entered
		"top a=false b=true c=false",  // pop: c exited, b paused until its resume
	}, seen)
	require.Equal(t, "top.b", a.Path())
}

// "Tree time is the sum of the dt of the updates the tree state receives,
// exactly as for steps": through a push and a pop, with a dt that varies
// from tick to tick, a tree's wait and the same wait in steps finish in
// the same update.
func TestTreeTimeIsUpdateTime(t *testing.T) {
	for _, tc := range []struct {
		pushAt, gap int
		dts         []float64
	}{{2, 1, []float64{0.1, 0.2}}, {2, 3, []float64{0.05, 0.15}}, {3, 1, []float64{0.1, 0.2}}, {2, 2, []float64{0.1}}} {
		h := semHost(t, host.Options{})
		b := semLoad(t, h, `local ai = require("luaai")
return ai.fsm { initial = "t", context = { tick = 0 }, states = {
  t = ai.tree {
    update = function(ctx) ctx.tick = ctx.tick + 1 end,
    steps = { ai.wait(0.3), function(ctx) ctx.steps_done = ctx.tick end },
    root = ai.sequence { ai.wait(0.3), ai.action(function(ctx) ctx.tree_done = ctx.tree_done or ctx.tick return "running" end) },
    transitions = { { push = "other", on = "away" } } },
  other = { transitions = { { pop = true, on = "back" } } } } }`)
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		for i := 1; i <= 30; i++ {
			if i == tc.pushAt {
				require.NoError(t, a.Send("away", nil))
			}
			if i == tc.pushAt+tc.gap {
				require.NoError(t, a.Send("back", nil))
			}
			require.NoError(t, h.Tick(tc.dts[i%len(tc.dts)]))
		}
		steps, _ := a.Number("steps_done")
		tree, _ := a.Number("tree_done")
		require.NotZero(t, steps)
		require.Equal(t, steps, tree, "the tree's wait and the steps' wait finish together: %+v", tc)
	}
}

// "ai.wait_until(cond) ... is a condition, like when and ai.check:
// ai.push/pop/replace inside it raise."
func TestWaitUntilCannotChangeState(t *testing.T) {
	var errs []*host.ScriptError
	h := semHost(t, host.Options{OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
	b := semLoad(t, h, `local ai = require("luaai")
return ai.fsm { initial = "s", states = {
  s = { steps = { ai.wait_until(function(ctx) ai.replace("other") return false end) } },
  other = {} } }`)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "s", a.Path(), "the condition changed no state")
	require.NotEmpty(t, errs)
	require.Equal(t, host.CallbackSteps, errs[0].Callback)
	require.Contains(t, errs[0].Msg, "only allowed in hooks")
	require.Contains(t, errs[0].Msg, "wait_until")
}

// "an id that is not an integer number (a string, nil, NaN, ±inf, 1.5, a
// table) is a Lua error in the sender naming ai.send_to and the type; an
// integer id that names no live agent returns false."
func TestSendToIDs(t *testing.T) {
	h := semHost(t, host.Options{})
	b := semLoad(t, h, `local ai = require("luaai")
return ai.fsm { initial = "s", context = { out = {} }, states = { s = { enter = function(ctx)
  for _, id in ipairs({ "2", "nil", "nan", "inf", "-inf", "1.5", "table" }) do
    local v = ({ ["2"] = "2", ["nan"] = 0/0, ["inf"] = 1/0, ["-inf"] = -1/0, ["1.5"] = 1.5, ["table"] = {} })[id]
    local ok, err = pcall(ai.send_to, v, "x")
    ctx.out[#ctx.out + 1] = id .. ": " .. tostring(ok) .. " " .. tostring(err)
  end
  ctx.out[#ctx.out + 1] = "99: " .. tostring(ai.send_to(99, "x"))
  ctx.out[#ctx.out + 1] = "0: " .. tostring(ai.send_to(0, "x"))
end } } }`)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	out, _ := a.Get("out").([]any)
	require.Len(t, out, 9)
	wants := []string{
		"2: false sem.lua:5: ai.send_to: the id must be an agent id (an integer), got a string",
		"nil: false sem.lua:5: ai.send_to: the id must be an agent id (an integer), got a nil",
		"nan: false sem.lua:5: ai.send_to: the id must be an agent id (an integer), got the number NaN",
		"inf: false sem.lua:5: ai.send_to: the id must be an agent id (an integer), got the number +Inf",
		"-inf: false sem.lua:5: ai.send_to: the id must be an agent id (an integer), got the number -Inf",
		"1.5: false sem.lua:5: ai.send_to: the id must be an agent id (an integer), got the number 1.5",
		"table: false sem.lua:5: ai.send_to: the id must be an agent id (an integer), got a table",
		"99: false",
		"0: false",
	}
	for i, w := range wants {
		require.True(t, strings.HasPrefix(out[i].(string), w), "%q", out[i])
	}
}

// "Requests pending in several regions are applied innermost machine
// first, then in region name order"; and a refused request restored from
// a snapshot is reported at the line of its ai.* call.
func TestRegionRequestsOrder(t *testing.T) {
	var trs []string
	h := semHost(t, host.Options{OnTransition: func(tr host.Transition) {
		if tr.Kind == host.TransitionPush {
			trs = append(trs, tr.To)
		}
	}})
	src := `local ai = require("luaai")
local function ask(ctx) if ctx.go then ai.push("p") end end
local function m() return ai.fsm { initial = "i", states = { i = { update = ask }, p = {} } } end
return ai.regions { context = { go = false }, states = {
  a = ai.fsm { initial = "x", states = { x = ai.fsm { initial = "i", states = { i = { update = ask }, p = {} } }, p = { } } },
  b = m(),
} }`
	b := semLoad(t, h, src)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, a.Set("go", true))
	require.NoError(t, h.Tick(0.1)) // requests in a.x (inner) and b (outer)
	require.NoError(t, a.Set("go", false))
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, []string{"a.x.p", "b.p"}, trs, "the innermost machine first, then region name order")

	// A pop that will be refused (the last state), saved and restored.
	var errs []*host.ScriptError
	h2 := semHost(t, host.Options{OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
	popper := `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = { update = function(ctx)
  ctx.n = ctx.n + 1
  if ctx.n == 1 then ai.pop() end
end } } }`
	b2 := semLoad(t, h2, popper)
	a2, err := h2.Spawn(b2, nil)
	require.NoError(t, err)
	require.NoError(t, h2.Tick(0.1))
	data, err := a2.Snapshot()
	require.NoError(t, err)
	h3 := semHost(t, host.Options{OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
	b3 := semLoad(t, h3, popper)
	_, err = h3.Restore(data, b3)
	require.NoError(t, err)
	require.NoError(t, h3.Tick(0.1))
	require.Len(t, errs, 1)
	require.Equal(t, 4, errs[0].Line, "at the ai.pop call, not the machine")
	require.Contains(t, errs[0].Msg, "cannot pop the last state")
}

// Already so, kept: a tree state's running nodes are halted before its exit
// hook runs (ai.state() there has no brackets), and messages between agents
// ticked one at a time arrive in send order.
func TestTreeHaltedBeforeExitAndSendOrder(t *testing.T) {
	h := semHost(t, host.Options{})
	b := semLoad(t, h, `local ai = require("luaai")
return ai.fsm { initial = "t", states = {
  t = ai.tree { root = ai.action(function() return "running" end, { name = "run" }),
    exit = function(ctx) ctx.at_exit = ai.state() end,
    transitions = { { to = "done", on = "stop" } } },
  done = {} } }`)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "t[run]", a.Path())
	require.NoError(t, a.Send("stop", nil))
	require.NoError(t, h.Tick(0.1))
	atExit, _ := a.Text("at_exit")
	require.Equal(t, "t", atExit)

	// Senders ticked one at a time: the receiver's next tick sees their
	// messages in send order (not in sender id order).
	var seen []string
	h2 := semHost(t, host.Options{OnEventDropped: func(d host.DroppedEvent) { seen = append(seen, d.Event) }})
	recv := semLoad(t, h2, `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {} } }`)
	send := semLoad(t, h2, `local ai = require("luaai")
return ai.fsm { initial = "s", context = { to = 0, msg = "" }, states = { s = {
  update = function(ctx) ai.send_to(ctx.to, ctx.msg) end } } }`)
	r, err := h2.Spawn(recv, nil)
	require.NoError(t, err)
	x, err := h2.Spawn(send, map[string]any{"to": r.ID(), "msg": "from_x"})
	require.NoError(t, err)
	y, err := h2.Spawn(send, map[string]any{"to": r.ID(), "msg": "from_y"})
	require.NoError(t, err)
	require.NoError(t, y.Tick(0.1)) // y's message first, though y's id is higher
	require.NoError(t, x.Tick(0.1))
	require.NoError(t, y.Set("msg", "from_y_again"))
	require.NoError(t, y.Tick(0.1))
	require.NoError(t, r.Tick(0.1))
	require.Equal(t, []string{"from_y", "from_x", "from_y_again"}, seen)
}

// Generated behaviours (fsm, utility, regions, trees, steps; good ones)
// run the same with 1, 2 and 4 workers and through a save and restore
// halfway: the same transitions, in the same order, and the same final
// states and contexts.
func TestGeneratedBehavioursAgree(t *testing.T) {
	defs, agents := 200, 70
	if raceEnabled || testing.Short() {
		defs = 40
	}
	loaded := 0
	// Most generated definitions are bad on purpose (the fuzzer's): go
	// through seeds until enough good ones ran.
	for seed := 0; loaded < defs && seed < 200*defs; seed++ {
		data := make([]byte, 96)
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		src := fuzzgen.Definition(data)
		run := func(workers int, restoreAt int) string {
			var trace strings.Builder
			opts := host.Options{Workers: workers, Budget: -1, BudgetSteps: 100000, MemoryLimit: -1, Seed: 3, Stdout: io.Discard,
				OnTransition: func(tr host.Transition) {
					fmt.Fprintf(&trace, "%d %d %s %s>%s\n", tr.Tick, tr.Agent, tr.Kind, tr.From, tr.To)
				}}
			h, err := host.New(opts)
			require.NoError(t, err)
			defer func() { h.Close() }()
			b, err := h.LoadString("def.lua", src)
			if err != nil {
				return "load error"
			}
			for range agents {
				if _, err := h.Spawn(b, nil); err != nil {
					return "spawn error"
				}
			}
			for tick := 1; tick <= 10; tick++ {
				if tick == restoreAt {
					snap, err := h.Snapshot()
					if err != nil {
						return "unsaveable" // a function kept in a context
					}
					g, err := host.New(opts)
					require.NoError(t, err)
					gb, err := g.LoadString("def.lua", src)
					require.NoError(t, err)
					_, err = g.Restore(snap, gb)
					require.NoError(t, err, "%s", src)
					h.Close()
					h = g
				}
				for _, a := range h.Agents() {
					if (tick+a.ID())%3 == 0 {
						require.NoError(t, a.Send("hit", float64(tick)))
					}
				}
				require.NoError(t, h.Tick(0.1))
			}
			for _, a := range h.Agents() {
				fmt.Fprintf(&trace, "%d %s %v\n", a.ID(), a.Path(), plainjson.Safe(a.Context()))
			}
			return trace.String()
		}
		want := run(1, 0)
		if want == "load error" {
			continue
		}
		loaded++
		for _, workers := range []int{2, 4} {
			require.Equal(t, want, run(workers, 0), "%d workers:\n%s", workers, src)
		}
		if got := run(2, 5); got != "unsaveable" {
			// The same, but for the lines the restore reports itself.
			require.Equal(t, want, withoutRestores(got), "restored:\n%s", src)
		}
	}
	require.Equal(t, defs, loaded, "too few generated behaviours load to say anything")
}

// withoutRestores drops the transitions of kind restore from a trace.
func withoutRestores(trace string) string {
	var out []string
	for _, l := range strings.SplitAfter(trace, "\n") {
		if !strings.Contains(l, " restore ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
