package host_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// busy exercises everything a snapshot must carry: stacks with paused
// states, every/after/decide_every timers, history, events sent from Lua,
// deferred requests, random choices and nested context tables.
const busy = `local ai = require("luaai")
return ai.fsm {
  initial = "roam",
  context = { n = 0, seen = {}, pos = { x = 0, y = 0 }, mixed = { [1.5] = "a", k = true } },
  states = {
    roam = ai.utility {
      select = { random_top = 2 }, history = true, decide_every = 0.3,
      transitions = { { push = "alarm", on = "alarm" }, { to = "rest", after = 1.7 } },
      states = {
        walk = { score = function(ctx) return 0.5 + ai.random() * 0.1 end, every = 0.2,
                 update = function(ctx, dt) ctx.pos.x = ctx.pos.x + dt; if ai.random(10) == 1 then ai.send("alarm", ctx.n) end end },
        look = { score = 0.4, update = function(ctx) ctx.seen[#ctx.seen + 1] = ai.random(3); if #ctx.seen > 5 then table.remove(ctx.seen, 1) end end },
      },
    },
    alarm = {
      enter = function(ctx) ctx.n = ctx.n + 1 end,
      update = function(ctx) if ai.time() > 0.25 then ai.pop() end end,
    },
    rest = { every = 0.5, update = function(ctx, dt) ctx.pos.y = ctx.pos.y + dt end,
             transitions = { { to = "roam", after = 0.9 } } },
  },
}`

func busyHost(t *testing.T, trace *[]string) (*host.Host, *host.Behaviour) {
	h, err := host.New(host.Options{
		Seed: 99,
		OnTransition: func(tr host.Transition) {
			*trace = append(*trace, fmt.Sprintf("%d %d %s %s>%s", tr.Tick, tr.Agent, tr.Kind, tr.From, tr.To))
		},
		OnError: func(e *host.ScriptError) { t.Errorf("script error: %v", e) },
	})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	b, err := h.LoadString("busy.lua", busy)
	require.NoError(t, err)
	return h, b
}

func contexts(t *testing.T, h *host.Host) []string {
	var out []string
	for _, a := range h.Agents() {
		j, err := json.Marshal(a.Get("seen"))
		require.NoError(t, err)
		out = append(out, fmt.Sprintf("%d %s %v %v %v %s", a.ID(), a.Path(), a.Get("n"), a.Get("pos"), a.Get("mixed"), j))
	}
	return out
}

func TestSnapshotRestoreContinuesExactly(t *testing.T) {
	const agents, half = 100, 500
	var straight []string
	h1, b1 := busyHost(t, &straight)
	for i := 0; i < agents; i++ {
		_, err := h1.Spawn(b1, nil)
		require.NoError(t, err)
	}
	for i := 0; i < 2*half; i++ {
		require.NoError(t, h1.Tick(0.1))
	}

	var first, second []string
	h2, b2 := busyHost(t, &first)
	for i := 0; i < agents; i++ {
		_, err := h2.Spawn(b2, nil)
		require.NoError(t, err)
	}
	for i := 0; i < half; i++ {
		require.NoError(t, h2.Tick(0.1))
	}
	data, err := h2.Snapshot()
	require.NoError(t, err)

	h3, b3 := busyHost(t, &second)
	restored, err := h3.Restore(data, b3)
	require.NoError(t, err)
	require.Len(t, restored, agents)
	for i := 0; i < half; i++ {
		require.NoError(t, h3.Tick(0.1))
	}
	require.Greater(t, len(straight), 1000, "the behaviour moves")
	require.Equal(t, straight, append(first, second...), "identical traces")
	require.Equal(t, contexts(t, h1), contexts(t, h3), "identical contexts")
	require.Equal(t, h1.Agents()[7].Ticks(), h3.Agents()[7].Ticks())
	require.InDelta(t, h1.Agents()[7].Clock(), h3.Agents()[7].Clock(), 1e-12)
}

func TestSnapshotUnsaveableValues(t *testing.T) {
	cases := []struct{ name, setup, want string }{
		{"function", `ctx.pos.fn = function() end`, "ctx.pos.fn: a function"},
		{"cycle", `ctx.pos.self = ctx.pos`, "ctx.pos.self: a table cycle"},
		{"coroutine", `ctx.co = coroutine.create(function() end)`, "ctx.co: a thread"},
		{"event payload", `ai.send("e", function() end)`, "event 1 (e) payload"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := host.New(host.Options{})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("s.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", context = { pos = {} }, states = { a = { update = function(ctx) `+c.setup+` end } } }`)
			require.NoError(t, err)
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			require.NoError(t, a.Tick(0.1))
			data, err := h.Snapshot()
			require.Error(t, err)
			require.Nil(t, data, "nothing is written half")
			require.ErrorIs(t, err, host.ErrUnsaveable)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

type pos struct{ X, Y float64 }

func TestSnapshotBoundValuesAndSpecialNumbers(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("s.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = {} } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, map[string]any{"big": 1e300})
	require.NoError(t, err)
	a.Bind("body", &pos{X: 1})
	a.Ctx().RawSetString("inf", lua.LNumber(math.Inf(1)))
	data, err := a.Snapshot()
	require.NoError(t, err)
	require.Contains(t, string(data), `"bound":["ctx.body"]`)
	require.Contains(t, string(data), `{"$num":"inf"}`)

	h2, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("s.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = {} } }`)
	require.NoError(t, err)
	got, err := h2.Restore(data, b2)
	require.NoError(t, err)
	require.Nil(t, got[0].Get("body"), "bound values must be bound again")
	n, _ := got[0].Number("big")
	require.Equal(t, 1e300, n)
	inf, _ := got[0].Number("inf")
	require.True(t, inf > 1e308)
}

func TestRestoreRejectsBadSnapshots(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("s.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = {}, b = {} } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	good, err := a.Snapshot()
	require.NoError(t, err)
	cases := map[string]string{
		"not json":      `{"version":`,
		"version":       strings.Replace(string(good), `"version":1`, `"version":7`, 1),
		"unknown state": strings.Replace(string(good), `"stack":["a"]`, `"stack":["zz"]`, 1),
		"duplicate":     strings.Replace(string(good), `"stack":["a"]`, `"stack":["a","a"]`, 1),
		"empty stack":   strings.Replace(string(good), `"stack":["a"]`, `"stack":[]`, 1),
		"bad rng":       strings.Replace(string(good), `"rng":"`, `"rng":"!!`, 1),
		"unknown field": strings.Replace(string(good), `"ticks"`, `"tocks"`, 1),
		"id in use":     string(good),
	}
	h2, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("s.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", states = { a = {}, b = {} } }`)
	require.NoError(t, err)
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			into, beh := h2, b2
			if name == "id in use" {
				into, beh = h, b
			}
			before := len(into.Agents())
			_, err := into.Restore([]byte(data), beh)
			require.Error(t, err)
			if name == "id in use" {
				require.ErrorIs(t, err, host.ErrIDInUse)
			} else {
				require.ErrorIs(t, err, host.ErrBadSnapshot)
			}
			require.Len(t, into.Agents(), before, "nothing is added")
		})
	}
}

func FuzzRestore(f *testing.F) {
	h, err := host.New(host.Options{Workers: 1})
	if err != nil {
		f.Fatal(err)
	}
	defer h.Close()
	b, err := h.LoadString("busy.lua", busy)
	if err != nil {
		f.Fatal(err)
	}
	a, _ := h.Spawn(b, nil)
	for i := 0; i < 30; i++ {
		_ = h.Tick(0.1)
	}
	seed, _ := a.Snapshot()
	f.Add(seed)
	f.Add([]byte(`{"version":1,"agents":[{"id":5,"ctx":{"$pairs":[[1,2]]},"rng":"","states":{},"machines":{}}]}`))
	f.Add([]byte(`{"version":1,"agents":[{"id":9,"ctx":[{"$num":"nan"},{"$bound":"x"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h2, err := host.New(host.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer h2.Close()
		b2, err := h2.LoadString("busy.lua", busy)
		if err != nil {
			t.Fatal(err)
		}
		agents, err := h2.Restore(data, b2)
		if err != nil {
			return
		}
		// Whatever was accepted must tick without trouble.
		for _, a := range agents {
			_ = a.Tick(0.1)
		}
	})
}
