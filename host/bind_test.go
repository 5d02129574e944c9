package host_test

import (
	"sync"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// Counter is a game object scripts call; it is not safe for concurrent use
// unless mu is used.
type Counter struct {
	N    int
	mu   sync.Mutex
	safe bool
}

// Add counts one call.
func (c *Counter) Add() {
	if c.safe {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	c.N++
}

const counting = `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function(ctx) ctx.world:Add() end } } }`

// The zero Options run one worker: one Go value bound to every agent is
// called from the goroutine calling Tick, and no update is lost (-race).
func TestDefaultWorkersAreSafe(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	require.Equal(t, 1, h.Workers())
	b, err := h.LoadString("count.lua", counting)
	require.NoError(t, err)
	world := &Counter{}
	for i := 0; i < 200; i++ {
		_, err := h.Spawn(b, map[string]any{"world": world})
		require.NoError(t, err)
	}
	for i := 0; i < 10; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	require.Equal(t, 2000, world.N)
}

// With several workers, one value bound to two agents is refused unless
// the game marks it Shared; per-agent values are fine, and a value is free
// again once its agent is removed.
func TestSeveralWorkersRefuseUnsharedValues(t *testing.T) {
	for _, workers := range []int{2, 4} {
		h, err := host.New(host.Options{Workers: workers})
		require.NoError(t, err)
		b, err := h.LoadString("count.lua", counting)
		require.NoError(t, err)
		world := &Counter{}
		a1, err := h.Spawn(b, map[string]any{"world": world})
		require.NoError(t, err)
		_, err = h.Spawn(b, map[string]any{"world": world})
		require.ErrorIs(t, err, host.ErrNotShared)
		a2, err := h.Spawn(b, map[string]any{"world": &Counter{}})
		require.NoError(t, err)
		require.ErrorIs(t, a2.Bind("world", world), host.ErrNotShared)
		require.ErrorIs(t, a2.Set("world", world), host.ErrNotShared)
		require.NoError(t, a1.Bind("world", world), "the same agent may bind it again")
		require.NoError(t, h.Remove(a1))
		require.NoError(t, a2.Bind("world", world), "free once its agent is gone")

		shared := &Counter{safe: true}
		for _, a := range h.Agents() {
			require.NoError(t, a.Bind("world", host.Shared(shared)))
		}
		for i := 0; i < 130; i++ {
			_, err := h.Spawn(b, map[string]any{"world": host.Shared(shared)})
			require.NoError(t, err)
		}
		for i := 0; i < 10; i++ {
			require.NoError(t, h.Tick(0.1))
		}
		require.Equal(t, 10*len(h.Agents()), shared.N)
		h.Close()
	}
}

// Finding agents: by id, by state, counts per state; Agents is a copy, so
// removing while ranging over it visits every agent; Despawn runs the exit
// hooks, deepest first, and reports the agent's leaving.
func TestFindingAndDespawningAgents(t *testing.T) {
	var trs []host.Transition
	h, err := host.New(host.Options{OnTransition: func(tr host.Transition) { trs = append(trs, tr) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("m.lua", `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { log = "", go_on = false }, states = {
  idle = { transitions = { { to = "busy", when = function(ctx) return ctx.go_on end } } },
  busy = ai.fsm { initial = "work", exit = function(ctx) ctx.log = ctx.log .. "busy;" end, states = {
    work = { exit = function(ctx) ctx.log = ctx.log .. "work;" end } } } } }`)
	require.NoError(t, err)
	var all []*host.Agent
	for i := 0; i < 6; i++ {
		a, err := h.Spawn(b, map[string]any{"go_on": i%2 == 0})
		require.NoError(t, err)
		all = append(all, a)
	}
	require.NoError(t, h.Tick(0.1))
	a3, ok := h.Agent(3)
	require.True(t, ok)
	require.Same(t, all[2], a3)
	_, ok = h.Agent(99)
	require.False(t, ok)
	require.Len(t, h.AgentsIn("busy"), 3)
	require.Len(t, h.AgentsIn("busy.work"), 3)
	require.Equal(t, map[string]int{"idle": 3, "busy.work": 3}, h.StateCounts())

	trs = nil
	require.NoError(t, h.Despawn(a3))
	log, _ := a3.Text("log")
	require.Equal(t, "work;busy;", log)
	require.Equal(t, []host.Transition{{Agent: 3, Tick: 1, Kind: "despawn", From: "busy.work"}}, trs)
	_, ok = h.Agent(3)
	require.False(t, ok)

	n := 0
	for _, a := range h.Agents() {
		require.NoError(t, h.Remove(a))
		n++
	}
	require.Equal(t, 5, n, "removing while ranging visits every agent")
	require.Empty(t, h.Agents())
}

type level int

func (l level) Double() int { return int(l) * 2 }

type boundJob struct {
	Skill  float64 `luar:"skill"`
	Count  int
	Busy   bool
	Name   string
	Level  level
	Nested struct{ X float64 }
}

func (j *boundJob) Method() float64 { return 1 }

// Natives read a bound struct's fields in Go (no gopher-luar call), with
// the answers luar gives a Lua function, whatever the field's kind.
func TestNativesReadBoundFieldsLikeLuar(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("bound.lua", `local ai = require("luaai")
local keys = { "skill", "Count", "Busy", "Name", "Level", "Nested", "Method", "missing" }
return ai.fsm { initial = "s", context = { out = {} }, states = { s = {
  update = function(ctx)
    for _, k in ipairs(keys) do
      local v = ctx.job[k]
      ctx.out[k] = type(v) == "userdata" and "userdata" or type(v) == "function" and "function" or tostring(v)
    end
  end,
  transitions = {
    { to = "s", when = ai.all(ai.gt("job.skill", 0.5), ai.eq("job.Count", 3), ai.is("job.Busy"), ai.eq("job.Name", "smith")),
      run = function(ctx) ctx.out.native = "all held" end },
  },
} } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	job := &boundJob{Skill: 0.75, Count: 3, Busy: true, Name: "smith", Level: 2}
	require.NoError(t, a.Bind("job", job))
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, h.Tick(0.1))
	require.Empty(t, a.TakeErrors())
	out := a.Get("out").(map[string]any)
	require.Equal(t, "0.75", out["skill"])
	require.Equal(t, "3", out["Count"])
	require.Equal(t, "true", out["Busy"])
	require.Equal(t, "smith", out["Name"])
	require.Equal(t, "2", out["Level"], "a named type: luar answers")
	require.Equal(t, "userdata", out["Nested"])
	require.Equal(t, "function", out["Method"])
	require.Equal(t, "nil", out["missing"])
	require.Equal(t, "all held", out["native"], "the natives read the same values in Go")

	// A field read by a native follows the Go value between ticks.
	job.Count = 4
	require.NoError(t, h.Tick(0.1))
	out = a.Get("out").(map[string]any)
	require.Equal(t, "4", out["Count"])
}
