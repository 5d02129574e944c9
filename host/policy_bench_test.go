package host_test

import (
	"testing"

	"github.com/luaai/luaai/host"
)

// BenchmarkMessages: 1,000 commanders each order four others a tick and
// read ai.sender() for each order they take, without a policy and with
// the team policy of docs/embedding.md; reported per message.
func BenchmarkMessages(b *testing.B) {
	const agents, perTick = 1000, 4
	team := map[int]string{}
	for id := 1; id <= agents; id++ {
		team[id] = []string{"red", "blue"}[id%2]
	}
	for _, c := range []struct {
		name   string
		policy func(from, to *host.Agent, event string) bool
	}{{"no_policy", nil}, {"team_policy", teamPolicy(team)}} {
		b.Run(c.name, func(b *testing.B) {
			h, err := host.New(host.Options{MessagePolicy: c.policy})
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close()
			beh, err := h.LoadString("cmd.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { by = 0 }, states = { s = {
  update = function(ctx)
    local me = ai.id()
    for k = 1, 4 do ai.send_to((me + 2 * k - 1) % 1000 + 1, "order", k) end
  end,
  transitions = { { on = "order", run = function(ctx) ctx.by = ai.sender() end } },
} } }`)
			if err != nil {
				b.Fatal(err)
			}
			for range agents {
				if _, err := h.Spawn(beh, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := h.Tick(0.1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*agents*perTick), "ns/message")
		})
	}
}
