package host_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peeker's update calls a module function reading its own context and
// another agent's.
const peeker = `
local ai = require("luaai")
local peer = require("peer")
return ai.fsm {
  initial = "idle",
  context = { n = 0, name = "x", on = true },
  states = {
    idle = {
      update = function(ctx)
        ctx.n = ctx.n + 1
        peer.probe()
        for i = 1, 20 do ctx.name = "x" .. (i % 7) end -- while another worker may read it
      end,
    },
  },
}
`

// TestCrossAgentReadsWhileTicking reads other agents from a module
// function while 2 and 4 workers tick: under -race, no read races with
// the worker ticking the agent read; each read method of another agent is
// refused with its zero value and reported once to OnError, while reads
// of the calling agent and reads between ticks are served.
func TestCrossAgentReadsWhileTicking(t *testing.T) {
	const ticks = 4
	for _, workers := range []int{2, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			// The host shards agents by blocks of 64 ids: each agent reads
			// the one 64 ids on, on the next worker.
			agents := 64 * workers
			otherOf := func(id int) int { return (id+64-1)%agents + 1 }
			var (
				h      *host.Host
				mu     sync.Mutex
				wrong  []string
				probes int
				errs   []*host.ScriptError
			)
			fail := func(format string, args ...any) {
				mu.Lock()
				wrong = append(wrong, fmt.Sprintf(format, args...))
				mu.Unlock()
			}
			probe := func(self *host.Agent) {
				// The calling agent: served, as it is now.
				n, ok := self.Number("n")
				if !ok || int(n) != self.Ticks() || self.Get("n") != n || self.Path() != "idle" || !self.Active("idle") ||
					self.Clock() <= 0 || self.Context()["n"] != n || len(hosttool.View(self).Active) != 1 || self.Suspended() {
					fail("agent %d: a read of itself was not served: n=%v ok=%v ticks=%d path=%q", self.ID(), n, ok, self.Ticks(), self.Path())
				}
				// Every other agent: refused, whatever its worker.
				other, _ := h.Agent(otherOf(self.ID()))
				st, stOK := other.State()
				num, numOK := other.Number("n")
				txt, txtOK := other.Text("name")
				bl, blOK := other.Bool("on")
				stack, stackErr := other.Stack("")
				_, decOK := other.LastDecision("")
				refused := map[string]bool{
					"Get": other.Get("n") == nil, "Context": other.Context() == nil,
					"Number": num == 0 && !numOK, "Text": txt == "" && !txtOK, "Bool": !bl && !blOK,
					"State": st == "" && !stOK, "Path": other.Path() == "", "Active": !other.Active("idle"),
					"Stack": stack == nil && errors.Is(stackErr, host.ErrReentrant), "Paused": other.PausedStates() == nil,
					"Ticks": other.Ticks() == 0, "Clock": other.Clock() == 0, "Suspended": !other.Suspended(),
					"SuspendReason": other.SuspendReason() == host.NotSuspended, "Dropped": other.Dropped() == 0,
					"LastDecision": !decOK, "View": hosttool.View(other).Active == nil, "Errors": other.TakeErrors() == nil,
				}
				for m, ok := range refused {
					if !ok {
						fail("agent %d: Agent.%s of agent %d was served", self.ID(), m, other.ID())
					}
				}
				// An agent of the caller's own worker: refused as well, so that
				// what a script sees does not depend on the sharding.
				near, _ := h.Agent((self.ID()-1)/64*64 + self.ID()%64 + 1)
				if near.Get("n") != nil || near.Ticks() != 0 {
					fail("agent %d: agent %d, of the same worker, was served", self.ID(), near.ID())
				}
				// What does not change while the workers tick: served.
				if other.ID() != otherOf(self.ID()) || other.Behaviour() != self.Behaviour() || other.UserData() != other.ID() {
					fail("agent %d: ID, Behaviour or UserData of agent %d not served", self.ID(), other.ID())
				}
				mu.Lock()
				probes++
				mu.Unlock()
			}
			var err error
			h, err = host.New(host.Options{
				Workers: workers, Budget: -1, MemoryLimit: -1,
				Funcs:   map[string]map[string]any{"peer": {"probe": probe}},
				OnError: func(e *host.ScriptError) { errs = append(errs, e) },
			})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("peeker.lua", peeker)
			require.NoError(t, err)
			for range agents {
				a, err := h.Spawn(b, nil)
				require.NoError(t, err)
				require.NoError(t, a.SetUserData(a.ID()))
			}
			for range ticks {
				require.NoError(t, h.Tick(0.1))
			}
			assert.Empty(t, wrong)
			assert.Equal(t, agents*ticks, probes)

			// The behaviour's first refused read is reported once, naming
			// the method, at the line calling the module function.
			require.Len(t, errs, 1, "reported once per behaviour")
			e := errs[0]
			require.ErrorIs(t, e, host.ErrReentrant)
			assert.Equal(t, "peeker.lua", e.Script)
			assert.Equal(t, 11, e.Line, "the line of peer.probe()")
			assert.Equal(t, host.CallbackUpdate, e.Callback)
			assert.Equal(t, "idle", e.State)
			assert.Regexp(t, `Agent\.(State|Number|Text|Bool|Stack|LastDecision) of agent \d+ from a callback of agent \d+ was refused \(it returns .+\): while the workers tick, an agent's read methods serve only its own callbacks`, e.Msg)

			// Between ticks, on the game's goroutine: every read is served.
			a, _ := h.Agent(2)
			assert.Equal(t, float64(ticks), a.Get("n"))
			assert.Equal(t, ticks, a.Ticks())
			assert.Equal(t, "idle", a.Path())
			assert.NotEmpty(t, hosttool.View(a).Active)
		})
	}
}

// BenchmarkAgentGet is an ordinary read of a context field between ticks:
// what the check for running workers costs it.
func BenchmarkAgentGet(b *testing.B) {
	h, err := host.New(host.Options{})
	require.NoError(b, err)
	defer h.Close()
	beh, err := h.LoadString("g.lua", `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { hp = 10 }, states = { idle = {} } }`)
	require.NoError(b, err)
	a, err := h.Spawn(beh, nil)
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		if a.Get("hp") == nil {
			b.Fatal("no hp")
		}
	}
}

// BenchmarkAgentNumber is Number between ticks.
func BenchmarkAgentNumber(b *testing.B) {
	h, err := host.New(host.Options{})
	require.NoError(b, err)
	defer h.Close()
	beh, err := h.LoadString("g.lua", `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { hp = 10 }, states = { idle = {} } }`)
	require.NoError(b, err)
	a, err := h.Spawn(beh, nil)
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		if _, ok := a.Number("hp"); !ok {
			b.Fatal("no hp")
		}
	}
}

// BenchmarkOwnReadInTick is a module function reading its own agent's
// context during ticks of 2 workers (128 agents, one call each a tick):
// what the check of the calling thread costs the reads that are served.
// ns/op is one tick.
func BenchmarkOwnReadInTick(b *testing.B) {
	h, err := host.New(host.Options{Workers: 2, Funcs: map[string]map[string]any{"game": {
		"hp": func(self *host.Agent) float64 {
			n, _ := self.Number("hp")
			return n
		},
	}}})
	require.NoError(b, err)
	defer h.Close()
	beh, err := h.LoadString("g.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "idle", context = { hp = 10 }, states = { idle = {
  update = function(ctx) ctx.seen = game.hp() end } } }`)
	require.NoError(b, err)
	for range 128 {
		_, err := h.Spawn(beh, nil)
		require.NoError(b, err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := h.Tick(0.1); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if a, _ := h.Agent(100); a.Get("seen") != float64(10) {
		b.Fatalf("the module function read %v", a.Get("seen"))
	}
}
