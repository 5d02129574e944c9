package host_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
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
			if tr.Kind == host.TransitionRestore {
				return // the straight run has none: the traces compare changes
			}
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
		{"too deep", `local t = ctx.pos for i = 1, 250 do t.x = {} t = t.x end`, "tables nested more than 200 deep"},
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
	host.ContextTable(a).RawSetString("inf", lua.LNumber(math.Inf(1)))
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
		"not json":       `{"version":`,
		"version":        strings.Replace(string(good), `"version":1`, `"version":7`, 1),
		"unknown state":  strings.Replace(string(good), `"stack":["a"]`, `"stack":["zz"]`, 1),
		"duplicate":      strings.Replace(string(good), `"stack":["a"]`, `"stack":["a","a"]`, 1),
		"empty stack":    strings.Replace(string(good), `"stack":["a"]`, `"stack":[]`, 1),
		"bad rng":        strings.Replace(string(good), `"rng":"`, `"rng":"!!`, 1),
		"unknown field":  strings.Replace(string(good), `"ticks"`, `"tocks"`, 1),
		"id in use":      string(good),
		"trailing data":  string(good) + "garbage",
		"two documents":  string(good) + string(good),
		"negative time":  strings.Replace(string(good), `"states":{}`, `"states":{"a":{"time":-1}}`, 1),
		"huge ticks":     strings.Replace(string(good), `"ticks":0`, `"ticks":9223372036854775807`, 1),
		"negative tick":  strings.Replace(string(good), `"ticks":0`, `"ticks":-3`, 1),
		"infinite clock": strings.Replace(string(good), `"clock":0`, `"clock":1e999`, 1),
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
	f.Add([]byte(`{"version":1,"agents":[{"id":3,"ctx":{"a":{"$id":1,"$t":{"s":{"$ref":1},"b":{"$bytes":"/w=="}}},"c":{"$ref":1}},"rng":"cGNnOgAAAAAAAAAAAAAAAAAAAAE=","states":{},"machines":{"":{"stack":["idle"]}}}]}`))
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
		// What was accepted saves, and what that save writes reads back to
		// the same save.
		saved, err := h2.Snapshot()
		if err != nil {
			t.Fatalf("accepted but cannot save: %v", err)
		}
		h3, err := host.New(host.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer h3.Close()
		b3, err := h3.LoadString("busy.lua", busy)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h3.Restore(saved, b3); err != nil {
			t.Fatalf("a save does not load: %v\n%s", err, saved)
		}
		again, err := h3.Snapshot()
		if err != nil || string(again) != string(saved) {
			t.Fatalf("a save does not read back the same: %v\n%s\n%s", err, saved, again)
		}
		// Whatever was accepted must tick without trouble.
		for _, a := range agents {
			_ = a.Tick(0.1)
		}
	})
}

// What Snapshot writes, Restore reads back exactly: shared tables and
// cycles stay shared (and are written once), byte strings stay bytes, and
// nesting up to the 200-level limit round-trips.
func TestSnapshotRoundTripsHostileContexts(t *testing.T) {
	src := `local ai = require("luaai")
local function nest(n) if n == 0 then return { ("x"):rep(100) } end local t = nest(n - 1) return { a = t, b = t } end
local deep = {} local cur = deep for i = 1, 198 do cur.x = {} cur = cur.x end cur.leaf = true
local bytes = {} for i = 0, 255 do bytes[#bytes + 1] = string.char(i) end
return ai.fsm { initial = "a", context = {}, states = { a = {} },
  on_reload = function() end }`
	h, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("s.lua", src)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	_, err = host.VM(h).RunString("setup.lua", "return 1")
	require.NoError(t, err)
	ctx := host.ContextTable(a)
	L := host.VM(h).L
	fn, err := host.VM(h).RunString("build.lua", `return function(ctx)
  local function nest(n) if n == 0 then return { ("x"):rep(100) } end local t = nest(n - 1) return { a = t, b = t } end
  ctx.shared = nest(24)
  ctx.cycle = { name = "c" } ctx.cycle.self = ctx.cycle
  ctx.pair = { ctx.cycle, ctx.cycle }
  local deep = {} local cur = deep for i = 1, 198 do cur.x = {} cur = cur.x end cur.leaf = true
  ctx.deep = deep
  local bytes = {} for i = 0, 255 do bytes[#bytes + 1] = string.char(i) end
  ctx.bytes = table.concat(bytes)
  ctx[string.char(255) .. "key"] = "bad key"
end`)
	require.NoError(t, err)
	_, err = host.VM(h).Call(fn.(*lua.LFunction), ctx)
	require.NoError(t, err)
	_ = L
	data, err := a.Snapshot()
	require.NoError(t, err)
	require.Less(t, len(data), 20000, "a shared table is written once")

	h2, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("s.lua", src)
	require.NoError(t, err)
	restored, err := h2.Restore(data, b2)
	require.NoError(t, err)
	again, err := restored[0].Snapshot()
	require.NoError(t, err)
	require.Equal(t, string(data), string(again))
	check, err := host.VM(h2).RunString("check.lua", `return function(ctx)
  assert(ctx.shared.a == ctx.shared.b, "shared")
  assert(ctx.cycle.self == ctx.cycle and ctx.pair[1] == ctx.cycle, "cycle")
  local n = 0 local cur = ctx.deep while cur.x do cur = cur.x n = n + 1 end
  assert(n == 198 and cur.leaf, "deep")
  assert(#ctx.bytes == 256 and ctx.bytes:byte(256) == 255 and ctx.bytes:byte(1) == 0, "bytes")
  assert(ctx[string.char(255) .. "key"] == "bad key", "byte key")
  return true
end`)
	require.NoError(t, err)
	v, err := host.VM(h2).Call(check.(*lua.LFunction), host.ContextTable(restored[0]))
	require.NoError(t, err)
	require.Equal(t, lua.LTrue, v)
}

// Rebind finds bound values wherever they were (nested, in lists, in a
// shared table); Migrate turns an older snapshot into this version.
func TestRestoreRebindAndMigrate(t *testing.T) {
	type obj struct{ N int }
	const src = `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {} } }`
	h1, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h1.Close()
	b1, err := h1.LoadString("r.lua", src)
	require.NoError(t, err)
	a, err := h1.Spawn(b1, nil)
	require.NoError(t, err)
	require.NoError(t, a.Bind("me", &obj{1}))
	require.NoError(t, a.Set("squad", map[string]any{"leader": &obj{2}, "list": []any{1.0, &obj{3}}}))
	data, err := h1.Snapshot()
	require.NoError(t, err)

	h2, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("r.lua", src)
	require.NoError(t, err)
	var paths []string
	objs := map[string]*obj{"me": {10}, "squad.leader": {20}, "squad.list[2]": {30}}
	got, err := h2.RestoreFrom(bytes.NewReader(data), host.RestoreOptions{Rebind: func(_ *host.Agent, path string) any {
		paths = append(paths, path)
		return objs[path]
	}}, b2)
	require.NoError(t, err)
	sort.Strings(paths)
	require.Equal(t, []string{"me", "squad.leader", "squad.list[2]"}, paths)
	r := got[0]
	require.Same(t, objs["me"], r.Get("me"))
	squad := r.Get("squad").(map[string]any)
	require.Same(t, objs["squad.leader"], squad["leader"])
	require.Equal(t, []any{1.0, objs["squad.list[2]"]}, squad["list"])

	// A struct by value is refused, and nothing is restored.
	h3, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h3.Close()
	b3, err := h3.LoadString("r.lua", src)
	require.NoError(t, err)
	_, err = h3.RestoreFrom(bytes.NewReader(data), host.RestoreOptions{Rebind: func(*host.Agent, string) any { return obj{} }}, b3)
	require.ErrorIs(t, err, host.ErrBindByValue)
	require.Empty(t, h3.Agents())

	// An old version migrates; without Migrate it is refused.
	old := bytes.Replace(data, []byte(`"version":1`), []byte(`"version":0`), 1)
	_, err = h3.Restore(old, b3)
	require.ErrorIs(t, err, host.ErrBadSnapshot)
	migrated, err := h3.RestoreFrom(bytes.NewReader(old), host.RestoreOptions{Migrate: func(v int, d []byte) ([]byte, error) {
		require.Equal(t, 0, v)
		return bytes.Replace(d, []byte(`"version":0`), []byte(`"version":1`), 1), nil
	}}, b3)
	require.NoError(t, err)
	require.Len(t, migrated, 1)
	_, err = h3.RestoreFrom(bytes.NewReader(old), host.RestoreOptions{Migrate: func(int, []byte) ([]byte, error) {
		return nil, errors.New("too old")
	}}, b3)
	require.ErrorContains(t, err, "migrating version 0: too old")
}

// A request is something an fsm holds: a crafted snapshot that puts one
// on a utility or regions machine is refused (a later save of it would
// not load).
func TestRestoreRefusesRequestsOffFSMs(t *testing.T) {
	src := `local ai = require("luaai")
return ai.regions { states = { move = ai.fsm { initial = "walk", states = { walk = {}, run = {} } },
  pick = ai.utility { initial = "x", states = { x = { score = 1 }, y = { score = 0 } } } } }`
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("r.lua", src)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	good, err := a.Snapshot()
	require.NoError(t, err)
	for _, machine := range []string{`"pick":{"stack":["x"]`, `"":{"stack":["move","pick"]`} {
		data := strings.Replace(string(good), machine, machine+`,"request":{"kind":"pop"}`, 1)
		require.NotEqual(t, string(good), data, machine)
		h2, err := host.New(host.Options{})
		require.NoError(t, err)
		b2, err := h2.LoadString("r.lua", src)
		require.NoError(t, err)
		_, err = h2.Restore([]byte(data), b2)
		require.ErrorIs(t, err, host.ErrBadSnapshot)
		require.ErrorContains(t, err, "machine takes no request")
		h2.Close()
	}
	data := strings.Replace(string(good), `"move":{"stack":["walk"]`, `"move":{"stack":["walk"],"request":{"kind":"replace","target":"run"}`, 1)
	h3, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h3.Close()
	b3, err := h3.LoadString("r.lua", src)
	require.NoError(t, err)
	_, err = h3.Restore([]byte(data), b3)
	require.NoError(t, err, "an fsm's request is fine")
}
