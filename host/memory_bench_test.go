package host_test

import (
	"fmt"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// BenchmarkMemoryMeasure is what one measure of the agents costs when they
// hold 12,000 suspended coroutines (each walked: its stacks and the locals
// of its suspended call), against 12,000 small tables: the cost of walking
// coroutines rather than bounding their number.
func BenchmarkMemoryMeasure(b *testing.B) {
	for _, tc := range []struct{ name, make string }{
		{"12000 coroutines", `local co = coroutine.create(function(a, b) local x, y = {}, "s" coroutine.yield() end) coroutine.resume(co, 1, 2) return co`},
		{"12000 tables", `return { 1, 2, x = {} }`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			h, err := host.New(host.Options{Workers: 1, Budget: -1, MemoryLimit: 4 << 30})
			require.NoError(b, err)
			defer h.Close()
			beh, err := h.LoadString("hold.lua", fmt.Sprintf(`local ai = require("luaai")
local function make() %s end
return ai.fsm { initial = "s", context = { held = {} }, states = { s = {
  enter = function(ctx) for i = 1, 1200 do ctx.held[i] = make() end end } } }`, tc.make))
			require.NoError(b, err)
			for i := 0; i < 10; i++ {
				_, err := h.Spawn(beh, nil)
				require.NoError(b, err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				host.MeasureNow(h)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/12000, "ns/value")
			b.ReportMetric(float64(h.MemoryUsed())/12000, "bytes/value")
		})
	}
}
