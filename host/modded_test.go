package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// A modded server, as a Go studio builds one: three calm behaviours
// (soldiers on an fsm with a stack and messages to their leader,
// villagers choosing by utility with native scorers over a synced struct,
// scouts running regions with a tree), a Go module whose functions know
// their caller, and four hostile mods (one raises every tick, one loops
// forever, one hoards memory, one runs a wide tree of slow leaves), under
// budgets below a frame. The calm agents' run must not depend on the
// hostile ones, on the worker count, on a save and restore halfway, on a
// cancelled tick, or on a hot reload.

const moddedSoldier = `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "patrol", context = { leader = 1, seen = 0, orders = 0, steps = 0 }, states = {
  patrol = {
    update = function(ctx)
      ctx.steps = ctx.steps + 1
      game.move(1, 0)
      if ctx.steps % 5 == 0 and ai.id() ~= ctx.leader then
        ai.send_to(ctx.leader, "contact", { from = ai.id(), at = ctx.steps })
      end
    end,
    transitions = {
      { push = "report", on = "contact", run = function(ctx, p) ctx.seen = ctx.seen + 1 end },
      { push = "alert", when = function(ctx) return ctx.body.hp < 50 end },
    },
  },
  report = { transitions = { { pop = true, after = 0.2 } } },
  alert = { enter = function(ctx) ctx.body.hp = 100 end, transitions = { { pop = true } } },
} }`

const moddedVillager = `local ai = require("luaai")
return ai.utility { initial = "idle", context = { ate = 0, worked = 0 }, states = {
  idle = { score = 0.1 },
  eat = { score = ai.field("body.hunger"), update = function(ctx) ctx.ate = ctx.ate + 1 ctx.body.hunger = ctx.body.hunger - 0.3 end },
  work = { score = ai.inverse(ai.field("body.hunger")), update = function(ctx)
    ctx.worked = ctx.worked + 1 ctx.body.hunger = ctx.body.hunger + 0.1 end },
} }`

const moddedScout = `local ai = require("luaai")
return ai.regions { states = {
  legs = ai.fsm { initial = "walk", states = {
    walk = { transitions = { { to = "rest", after = 0.5 } } },
    rest = { transitions = { { to = "walk", after = 0.3 } } } } },
  eyes = ai.tree { context = { looks = 0 }, root = ai.sequence {
    ai.action(function(ctx) ctx.looks = ctx.looks + 1 return "success" end, { name = "look" }),
    ai.wait(0.2),
  } },
} }`

var moddedHostile = map[string]string{
	"raiser": `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function(ctx) error("mod bug") end } } }`,
	"runaway": `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function(ctx) while true do end end } } }`,
	"hoarder": `local ai = require("luaai")
local hoard = {}
return ai.fsm { initial = "s", states = { s = { update = function(ctx)
  for _ = 1, 256 do hoard[#hoard + 1] = string.rep("h", 65536) .. #hoard end end } } }`,
	"wide": `local ai = require("luaai")
local function slow() local t = os.clock() while os.clock() - t < 0.002 do end return "running" end
local kids = {}
for i = 1, 40 do kids[i] = ai.action(slow, { name = "slow" .. i }) end
return ai.tree { root = ai.parallel(kids) }`,
}

type moddedBody struct {
	HP     float64 `lua:"hp"`
	Hunger float64 `lua:"hunger"`
}

type moddedWorld struct {
	h          *host.Host
	villager   string // the villagers' source as last reloaded
	kinds      map[string]*host.Behaviour
	calm       []*host.Agent
	hostile    []*host.Agent
	bodies     map[int]*moddedBody
	pos        []float64 // by agent id: each worker writes its own agents'
	errsByKind map[string]int
}

func newModdedWorld(t *testing.T, workers int) *moddedWorld {
	w := &moddedWorld{bodies: map[int]*moddedBody{}, pos: make([]float64, 1<<12), errsByKind: map[string]int{}}
	h, err := host.New(host.Options{
		Workers: workers, Seed: 7, Budget: 10 * time.Millisecond, AgentTickBudget: 30 * time.Millisecond,
		MemoryLimit: 96 << 20,
		OnError: func(e *host.ScriptError) {
			w.errsByKind[strings.TrimSuffix(e.Script, ".lua")]++
		},
		ReportAllErrors: true,
		Funcs: map[string]map[string]any{"game": {
			// The caller's own unit: a mod cannot move another.
			"move": func(a *host.Agent, dx, dy float64) {
				w.pos[a.ID()] += dx + dy
			},
		}},
	})
	require.NoError(t, err)
	w.h = h
	w.kinds = map[string]*host.Behaviour{}
	for name, src := range map[string]string{"soldier": moddedSoldier, "villager": moddedVillager, "scout": moddedScout} {
		b, err := h.LoadString(name+".lua", src)
		require.NoError(t, err, name)
		w.kinds[name] = b
	}
	for name, src := range moddedHostile {
		b, err := h.LoadString(name+".lua", src)
		require.NoError(t, err, name)
		w.kinds[name] = b
	}
	return w
}

func (w *moddedWorld) spawn(t *testing.T, calm int) {
	order := []string{"soldier", "villager", "scout"}
	for i := range calm {
		kind := order[i%3]
		body := &moddedBody{HP: float64(40 + i%30), Hunger: float64(i%10) / 10}
		a, err := w.h.SpawnWith(w.kinds[kind], host.SpawnOptions{Sync: map[string]any{"body": body}})
		require.NoError(t, err)
		w.bodies[a.ID()] = body
		w.calm = append(w.calm, a)
	}
	for _, name := range []string{"raiser", "runaway", "hoarder", "wide"} {
		a, err := w.h.Spawn(w.kinds[name], nil)
		require.NoError(t, err)
		w.hostile = append(w.hostile, a)
	}
}

// state is what must not depend on anything but the calm scripts: each
// calm agent's path, context and clock.
func (w *moddedWorld) state(t *testing.T) map[int]string {
	out := map[int]string{}
	for _, a := range w.calm {
		ctx, err := json.Marshal(a.Context())
		require.NoError(t, err)
		out[a.ID()] = fmt.Sprintf("%s %s ticks=%d clock=%.6f pos=%g", a.Path(), ctx, a.Ticks(), a.Clock(), w.pos[a.ID()])
	}
	return out
}

func moddedRun(t *testing.T, workers, calm, ticks int, restoreAt int) (map[int]string, *moddedWorld) {
	w := newModdedWorld(t, workers)
	defer func() { w.h.Close() }()
	w.spawn(t, calm)
	for tick := 1; tick <= ticks; tick++ {
		switch {
		case tick == ticks/3:
			// A cancelled frame: nothing ticks, and nobody loses the time.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			require.ErrorIs(t, w.h.TickContext(ctx, 0.1), context.Canceled)
			continue
		case tick == ticks/2:
			// A hot reload of the villagers: eating fills them faster.
			w.villager = strings.Replace(moddedVillager, "- 0.3", "- 0.4", 1)
			require.NoError(t, w.kinds["villager"].ReloadSource(w.villager))
		case tick == restoreAt:
			w = w.saveAndRestore(t, workers%4+1)
		}
		require.NoError(t, w.h.Tick(0.1))
	}
	for _, a := range w.hostile {
		if a.Behaviour() != w.kinds["raiser"] {
			require.True(t, a.Suspended(), "hostile agent %d (%s) still runs: errors %v, memory %d", a.ID(), a.Path(), w.errsByKind, w.h.MemoryUsed())
		}
	}
	for _, a := range w.calm {
		require.False(t, a.Suspended(), "calm agent %d suspended", a.ID())
		require.Empty(t, a.TakeErrors(), "calm agent %d", a.ID())
	}
	for _, kind := range []string{"soldier", "villager", "scout"} {
		require.Zero(t, w.errsByKind[kind], "errors in %s", kind)
	}
	require.Positive(t, w.errsByKind["raiser"])
	return w.state(t), w
}

// saveAndRestore saves every agent and restores it in a new host with
// another worker count, re-syncing the bodies.
func (w *moddedWorld) saveAndRestore(t *testing.T, workers int) *moddedWorld {
	data, err := w.h.Snapshot()
	require.NoError(t, err)
	n := newModdedWorld(t, workers)
	if w.villager != "" {
		n.villager = w.villager
		require.NoError(t, n.kinds["villager"].ReloadSource(w.villager))
	}
	n.pos = w.pos
	for k, v := range w.errsByKind {
		n.errsByKind[k] = v
	}
	var behaviours []*host.Behaviour
	for _, b := range n.kinds {
		behaviours = append(behaviours, b)
	}
	sort.Slice(behaviours, func(i, j int) bool { return behaviours[i].Name() < behaviours[j].Name() })
	agents, err := n.h.RestoreFrom(strings.NewReader(string(data)), host.RestoreOptions{
		Attach: func(a *host.Agent, synced []string) error {
			for _, k := range synced {
				body := &moddedBody{}
				*body = *w.bodies[a.ID()] // the game's own objects, saved by the game
				n.bodies[a.ID()] = body
				if err := a.Sync(k, body); err != nil {
					return err
				}
			}
			return nil
		}}, behaviours...)
	require.NoError(t, err)
	calm := map[int]bool{}
	for _, a := range w.calm {
		calm[a.ID()] = true
	}
	for _, a := range agents {
		if calm[a.ID()] {
			n.calm = append(n.calm, a)
		} else {
			n.hostile = append(n.hostile, a)
		}
	}
	w.h.Close()
	return n
}

func TestModdedServerSoak(t *testing.T) {
	calm, ticks := 3000, 40
	if raceEnabled || testing.Short() {
		calm, ticks = 150, 20
	}
	want, _ := moddedRun(t, 1, calm, ticks, 0)
	for _, workers := range []int{2, 4} {
		got, _ := moddedRun(t, workers, calm, ticks, 0)
		sameStates(t, want, got, fmt.Sprintf("%d workers", workers))
	}
	got, _ := moddedRun(t, 2, calm, ticks, ticks*2/3)
	sameStates(t, want, got, "saved and restored with another worker count")
}

// sameStates reports the first agents whose states differ.
func sameStates(t *testing.T, want, got map[int]string, what string) {
	t.Helper()
	var ids []int
	for id := range want {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	bad := 0
	for _, id := range ids {
		if want[id] != got[id] {
			t.Errorf("%s: agent %d:\nwant %s\ngot  %s", what, id, want[id], got[id])
			if bad++; bad == 3 {
				break
			}
		}
	}
	require.Equal(t, len(want), len(got), what)
}
