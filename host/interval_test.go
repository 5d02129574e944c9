package host_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// tiered counts its updates, adds up their dt, reads ai.interval() and goes
// to "alert" for 0.25 s on a "ping".
const tiered = `local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  context = { n = 0, sum = 0, k = 0, pings = "" },
  states = {
    idle = {
      update = function(ctx, dt) ctx.n = ctx.n + 1; ctx.sum = ctx.sum + dt; ctx.k = ai.interval() end,
      transitions = { { to = "alert", on = "ping", run = function(ctx, p) ctx.pings = ctx.pings .. p .. ";" end } },
    },
    alert = {
      update = function(ctx, dt) ctx.n = ctx.n + 1; ctx.sum = ctx.sum + dt; ctx.k = ai.interval() end,
      transitions = {
        { on = "ping", run = function(ctx, p) ctx.pings = ctx.pings .. p .. ";" end },
        { to = "idle", after = 0.25 },
      },
    },
  },
}`

// newTiered is a host with deterministic budgets and the tiered behaviour.
func newTiered(t *testing.T, workers int, opts ...func(*host.Options)) (*host.Host, *host.Behaviour) {
	t.Helper()
	o := host.Options{Workers: workers, Seed: 7, Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7}
	for _, f := range opts {
		f(&o)
	}
	h, err := host.New(o)
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	b, err := h.LoadString("tiered.lua", tiered)
	require.NoError(t, err)
	return h, b
}

func num(t *testing.T, a *host.Agent, key string) float64 {
	t.Helper()
	v, ok := a.Number(key)
	require.True(t, ok, key)
	return v
}

// TestIntervalSchedule: an agent with interval k is ticked on the host
// ticks n where (n + id) mod k == 0, with dt the sum of the host dts since
// its previous tick, and ai.interval() reads k.
func TestIntervalSchedule(t *testing.T) {
	dts := []float64{0.1, 0.05, 0.2, 0.1, 0.3, 0.05, 0.1, 0.1, 0.25, 0.1, 0.15}
	for _, tc := range []struct {
		name     string
		interval int // SpawnOptions.Interval
	}{
		{"zero is every tick", 0},
		{"every tick", 1},
		{"every 2nd", 2},
		{"every 3rd", 3},
		{"every 4th", 4},
		{"longer than the run", 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, b := newTiered(t, 1)
			var agents []*host.Agent
			for range 6 { // ids 1..6: every phase of the small intervals
				a, err := h.SpawnWith(b, host.SpawnOptions{Interval: tc.interval})
				require.NoError(t, err)
				agents = append(agents, a)
			}
			k := max(tc.interval, 1)
			for _, a := range agents {
				require.Equal(t, k, a.Interval())
			}
			for _, dt := range dts {
				require.NoError(t, h.Tick(dt))
			}
			require.Equal(t, len(dts), h.TickNumber())
			for _, a := range agents {
				ticks, sum, owed := 0, 0.0, 0.0
				for i, dt := range dts {
					owed += dt
					if (i+1+a.ID())%k == 0 {
						ticks++
						sum += owed
						owed = 0
					}
				}
				require.Equal(t, ticks, a.Ticks(), "agent %d", a.ID())
				require.Equal(t, float64(ticks), num(t, a, "n"), "agent %d", a.ID())
				require.InDelta(t, sum, a.Clock(), 1e-9, "agent %d", a.ID())
				require.InDelta(t, sum, num(t, a, "sum"), 1e-9, "agent %d", a.ID())
				if ticks > 0 {
					require.Equal(t, float64(k), num(t, a, "k"), "agent %d: ai.interval()", a.ID())
				}
			}
		})
	}
}

// TestSetInterval: a new interval takes effect from the next host tick,
// and the time already owed is handed over at the agent's next tick.
func TestSetInterval(t *testing.T) {
	for _, tc := range []struct {
		name      string
		from, to  int
		before    int // host ticks at the first interval
		after     int // host ticks at the second
		wantTicks int
		wantClock float64 // every host tick is 0.1 s
	}{
		// id 1, k 4: ticks 3, 7; owed 0.1 (tick 8). At 1: ticks 9, 10.
		{"slower to faster", 4, 1, 8, 2, 4, 1.0},
		// id 1, k 1: ticks 1..3. At 3: ticks 5, 8 (owed 0.1 at the end).
		{"faster to slower", 1, 3, 3, 6, 5, 0.8},
		// id 1, k 2: ticks 1, 3, 5 (owed 0.1). At 5: (n+1)%5==0 → tick 9.
		{"owed kept across the change", 2, 5, 6, 4, 4, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, b := newTiered(t, 1)
			a, err := h.SpawnWith(b, host.SpawnOptions{Interval: tc.from})
			require.NoError(t, err)
			for range tc.before {
				require.NoError(t, h.Tick(0.1))
			}
			require.NoError(t, a.SetInterval(tc.to))
			require.Equal(t, tc.to, a.Interval())
			for range tc.after {
				require.NoError(t, h.Tick(0.1))
			}
			require.Equal(t, tc.wantTicks, a.Ticks())
			require.InDelta(t, tc.wantClock, a.Clock(), 1e-9)
		})
	}
}

// TestIntervalBadInput: an interval below 1 from Go is an error wrapping
// ErrBadInterval, and changes nothing.
func TestIntervalBadInput(t *testing.T) {
	h, b := newTiered(t, 1)
	a, err := h.SpawnWith(b, host.SpawnOptions{Interval: 3})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"spawn negative", func() error { _, err := h.SpawnWith(b, host.SpawnOptions{Interval: -1}); return err }},
		{"set zero", func() error { return a.SetInterval(0) }},
		{"set negative", func() error { return a.SetInterval(-4) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.ErrorIs(t, err, host.ErrBadInterval)
			require.Contains(t, err.Error(), "interval")
			require.Equal(t, 1, h.Len(), "no agent made")
			require.Equal(t, 3, a.Interval(), "interval unchanged")
		})
	}
	require.NoError(t, h.Remove(a))
	require.ErrorIs(t, a.SetInterval(2), host.ErrClosed)
}

// TestIntervalFromScriptIsReentrant: SetInterval from a Go function a
// script calls while the workers run is refused, as the other methods that
// change agents are.
func TestIntervalFromScriptIsReentrant(t *testing.T) {
	var got error
	h, err := host.New(host.Options{Funcs: map[string]map[string]any{"game": {
		"slow_down": func(a *host.Agent) { got = a.SetInterval(2) },
	}}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("s.lua", `local ai = require("luaai")
local g = require("game")
return ai.fsm { initial = "s", states = { s = { update = function() g.slow_down() end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.ErrorIs(t, got, host.ErrReentrant)
	require.Equal(t, 1, a.Interval())
}

// TestIntervalEventsWait: events sent to an agent wait for its tick, and
// are then handled as they would be by an agent ticked every host tick that
// received them all before one tick.
func TestIntervalEventsWait(t *testing.T) {
	run := func(interval int, ticksBeforeLast int) (trs []string, pings any) {
		h, b := newTiered(t, 1, func(o *host.Options) {
			o.OnTransition = func(tr host.Transition) {
				trs = append(trs, fmt.Sprintf("%d:%s>%s", tr.Tick, tr.From, tr.To))
			}
		})
		a, err := h.SpawnWith(b, host.SpawnOptions{Interval: interval})
		require.NoError(t, err)
		require.NoError(t, a.Send("ping", "a"))
		require.NoError(t, a.Send("ping", "b"))
		for range ticksBeforeLast {
			require.NoError(t, h.Tick(0.1))
		}
		require.NoError(t, a.Send("ping", "c"))
		require.Equal(t, 0, a.Ticks(), "not its tick yet")
		require.NoError(t, h.Tick(0.1))
		require.Equal(t, 1, a.Ticks())
		// after = 0.25 in alert: it counts the agent's dt.
		for range 3 * interval {
			require.NoError(t, h.Tick(0.1))
		}
		return trs, a.Context()["pings"]
	}
	wantTrs, wantPings := run(1, 0)
	require.Equal(t, []string{"0:>idle", "1:idle>alert", "4:alert>idle"}, wantTrs)
	for _, tc := range []struct {
		name            string
		interval, ticks int    // id 1 first ticks on host tick k - 1
		back            string // alert's after = 0.25 fires at the agent tick whose dts reach it
	}{
		{"every 2nd", 2, 0, "3:alert>idle"},
		{"every 3rd", 3, 1, "2:alert>idle"},
		{"every 4th", 4, 2, "2:alert>idle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trs, pings := run(tc.interval, tc.ticks)
			require.Equal(t, wantPings, pings)
			require.Equal(t, wantTrs[:2], trs[:2])
			require.Equal(t, tc.back, trs[2])
		})
	}
}

// TestIntervalSnapshot: snapshots keep the interval; an older snapshot
// without it loads with 1; a bad one is refused.
func TestIntervalSnapshot(t *testing.T) {
	h, b := newTiered(t, 1)
	for _, k := range []int{1, 3, 4} {
		_, err := h.SpawnWith(b, host.SpawnOptions{Interval: k})
		require.NoError(t, err)
	}
	for range 5 {
		require.NoError(t, h.Tick(0.1))
	}
	data, err := h.Snapshot()
	require.NoError(t, err)
	var file struct {
		Agents []map[string]json.RawMessage `json:"agents"`
	}
	require.NoError(t, json.Unmarshal(data, &file))
	_, has := file.Agents[0]["interval"]
	require.False(t, has, "interval 1 is left out: older snapshots stay as they were")

	for _, tc := range []struct {
		name    string
		edit    func(string) string
		want    []int
		wantErr error
	}{
		{"kept", func(s string) string { return s }, []int{1, 3, 4}, nil},
		{"older snapshot without it", func(s string) string {
			return regexp.MustCompile(`,"interval":\d+`).ReplaceAllString(s, ``)
		}, []int{1, 1, 1}, nil},
		{"negative", func(s string) string {
			return strings.Replace(s, `"interval":3`, `"interval":-3`, 1)
		}, nil, host.ErrBadSnapshot},
		{"not an integer", func(s string) string {
			return strings.Replace(s, `"interval":3`, `"interval":2.5`, 1)
		}, nil, host.ErrBadSnapshot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := tc.edit(string(data))
			require.True(t, tc.wantErr == nil || edited != string(data), "the edit must change the snapshot")
			h2, b2 := newTiered(t, 1)
			agents, err := h2.Restore([]byte(edited), b2)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				require.Contains(t, err.Error(), "interval")
				return
			}
			require.NoError(t, err)
			var got []int
			for _, a := range agents {
				got = append(got, a.Interval())
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// TestIntervalKeptByReload: a reload keeps each agent's interval.
func TestIntervalKeptByReload(t *testing.T) {
	h, b := newTiered(t, 2)
	a, err := h.SpawnWith(b, host.SpawnOptions{Interval: 3})
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, b.ReloadSource(strings.Replace(tiered, "ctx.n + 1", "ctx.n + 10", -1)))
	require.Equal(t, 3, a.Interval())
	for range 6 {
		require.NoError(t, h.Tick(0.1))
	}
	// id 1, k 3: host ticks 2, 5 after the reload (+10 each), 0 before.
	require.Equal(t, 20.0, num(t, a, "n"))
}

// tieredRun runs 300 agents of mixed intervals (changed midway), pinged
// from Go and from each other, and returns the host's snapshot and every
// hook call.
func tieredRun(t *testing.T, workers int) (snapshot []byte, trace []string) {
	const src = `local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  context = { n = 0, sum = 0 },
  states = {
    idle = {
      update = function(ctx, dt)
        ctx.n = ctx.n + 1; ctx.sum = ctx.sum + dt
        if ctx.n % 3 == 0 then ai.send_to(ai.id() % 300 + 1, "ping", ai.id()) end
      end,
      transitions = { { to = "alert", on = "ping" } },
    },
    alert = {
      enter = function(ctx) ai.log("alert from " .. tostring(ai.sender()) .. " every " .. ai.interval()) end,
      transitions = { { to = "idle", after = 0.3 } },
    },
  },
}`
	h, err := host.New(host.Options{
		Workers: workers, Seed: 3, Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7,
		OnTransition: func(tr host.Transition) {
			trace = append(trace, fmt.Sprintf("T %d %d %s>%s", tr.Tick, tr.Agent, tr.From, tr.To))
		},
		OnLog: func(l host.Log) { trace = append(trace, fmt.Sprintf("L %d %d %s", l.Tick, l.Agent, l.Msg)) },
	})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("mixed.lua", src)
	require.NoError(t, err)
	var agents []*host.Agent
	for i := range 300 {
		a, err := h.SpawnWith(b, host.SpawnOptions{Interval: []int{1, 4, 4, 4, 2}[i%5]})
		require.NoError(t, err)
		agents = append(agents, a)
	}
	for tick := range 30 {
		if tick == 15 {
			for _, a := range agents {
				if a.ID()%7 == 0 {
					require.NoError(t, a.SetInterval(3))
				}
			}
		}
		if tick%4 == 0 {
			require.NoError(t, agents[tick].Send("ping", nil))
		}
		require.NoError(t, h.Tick(0.05+float64(tick%3)*0.02))
	}
	snapshot, err = h.Snapshot()
	require.NoError(t, err)
	return snapshot, trace
}

// TestIntervalWorkersAgree: the same run gives the same snapshot and hook
// calls with 1, 2 and 4 workers.
func TestIntervalWorkersAgree(t *testing.T) {
	snap1, trace1 := tieredRun(t, 1)
	require.Greater(t, len(trace1), 300)
	require.True(t, bytes.Contains(snap1, []byte(`"interval":4`)))
	for _, w := range []int{2, 4} {
		snap, trace := tieredRun(t, w)
		require.Equal(t, trace1, trace, "workers=%d", w)
		require.Equal(t, string(snap1), string(snap), "workers=%d", w)
	}
}

// TestIntervalSpreadsEvenly: the agents of an interval are spread over the
// host ticks by id, so each host tick ticks about the same number of them.
func TestIntervalSpreadsEvenly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		interval func(id int) int
		min, max int // agents ticked on every host tick, of 100
	}{
		{"all every 2nd", func(int) int { return 2 }, 50, 50},
		{"all every 3rd", func(int) int { return 3 }, 33, 34},
		{"all every 7th", func(int) int { return 7 }, 14, 15},
		{"80% every 4th", func(id int) int { return map[bool]int{true: 1, false: 4}[id%5 == 0] }, 40, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, b := newTiered(t, 1)
			var agents []*host.Agent
			for id := 1; id <= 100; id++ {
				a, err := h.SpawnWith(b, host.SpawnOptions{Interval: tc.interval(id)})
				require.NoError(t, err)
				agents = append(agents, a)
			}
			total := 0
			for range 21 {
				require.NoError(t, h.Tick(0.1))
				sum := 0
				for _, a := range agents {
					sum += a.Ticks()
				}
				require.GreaterOrEqual(t, sum-total, tc.min, "host tick %d", h.TickNumber())
				require.LessOrEqual(t, sum-total, tc.max, "host tick %d", h.TickNumber())
				total = sum
			}
		})
	}
}
