package host_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/luaai/luaai/host"
)

// soakScript churns its context every tick: it writes and deletes keys,
// replaces a nested table and grows and shrinks a list. With keys="fixed"
// the deleted keys come back (a bounded set); with keys="unique" every
// tick invents new key names, which gopher-lua's tables never forget.
const soakScript = `local ai = require("luaai")
return ai.fsm {
  initial = "a",
  context = { n = 0, list = {} },
  states = {
    a = {
      update = function(ctx, dt)
        local n = ctx.n + 1
        ctx.n = n
        local key = KEYS == "fixed" and ("tmp" .. (n %% 16)) or ("tmp" .. n)
        ctx[key] = n
        ctx[KEYS == "fixed" and ("tmp" .. ((n + 8) %% 16)) or ("tmp" .. (n - 8))] = nil
        ctx.target = { x = n, y = -n }
        local list = ctx.list
        list[#list + 1] = n
        if #list > 32 then for i = #list, 1, -1 do list[i] = nil end end
      end,
      transitions = { { to = "b", when = function(ctx) return ctx.n %% 7 == 0 end } },
    },
    b = { transitions = { { to = "a" } } },
  },
}`

func heapMB() float64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// BenchmarkSoak ticks 1,000 agents for 1,000 ticks (1,000,000 agent-ticks)
// with context churn and reports the heap after the first 100 ticks and at
// the end.
func BenchmarkSoak(b *testing.B) {
	for _, keys := range []string{"fixed", "unique"} {
		b.Run(keys, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				h, err := host.New(host.Options{Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				src := fmt.Sprintf("local KEYS = %q\n", keys) + fmt.Sprintf(soakScript)
				beh, err := h.LoadString("soak.lua", src)
				if err != nil {
					b.Fatal(err)
				}
				for j := 0; j < 1000; j++ {
					_, _ = h.Spawn(beh, nil)
				}
				for t := 0; t < 100; t++ {
					_ = h.Tick(0.016)
				}
				before := heapMB()
				for t := 100; t < 1000; t++ {
					_ = h.Tick(0.016)
				}
				after := heapMB()
				b.ReportMetric(before, "MB-heap-at-100k")
				b.ReportMetric(after, "MB-heap-at-1M")
				h.Close()
			}
		})
	}
}
