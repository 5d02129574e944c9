package host_test

import (
	"encoding/json"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// Parallel regions, as the README states them.
const regionsSrc = `
local function mark(name)
  return {
    enter = function(ctx) log(ctx, "enter " .. name) end,
    exit = function(ctx) log(ctx, "exit " .. name) end,
    update = function(ctx) log(ctx, "update " .. name) end,
  }
end
return ai.fsm { initial = "alive", states = {
  alive = ai.regions {
    enter = function(ctx) log(ctx, "enter alive") end,
    exit = function(ctx) log(ctx, "exit alive") end,
    update = function(ctx) log(ctx, "update alive") end,
    states = {
      weapon = ai.fsm { initial = "ready", states = {
        ready = with(mark("ready"), { transitions = { { to = "reload", on = "hit" } } }),
        reload = with(mark("reload"), { transitions = { { to = "ready", after = 0.2 } },
          update = function(ctx) log(ctx, "update reload"); if ctx.ask then ctx.ask = false; ai.push("jammed") end end }),
        jammed = with(mark("jammed"), { transitions = { { pop = true, on = "fix" } } }),
      } },
      movement = ai.fsm { initial = "walk", states = {
        walk = with(mark("walk"), { transitions = { { to = "duck", on = "hit" } } }),
        duck = mark("duck"),
      } },
      head = ai.regions { states = {
        eyes = ai.fsm { initial = "look", states = { look = {} } },
        mouth = ai.tree { root = ai.sequence { ai.wait(1, { name = "chew" }) } },
      } },
    },
    transitions = { { to = "dead", on = "die" } },
  },
  dead = mark("dead"),
} }`

func TestRegions(t *testing.T) {
	f := newFixture(t, regionsSrc)
	a := f.spawn(nil)
	require.Equal(t, []string{"enter alive", "enter walk", "enter ready"}, takeLog(a), "every region entered, in name order")
	require.Equal(t, "alive{head{eyes.look,mouth},movement.walk,weapon.ready}", a.Path(), "a tree region not yet ticked: its bare name")
	require.True(t, a.Active("alive.weapon.ready"))
	require.True(t, a.Active("walk"))
	require.False(t, a.Active("duck"))

	f.tick(a, 0.1)
	require.Equal(t, []string{"update alive", "update walk", "update ready"}, takeLog(a), "updates in name order")
	require.Equal(t, "alive{head{eyes.look,mouth[sequence.chew]},movement.walk,weapon.ready}", a.Path())

	require.NoError(t, a.Send("hit", nil))
	f.tick(a, 0.1)
	require.Equal(t, []string{"exit walk", "enter duck", "exit ready", "enter reload", "update alive", "update duck", "update reload"}, takeLog(a),
		"one event offered to every region: consumed in movement, still seen by weapon")
	require.Equal(t, "alive{head{eyes.look,mouth[sequence.chew]},movement.duck,weapon.reload}", a.Path())

	require.NoError(t, a.Set("ask", true))
	f.tick(a, 0.1)
	takeLog(a)
	f.tick(a, 0.1)
	require.Equal(t, []string{"enter jammed", "update alive", "update duck", "update jammed"}, takeLog(a),
		"a request from a hook inside a region goes to the region's fsm")
	stack, err := a.Stack("alive.weapon")
	require.NoError(t, err)
	require.Equal(t, []string{"reload", "jammed"}, stack)
	require.Equal(t, []string{"alive.weapon.reload"}, a.PausedStates())

	require.NoError(t, a.Send("die", nil))
	f.tick(a, 0.1)
	require.Equal(t, []string{"exit jammed", "exit reload", "exit duck", "exit alive", "enter dead", "update dead"}, takeLog(a),
		"leaving the regions exits them in reverse name order")
	require.Equal(t, "dead", a.Path())
	require.Empty(t, f.se)
}

// Regions round-trip through snapshots at every tick, with trees and steps
// inside, and continue exactly as the straight run.
func TestRegionsSnapshot(t *testing.T) {
	f := newFixture(t, regionsSrc)
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.NoError(t, a.Send("hit", nil))
	f.tick(a, 0.1)
	snap, err := a.Snapshot()
	require.NoError(t, err)
	g := newFixture(t, regionsSrc)
	r, err := g.h.Restore(snap, g.b)
	require.NoError(t, err)
	require.Equal(t, a.Path(), r[0].Path())
	takeLog(a)
	takeLog(r[0])
	for range 12 {
		f.tick(a, 0.1)
		g.tick(r[0], 0.1)
		require.Equal(t, takeLog(a), takeLog(r[0]))
		require.Equal(t, a.Path(), r[0].Path())
	}

	for _, stack := range [][]any{{"weapon"}, {"weapon", "movement", "head"}} {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(snap, &doc))
		ag := doc["agents"].([]any)[0].(map[string]any)
		ag["machines"].(map[string]any)["alive"].(map[string]any)["stack"] = stack
		data, err := json.Marshal(doc)
		require.NoError(t, err)
		e := newFixture(t, regionsSrc)
		_, err = e.h.Restore(data, e.b)
		require.ErrorIs(t, err, host.ErrBadSnapshot)
		require.Contains(t, err.Error(), "every region must be listed")
	}
}

// A reload that adds a region enters it; one that removes a region drops it.
func TestRegionsReload(t *testing.T) {
	src := func(extra string) string {
		return `
return ai.fsm { initial = "alive", states = {
  alive = ai.regions { states = {
    a = ai.fsm { initial = "x", states = { x = { enter = function(ctx) log(ctx, "enter a.x") end } } },
    ` + extra + `
  } },
} }`
	}
	f := newFixture(t, src(""))
	a := f.spawn(nil)
	f.tick(a, 0.1)
	require.Equal(t, []string{"enter a.x"}, takeLog(a))
	require.NoError(t, f.b.ReloadSource(prelude+src(`b = ai.fsm { initial = "y", states = { y = { enter = function(ctx) log(ctx, "enter b.y") end } } },`)))
	require.Equal(t, []string{"enter b.y"}, takeLog(a))
	require.Equal(t, "alive{a.x,b.y}", a.Path())
	require.NoError(t, f.b.ReloadSource(prelude+src("")))
	require.Equal(t, "alive{a.x}", a.Path())
	f.tick(a, 0.1)
	require.Empty(t, f.se)
}
