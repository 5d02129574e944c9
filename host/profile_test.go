package host_test

import (
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/require"
)

const profiled = `local ai = require("luaai")
return ai.fsm { initial = "a", context = { n = 0 }, states = {
  a = {
    update = function(ctx) ctx.n = ctx.n + 1 end,
    transitions = { { to = "b", when = function(ctx) return math.abs(ctx.n) >= 3 end } },
  },
  b = { update = function(ctx) ctx.n = ctx.n - 1 end,
        transitions = { { to = "a", when = ai.lt("n", -100) } } },
} }`

// A profile counts each Lua callback's calls and time by function, kind
// and state (conditions the engine runs in Go are not Lua calls); without
// Options.Profile there is none.
func TestProfile(t *testing.T) {
	h, err := host.New(host.Options{Profile: true, Workers: 2})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("prof.lua", profiled)
	require.NoError(t, err)
	for range 10 {
		_, err := h.Spawn(b, nil)
		require.NoError(t, err)
	}
	for range 5 {
		require.NoError(t, h.Tick(0.1))
	}
	p := hosttool.ProfileOf(h)
	require.Equal(t, 5, p.Ticks)
	require.Positive(t, p.InTicks)
	calls := map[string]int{}
	var sum time.Duration
	for _, e := range p.Entries {
		if e.Native != "" {
			calls["native "+e.Native+" "+e.State] = e.Calls
			require.Equal(t, p.InNatives, e.Total)
			continue
		}
		require.Equal(t, "prof.lua", e.File)
		require.True(t, e.Compiled, "each of the three runs compiled: %+v", e)
		calls[string(e.Callback)+" "+e.State+" "+string(rune('0'+e.Line))] = e.Calls
		sum += e.Total
		require.Positive(t, e.Total)
	}
	// Ticks 1-3 update a (n = 1, 2, 3), the when is tried each tick from
	// the first, and fires at tick 4's decide; ticks 4-5 update b.
	require.Equal(t, map[string]int{
		"update a 4":           30,
		"when a 5":             40,
		"update b 7":           20,
		"native lt(n, -100) b": 10, // b is entered in tick 4's decide: its transition is tried in tick 5's
	}, calls)
	require.Equal(t, sum, p.InLua)

	off, err := host.New(host.Options{})
	require.NoError(t, err)
	defer off.Close()
	b2, err := off.LoadString("prof.lua", profiled)
	require.NoError(t, err)
	_, err = off.Spawn(b2, nil)
	require.NoError(t, err)
	require.NoError(t, off.Tick(0.1))
	require.Empty(t, hosttool.ProfileOf(off).Entries)
	require.Zero(t, hosttool.ProfileOf(off).Ticks)
}

// BenchmarkProfile ticks the same 10,000 agents (Lua conditions and
// updates) in two hosts in turn, one profiling, and reports the median
// ratio of their tick times: what a profile costs.
func BenchmarkProfile(b *testing.B) {
	mk := func(profile bool) *host.Host {
		h, err := host.New(host.Options{Profile: profile})
		if err != nil {
			b.Fatal(err)
		}
		beh, err := h.LoadString("prof.lua", profiled)
		if err != nil {
			b.Fatal(err)
		}
		for range 10000 {
			if _, err := h.Spawn(beh, nil); err != nil {
				b.Fatal(err)
			}
		}
		return h
	}
	off, on := mk(false), mk(true)
	defer off.Close()
	defer on.Close()
	ratios := make([]float64, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		_ = off.Tick(0.1)
		d0 := time.Since(t0)
		t1 := time.Now()
		_ = on.Tick(0.1)
		ratios = append(ratios, float64(time.Since(t1))/float64(d0))
	}
	b.ReportMetric(median(ratios), "on/off")
}
