package host_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
)

// floodSrc is an fsm whose state waits on `transitions` transitions
// (each `on = <on(i)>`, with the fields extra) while its steps, 16 items
// run every tick, send `events` events named "noise" in all: the most an
// agent may have pending (MaxPendingEvents), each callback far inside
// its budget.
func floodSrc(transitions, events int, on, extra string) string {
	return fmt.Sprintf(`local ai = require("luaai")
local tr = {}
for i = 1, %d do tr[i] = { on = %s, to = "other"%s } end
local function flood(ctx)
  for i = 1, %d do ai.send("noise", i) end
end
local steps = {}
for i = 1, 16 do steps[i] = flood end
return ai.fsm { initial = "s", context = { updates = 0 }, states = {
  s = { steps = steps, steps_loop = true, transitions = tr,
        update = function(ctx) ctx.updates = ctx.updates + 1 end },
  other = {},
} }`, transitions, on, extra, events/16)
}

// regionsFloodSrc is floodSrc's flood with its transitions spread over
// 3,000 parallel regions, 13 each (39,000), none of which listens.
func regionsFloodSrc(events int) string {
	return fmt.Sprintf(`local ai = require("luaai")
local regions = {}
for r = 1, 3000 do
  local tr = {}
  for i = 1, 13 do tr[i] = { on = "t" .. i, to = "b" } end
  regions["r" .. r] = ai.fsm { initial = "a", states = { a = { transitions = tr }, b = {} } }
end
local function flood(ctx)
  for i = 1, %d do ai.send("noise", i) end
end
local steps = {}
for i = 1, 16 do steps[i] = flood end
return ai.fsm { initial = "s", context = { updates = 0 }, states = {
  s = ai.regions { states = regions, steps = steps, steps_loop = true,
                   update = function(ctx) ctx.updates = ctx.updates + 1 end },
} }`, events/16)
}

// 40,000 transitions waiting on events while the agent is sent 65,536
// events a tick: matching them costs each tick a few milliseconds, not
// seconds (before, each transition scanned every event: 31 s of CPU for
// one tick); when every transition has a when to call for every event, the
// agent's tick budget cuts the decide phase, reported once, and the agent
// goes on. Each tick's CPU time stays under twice the tick budget.
//
// On a busy machine the tick budget (wall time while the tick works) may
// also cut a tick in its steps; such ticks are allowed, not required.
func TestEventFloodWithinTickBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("65,536 sends a tick under the race detector run past the callback budget")
	}
	cases := []struct {
		name, src string
		cut       []bool // per tick: the decide phase is cut by the tick budget
	}{
		{name: "no transition listens", src: floodSrc(40000, host.MaxPendingEvents, `"t" .. i`, ""),
			cut: []bool{false, false, false, false}},
		{name: "in 3,000 regions", src: regionsFloodSrc(host.MaxPendingEvents),
			cut: []bool{false, false, false}},
		{name: "every transition tries every event", src: floodSrc(40000, host.MaxPendingEvents, `"noise"`, `, when = function(ctx, p) return false end`),
			// The cut tick's steps are stopped too: the next tick has no
			// events, and sends them again.
			cut: []bool{false, true, false, true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var errs []*host.ScriptError
			h, err := host.New(host.Options{Workers: 1, MaxOverruns: 1000, ReportAllErrors: true, MaxMessagesPerTick: host.MaxPendingEvents,
				OnError: func(e *host.ScriptError) { errs = append(errs, e) },
			})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("flood.lua", c.src)
			require.NoError(t, err)
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			budget := host.DefaultAgentTickBudget
			updates, busy := 0, false // busy: the last tick was cut in its steps
			for i, cut := range c.cut {
				tick := i + 1
				before := len(errs)
				if tick > 1 && !c.cut[i-1] && !busy {
					// The steps sent as many events as may wait.
					require.ErrorContains(t, a.Send("one more", nil), "more than 65536 events", "tick %d", tick)
				}
				runtime.GC() // the garbage of what came before is not the tick's
				cpu := threadCPU(t, func() { require.NoError(t, h.Tick(0.1)) })
				t.Logf("tick %d: %v of CPU, errors %v", tick, cpu, errs[before:])
				require.Less(t, cpu, 2*budget, "tick %d", tick)
				require.Greater(t, cpu, time.Millisecond, "tick %d: the thread that ran the tick was measured", tick)
				busy = false
				if !cut {
					for _, e := range errs[before:] {
						// Only the steps, cut by wall time on a busy machine.
						require.Equal(t, host.CallbackSteps, e.Callback, "tick %d: %v", tick, e)
						busy = true
					}
					updates++
					continue
				}
				require.Len(t, errs, before+1, "tick %d: one report", tick)
				e := errs[before]
				require.ErrorIs(t, e, host.ErrBudget)
				var be *scripterr.BudgetError
				require.True(t, errors.As(e, &be) && be.Tick, "%v", e)
				require.Contains(t, e.Msg, "the agent's tick ran past its 200ms budget")
				require.Equal(t, host.CallbackWhen, e.Callback)
				require.Equal(t, tick, e.Tick)
			}
			n, _ := a.Number("updates")
			require.Equal(t, float64(updates), n, "every tick not cut ran its update")
			require.False(t, a.Suspended())
		})
	}
}

// The events a cut decide phase did not reach are dropped with the rest
// (reported to OnEventDropped): the next tick does not see them.
func TestEventsLeftByACutTickAreDropped(t *testing.T) {
	var errs []*host.ScriptError
	var dropped []string
	h, err := host.New(host.Options{Budget: time.Second, AgentTickBudget: 60 * time.Millisecond, ReportAllErrors: true,
		OnError: func(e *host.ScriptError) { errs = append(errs, e) },
		OnEventDropped: func(e host.DroppedEvent) {
			dropped = append(dropped, fmt.Sprintf("%d %s %s", e.Tick, e.Event, e.State))
		},
	})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("slow.lua", `local ai = require("luaai")
local function slow(ctx) for i = 1, 100000 do end return false end
return ai.fsm { initial = "s", states = {
  s = { transitions = { { on = "slow", to = "never", when = slow }, { on = "go", to = "done" } } },
  never = {}, done = {},
} }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	const slow = 2000 // ~100,000 instructions each: seconds of work in all
	for range slow {
		require.NoError(t, a.Send("slow", nil))
	}
	require.NoError(t, a.Send("go", nil))
	require.NoError(t, h.Tick(0.1))
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], host.ErrBudget)
	require.Contains(t, errs[0].Msg, "the agent's tick ran past its 60ms budget")
	require.Equal(t, "s", a.Path(), "the go event was not reached")
	require.Len(t, dropped, slow+1, "every event is dropped: those the when refused and those not reached")
	require.Equal(t, "1 go s", dropped[slow])

	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "s", a.Path(), "the go event is not kept for the next tick")
	require.Len(t, errs, 1)
	require.NoError(t, a.Send("go", nil))
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "done", a.Path(), "the agent goes on")
	require.Len(t, errs, 1)
}
