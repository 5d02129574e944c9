package host

import (
	"bytes"
	"runtime"
	"testing"
	"weak"

	lua "github.com/yuin/gopher-lua"
)

const slabGuard = `local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  context = { x = 0, player = "none" },
  states = { idle = { update = function(ctx, dt) ctx.x = ctx.x + dt end } },
}`

// slabWatch holds weak pointers to agents and their contexts.
type slabWatch struct {
	agents []weak.Pointer[Agent]
	ctxs   []weak.Pointer[lua.LTable]
}

func watch(agents []*Agent) slabWatch {
	var w slabWatch
	for _, a := range agents {
		w.agents = append(w.agents, weak.Make(a))
		w.ctxs = append(w.ctxs, weak.Make(a.ctx))
	}
	return w
}

// freedAfterGC collects until every agent and context in [from, len) is
// freed, or a few collections have run; it reports how many are left.
func (w slabWatch) freedAfterGC(from int) int {
	left := 0
	for range 5 {
		runtime.GC()
		left = 0
		for i := from; i < len(w.agents); i++ {
			if w.agents[i].Value() != nil || w.ctxs[i].Value() != nil {
				left++
			}
		}
		if left == 0 {
			break
		}
	}
	return left
}

// TestSlabsFreeRemovedAgents: agents spawned or restored together share
// blocks (of agents, records and context tables), yet removing agents
// frees them whole blocks at a time: with one agent of the first block
// kept, the agents of every other block, and their contexts, are freed,
// despawned or removed.
func TestSlabsFreeRemovedAgents(t *testing.T) {
	const n = 4 * agentBlock
	for _, how := range []string{"spawn", "restore"} {
		for _, despawn := range []bool{false, true} {
			h, err := New(Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			b, err := h.LoadString("guard.lua", slabGuard)
			if err != nil {
				t.Fatal(err)
			}
			var agents []*Agent
			if how == "spawn" {
				for range n {
					a, err := h.Spawn(b, nil)
					if err != nil {
						t.Fatal(err)
					}
					agents = append(agents, a)
				}
			} else {
				src, err := New(Options{Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				sb, err := src.LoadString("guard.lua", slabGuard)
				if err != nil {
					t.Fatal(err)
				}
				for range n {
					if _, err := src.Spawn(sb, nil); err != nil {
						t.Fatal(err)
					}
				}
				var buf bytes.Buffer
				if err := src.WriteSnapshotWith(&buf, SaveOptions{Format: SnapshotBinary}); err != nil {
					t.Fatal(err)
				}
				src.Close()
				if agents, err = h.RestoreFrom(&buf, RestoreOptions{}, b); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.Tick(0.1); err != nil {
				t.Fatal(err)
			}
			w := watch(agents)
			kept := agents[0]
			for _, a := range agents[1:] {
				remove := h.Remove
				if despawn {
					remove = h.Despawn
				}
				if err := remove(a); err != nil {
					t.Fatal(err)
				}
			}
			agents = nil
			if left := w.freedAfterGC(agentBlock); left != 0 {
				t.Errorf("%s, despawn %v: %d of the %d agents outside the kept one's block still in memory", how, despawn, left, n-agentBlock)
			}
			if w.agents[0].Value() != kept || w.ctxs[0].Value() != kept.ctx {
				t.Errorf("%s: the kept agent was freed", how)
			}
			if err := h.Tick(0.1); err != nil || kept.Ticks() != 2 {
				t.Errorf("%s: the kept agent ticks %d times, err %v", how, kept.Ticks(), err)
			}
			runtime.KeepAlive(kept)
			h.Close()
		}
	}
}
