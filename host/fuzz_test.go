package host_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/fuzzgen"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
)

// fuzzBehaviour spawns, sends and logs according to its context, which the
// fuzz input sets: ops it runs from its update hook.
const fuzzBehaviour = `local ai = require("luaai")
local child = ai.fsm { initial = "c", context = { r = 0 }, states = {
  c = { enter = function(ctx) ctx.r = ai.random(1000) end, transitions = { { to = "d", on = "go" } } },
  d = {} } }
return ai.fsm { initial = "a", context = { op = 0, kids = {}, n = 0 }, states = {
  a = { transitions = { { to = "b", on = "flip" } },
    update = function(ctx)
      ctx.n = ctx.n + 1
      local op = ctx.op % 5
      if op == 1 then ctx.kids[#ctx.kids + 1] = ai.spawn(child, { r = ctx.n }) end
      if op == 2 then ai.send("flip") end
      if op == 3 then for _, k in ipairs(ctx.kids) do k:send("go") k:tick(0.1) end end
      if op == 4 then ai.log("n=" .. ctx.n .. " r=" .. ai.random(100)) end
      if #ctx.kids > 8 then ctx.kids = {} end
    end },
  b = { transitions = { { to = "a", after = 0.2 } }, update = function(ctx) ctx.n = ctx.n + 1 end },
} }`

// fuzzTrace runs the operations data encodes on a host with the given
// workers and returns everything the hooks saw.
func fuzzTrace(t *testing.T, data []byte, workers int) []string {
	var out []string
	h, err := host.New(host.Options{Workers: workers, Seed: 3,
		OnTransition: func(tr host.Transition) {
			out = append(out, fmt.Sprintf("T %d %d %s>%s", tr.Tick, tr.Agent, tr.From, tr.To))
		},
		OnLog:   func(l host.Log) { out = append(out, fmt.Sprintf("L %d %d %s", l.Tick, l.Agent, l.Msg)) },
		OnError: func(e *host.ScriptError) { out = append(out, "E "+e.Error()) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	b, err := h.LoadString("fuzz.lua", fuzzBehaviour)
	if err != nil {
		t.Fatal(err)
	}
	var agents []*host.Agent
	if len(data) > 400 {
		data = data[:400]
	}
	for i, c := range data {
		switch c % 6 {
		case 0, 1: // spawn a batch (crossing the 64-agent blocks of workers)
			for j := 0; j < int(c%40)+1; j++ {
				a, err := h.Spawn(b, map[string]any{"op": int(c/6) + j})
				if err != nil {
					t.Fatal(err)
				}
				agents = append(agents, a)
			}
		case 2: // remove one
			if len(agents) > 0 {
				k := int(c) % len(agents)
				if err := h.Remove(agents[k]); err != nil {
					t.Fatal(err)
				}
				agents = append(agents[:k], agents[k+1:]...)
			}
		case 3: // an event to one
			if len(agents) > 0 {
				agents[int(c)%len(agents)].Send("flip", i)
			}
		default:
			if err := h.Tick(0.1); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, a := range h.Agents() {
		out = append(out, fmt.Sprintf("end %d %s %d", a.ID(), a.Path(), a.Ticks()))
	}
	return out
}

// FuzzTickSpawns: spawns, removals, events and ticks in any order, with
// scripts spawning and messaging from their hooks, give the same trace
// with 1, 2 and 4 workers (and never crash).
func FuzzTickSpawns(f *testing.F) {
	f.Add([]byte{0, 4, 5, 1, 4, 5})
	f.Add([]byte{39, 39, 39, 4, 4, 4, 2, 3, 4, 10, 16, 22, 4, 4})
	f.Add([]byte{240, 4, 241, 5, 242, 4, 243, 5, 8, 9, 4, 4, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		want := fuzzTrace(t, data, 1)
		for _, w := range []int{2, 4} {
			got := fuzzTrace(t, data, w)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("workers=%d differ from workers=1", w)
			}
		}
	})
}

// FuzzReentrantHooks: every hook of Options calls back into the host —
// Spawn, Remove, Snapshot, Restore, Reload, Agent.Tick, Tick — in an order
// the input chooses; nothing crashes and every record is delivered once.
func FuzzReentrantHooks(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{6, 6, 6, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 64 {
			return
		}
		var h *host.Host
		var b *host.Behaviour
		calls := 0
		seen := map[string]bool{}
		act := func(key string) {
			if seen[key] {
				t.Fatalf("delivered twice: %s", key)
			}
			seen[key] = true
			if calls >= 40 {
				return
			}
			op := data[calls%len(data)] % 7
			calls++
			agents := h.Agents()
			switch op {
			case 0:
				_, _ = h.Spawn(b, map[string]any{"op": calls})
			case 1:
				if len(agents) > 1 {
					_ = h.Remove(agents[0])
				}
			case 2:
				if s, err := h.Snapshot(); err == nil && calls%3 == 0 {
					for _, a := range agents {
						_ = h.Remove(a)
					}
					_, _ = h.Restore(s, b)
				}
			case 3:
				_ = b.ReloadSource(fuzzBehaviour)
			case 4:
				if len(agents) > 0 {
					_ = agents[len(agents)-1].Tick(0.1)
				}
			case 5:
				_ = h.Tick(0.1) // a tick from inside a hook
			case 6:
				if len(agents) > 0 {
					agents[0].Send("flip", nil)
				}
			}
		}
		var err error
		h, err = host.New(host.Options{Workers: 1 + int(data[0])%3, ReportAllErrors: true,
			OnTransition: func(tr host.Transition) {
				act(fmt.Sprintf("T %d %d %s %s>%s", tr.Agent, tr.Tick, tr.Kind, tr.From, tr.To))
			},
			OnLog:   func(l host.Log) { act(fmt.Sprintf("L %d %d %s", l.Agent, l.Tick, l.Msg)) },
			OnError: func(e *host.ScriptError) { act(fmt.Sprintf("E %d %d %s", e.Agent, e.Tick, e.Msg)) },
		})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if b, err = h.LoadString("fuzz.lua", fuzzBehaviour); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 70; i++ {
			if _, err := h.Spawn(b, map[string]any{"op": i}); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 6; i++ {
			if err := h.Tick(0.1); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzTwoMods: whatever one mod's code does (the input is its Lua source,
// run at load and in its update hook), another mod in the same host sees
// its globals, libraries and modules unchanged.
func FuzzTwoMods(f *testing.F) {
	for _, seed := range []string{
		`_G.x = 1 rawset(_G, "y", 2) setmetatable(_G, { __index = function() return "evil" end })`,
		`pcall(function() string.format = nil end) pcall(rawset, math, "floor", print)`,
		`local lib = require("lib") lib.value = "changed" package.loaded.lib = 1`,
		`load("shared_global = 1")() tostring = nil`,
		`pcall(setmetatable, string, {}) pcall(table.insert, ai, 1) local s = "" for i = 1, 10 do s = s .. s .. "x" end`,
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.lua"), []byte(`return { value = "original" }`), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "good.lua"), []byte(goodMod), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, code string) {
		if strings.ContainsAny(code, "\x00") || len(code) > 2000 {
			return
		}
		evil := fmt.Sprintf("local ai = require(%q)\npcall(function()\n%s\nend)\nreturn ai.fsm { initial = \"s\", states = { s = { update = function() %s\nend } } }", "luaai", code, code)
		if err := os.WriteFile(filepath.Join(dir, "evil.lua"), []byte(evil), 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := host.New(host.Options{Workers: 2, Budget: 20e6, MemoryLimit: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		good, err := h.LoadFile(filepath.Join(dir, "good.lua"))
		if err != nil {
			t.Fatalf("good.lua: %v", err)
		}
		if eb, err := h.LoadFile(filepath.Join(dir, "evil.lua")); err == nil {
			for i := 0; i < 3; i++ {
				_, _ = h.Spawn(eb, nil)
			}
		}
		var goods []*host.Agent
		for i := 0; i < 70; i++ {
			a, err := h.Spawn(good, nil)
			if err != nil {
				t.Fatal(err)
			}
			goods = append(goods, a)
		}
		for i := 0; i < 2; i++ {
			if err := h.Tick(0.1); err != nil {
				t.Fatal(err)
			}
		}
		for _, a := range goods {
			for _, e := range a.TakeErrors() {
				// A wall-time budget or the shared heap can stop a good
				// callback while the evil one hogs the machine: that is
				// load, not a leak between mods.
				if errors.Is(e, scripterr.ErrBudget) || errors.Is(e, scripterr.ErrMemoryLimit) || errors.Is(e, host.ErrOverruns) {
					continue
				}
				t.Fatalf("the other mod was changed: %s", e.Message())
			}
		}
	})
}

// FuzzDefinitionTicks loads generated definitions (fsm, utility, regions,
// trees, steps, good and bad) and, when one loads, ticks two agents, with
// events flying, through a snapshot round trip: no panic, no hang, every
// error names a file, and the restored agents go on as the originals.
func FuzzDefinitionTicks(f *testing.F) {
	for _, seed := range []string{
		"", "\x03\x04\x04\x00\x02", strings.Repeat("\x04\x02\x08\x01", 12), strings.Repeat("\x03\x00\x09\x05\x02", 16),
		"regions tree steps sequence parallel", strings.Repeat("\xfb\x13\x27", 20),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := fuzzgen.Definition(data)
		opts := host.Options{Budget: -1, BudgetSteps: 100000, MemoryLimit: -1, MaxErrors: 8}
		h, err := host.New(opts)
		require.NoError(t, err)
		defer h.Close()
		b, err := h.LoadString("def.lua", src)
		if err != nil {
			require.Contains(t, err.Error(), "def.lua", "a load error names the file:\n%s", src)
			return
		}
		var agents []*host.Agent
		for range 2 {
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			agents = append(agents, a)
		}
		for i := range 12 {
			for _, a := range agents {
				if i%3 == 0 {
					require.NoError(t, a.Send("hit", float64(i)))
				}
			}
			require.NoError(t, h.Tick(0.1))
		}
		for _, a := range agents {
			for _, e := range a.TakeErrors() {
				require.NotEmpty(t, e.Script, "an error without a file: %v\n%s", e, src)
			}
		}
		snap, err := h.Snapshot()
		if err != nil {
			return // an unsaveable context (a function stored by a hook)
		}
		g, err := host.New(opts)
		require.NoError(t, err)
		defer g.Close()
		gb, err := g.LoadString("def.lua", src)
		require.NoError(t, err)
		restored, err := g.Restore(snap, gb)
		require.NoError(t, err, "%s", src)
		for i := range 6 {
			require.NoError(t, h.Tick(0.1))
			require.NoError(t, g.Tick(0.1))
			for k, a := range agents {
				require.Equal(t, a.Path(), restored[k].Path(), "tick %d after the restore\n%s", i+1, src)
			}
		}
	})
}
