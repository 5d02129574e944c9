package host_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
)

// Two hostile mods at once on 4 workers, each of their agents trying the
// largest memory attacks every tick (a key at the sequence limit and at
// gopher-lua's own, suspended coroutines, a coroutine's locals, a wrapped
// thread), beside a calm mod: the hostile agents are suspended by the
// memory limit, the calm ones never. A suspended agent keeps what it holds
// (the game frees it with Remove), and once a script's agents are
// suspended for memory while the host is over its limit, the script's
// other agents are too: each hostile script holds about the limit at
// most. So the heap grows by less than the limit once for each hostile
// script plus a margin (128 MiB: four callbacks allocating at once between
// the heap's samples, and garbage not yet collected).
func TestHostileMemoryTwoModsFourWorkers(t *testing.T) {
	const limit, margin = 128 << 20, 128 << 20
	var errs []*host.ScriptError
	h, err := host.New(host.Options{Workers: 4, MemoryLimit: limit, Budget: -1, ReportAllErrors: true,
		OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
	require.NoError(t, err)
	defer h.Close()
	gaps, err := h.LoadString("gaps.lua", fmt.Sprintf(`local ai = require("luaai")
return ai.fsm { initial = "s", context = { keep = {}, cos = {} }, states = { s = {
  update = function(ctx)
    local t = {} t[%d] = 1 t[67108863] = 1 rawset(t, 8388608, 1) table.insert(t, 8388607, 1)
    ctx.keep[#ctx.keep + 1] = t
    for i = 1, 10 do local co = coroutine.create(function() coroutine.yield() end) coroutine.resume(co) ctx.cos[#ctx.cos + 1] = co end
  end } } }`, luabind.MaxSequence))
	require.NoError(t, err)
	threads, err := h.LoadString("threads.lua", `local ai = require("luaai")
local held = {}
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx)
    ctx.n = ctx.n + 1
    ctx.f = ctx.f or coroutine.wrap(function() local big = {} while true do
      for i = 1, 1000 do big[#big + 1] = ("w"):rep(1000) .. #big end coroutine.yield() end end)
    ctx.f()
    held[#held + 1] = coroutine.create(function() local big = {} for i = 1, 1000 do big[i] = ("c"):rep(1000) .. i end coroutine.yield() end)
    coroutine.resume(held[#held])
  end } } }`)
	require.NoError(t, err)
	calm, err := h.LoadString("calm.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx) ctx.n = ctx.n + 1 end } } }`)
	require.NoError(t, err)
	var hostile, calms []*host.Agent
	for i := 0; i < 8; i++ {
		for _, b := range []*host.Behaviour{gaps, threads} {
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			hostile = append(hostile, a)
		}
	}
	for i := 0; i < 64; i++ {
		a, err := h.Spawn(calm, nil)
		require.NoError(t, err)
		calms = append(calms, a)
	}
	runtime.GC()
	base, peak := luabind.HeapBytes(), int64(0)
	suspended := func() int {
		n := 0
		for _, a := range hostile {
			if a.Suspended() {
				n++
			}
		}
		return n
	}
	for i := 0; i < 300 && suspended() < len(hostile); i++ {
		require.NoError(t, h.Tick(0.1))
		peak = max(peak, luabind.HeapBytes())
	}
	t.Logf("%d of %d hostile agents suspended, the heap grew by %s at most, %d errors", suspended(), len(hostile), luatext.FormatBytes(peak-base), len(errs))
	require.Equal(t, len(hostile), suspended())
	for _, a := range calms {
		require.False(t, a.Suspended(), "a calm agent was suspended")
	}
	for _, e := range errs {
		require.True(t, errors.Is(e, scripterr.ErrMemoryLimit), "%v", e)
		require.NotEqual(t, "calm.lua", e.Script)
	}
	require.Less(t, peak-base, int64(2*limit+margin))
}
