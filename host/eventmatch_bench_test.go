package host_test

import (
	"fmt"
	"testing"

	"github.com/luaai/luaai/host"
)

// eventGuardSrc is an ordinary event-driven guard: it patrols, is alarmed
// by some of the alarms it hears, calms down, and sends itself `noise`
// events a tick that no transition waits for.
const eventGuardSrc = `local ai = require("luaai")
local function chatter(ctx)
  ctx.n = ctx.n + 1
  for i = 1, ctx.noise do ai.send("noise", i) end
  if ctx.n %% 4 == 0 then ai.send("alarm", ctx.n) end
  if ctx.n %% 6 == 0 then ai.send("calm") end
end
return ai.fsm { initial = "patrol", context = { n = %d, noise = %d }, states = {
  patrol = { update = chatter, transitions = {
    { on = "hit", to = "hurt" },
    { on = "seen", to = "alert" },
    { on = "alarm", to = "alert", when = function(ctx, p) return p %% 8 == 0 end },
    { on = "call", to = "alert" },
  } },
  alert = { update = chatter, transitions = {
    { on = "hit", to = "hurt" },
    { on = "calm", to = "patrol" },
  } },
  hurt = { transitions = { { after = 0.2, to = "patrol" } } },
} }`

// BenchmarkEventAgents ticks 1,000 event-driven guards, each sent 2 or 3
// events a tick (below the index's threshold) or 34 or 35 (above it):
// what matching events to transitions costs an ordinary game.
func BenchmarkEventAgents(b *testing.B) {
	const agents = 1000
	for _, noise := range []int{1, 32} {
		b.Run(fmt.Sprintf("noise_%d", noise), func(b *testing.B) {
			h, err := host.New(host.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			for i := range agents {
				beh, err := h.LoadString(fmt.Sprintf("guard%d.lua", i%8), fmt.Sprintf(eventGuardSrc, i%8, noise))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := h.Spawn(beh, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := processCPU(b)
			for range b.N {
				if err := h.Tick(0.1); err != nil {
					b.Fatal(err)
				}
			}
			cpu = processCPU(b) - cpu
			b.StopTimer()
			// The process's CPU time: what the ticks cost without the time
			// they waited on a busy machine.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/agents, "cpu-ns/agent-tick")
			for _, a := range h.Agents() {
				if errs := a.TakeErrors(); len(errs) > 0 {
					b.Fatal(errs[0])
				}
			}
			reportPerAgentTick(b, agents)
		})
	}
}

// BenchmarkEventFlood is one tick of an agent whose state waits on 40,000
// events none of which comes, with 65,536 others pending (sent from Go
// before the tick, outside the timer), all of one name or each its own:
// the engine's own matching, no callback.
func BenchmarkEventFlood(b *testing.B) {
	for _, distinct := range []bool{false, true} {
		b.Run(fmt.Sprintf("distinct_names_%v", distinct), func(b *testing.B) {
			h, err := host.New(host.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			beh, err := h.LoadString("flood.lua", `local ai = require("luaai")
local tr = {}
for i = 1, 40000 do tr[i] = { on = "t" .. i, to = "other" } end
return ai.fsm { initial = "s", states = { s = { transitions = tr }, other = {} } }`)
			if err != nil {
				b.Fatal(err)
			}
			a, err := h.Spawn(beh, nil)
			if err != nil {
				b.Fatal(err)
			}
			names := make([]string, host.MaxPendingEvents)
			for i := range names {
				names[i] = "noise"
				if distinct {
					names[i] = fmt.Sprint("n", i)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				for i, name := range names {
					if err := a.Send(name, i); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if err := h.Tick(0.1); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if errs := a.TakeErrors(); len(errs) > 0 {
				b.Fatal(errs[0])
			}
		})
	}
}
