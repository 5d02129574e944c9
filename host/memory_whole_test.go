package host_test

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	"github.com/stretchr/testify/require"
)

// words scales a size measured on 64-bit, where it is made of
// pointer-sized words, to this platform's words (half on 32-bit).
func words(n int64) int64 { return n * strconv.IntSize / 64 }

// The measure counts what a value holds whole: a table's nil slots, the
// keys its hash part keeps after they were set to nil, a closure's
// upvalues, the code of the functions load made, a coroutine's stacks and the locals of its suspended calls, the thread
// behind a coroutine.wrap function.
func TestSizeCountsWhatIsHeld(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name, src string
		atLeast   int64
	}{
		{"nil slots", `local t = {} t[65536] = 1 return t`, words(mib)},
		{"nil slots left by removals", `local t = {} for i = 1, 65536 do t[i] = i end for i = 1, 65535 do t[i] = nil end return t`, words(mib)},
		{"a suspended coroutine", `return coroutine.create(function() coroutine.yield() end)`, words(64 << 10)},
		{"a coroutine's locals", `local co = coroutine.create(function()
  local big = {} for i = 1, 1000 do big[i] = ("x"):rep(1000) .. i end coroutine.yield() end)
coroutine.resume(co) return co`, mib},
		{"coroutine.wrap", `local f = coroutine.wrap(function()
  local big = {} for i = 1, 1000 do big[i] = ("x"):rep(1000) .. i end coroutine.yield() end)
f() return f`, mib},
		{"keys set and removed", `local t = {} for i = 1, 20000 do local k = i + 0.5 t[k] = true t[k] = nil end return t`, 20000 * 64},
		{"long string keys removed", `local t = {} for i = 1, 100 do local k = ("k"):rep(10000) .. i t[k] = true t[k] = nil end return t`, 100 * 10000},
		{"closures with many upvalues", `local t = {} for i = 1, 1000 do local a0,a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15,a16,a17,a18,a19,a20,a21,a22,a23,a24,a25,a26,a27,a28,a29,a30,a31,a32,a33,a34,a35,a36,a37,a38,a39,a40,a41,a42,a43,a44,a45,a46,a47,a48,a49,a50,a51,a52,a53,a54,a55,a56,a57,a58,a59 = 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59 t[i] = function() return a0+a1+a2+a3+a4+a5+a6+a7+a8+a9+a10+a11+a12+a13+a14+a15+a16+a17+a18+a19+a20+a21+a22+a23+a24+a25+a26+a27+a28+a29+a30+a31+a32+a33+a34+a35+a36+a37+a38+a39+a40+a41+a42+a43+a44+a45+a46+a47+a48+a49+a50+a51+a52+a53+a54+a55+a56+a57+a58+a59 end end return t`, words(1000 * 60 * 56)},
		{"functions load made", `local src = ("a = 1 "):rep(4000) local t = {} for i = 1, 20 do t[i] = load(src .. "--" .. i) end return t`, 20 * 8000 * 12},
		{"a hundred coroutines", `local t = {} for i = 1, 100 do t[i] = coroutine.create(function() end) end return t`, words(100 * (64 << 10))},
		{"a coroutine inside a coroutine", `local co = coroutine.create(function()
  local inner = coroutine.wrap(function() local big = {} for i = 1, 1000 do big[i] = ("y"):rep(1000) .. i end coroutine.yield() end)
  inner() coroutine.yield() end)
coroutine.resume(co) return { co }`, mib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := defs.NewVM(luabind.Options{})
			defer vm.Close()
			v, err := vm.RunString("size.lua", tc.src)
			require.NoError(t, err)
			got := host.SizeOf(v)
			t.Logf("%s: %s", tc.name, luatext.FormatBytes(got))
			require.GreaterOrEqual(t, got, tc.atLeast)
			require.Less(t, got, 8*tc.atLeast+1<<20, "an estimate, not a multiple")
		})
	}
}

// Memory a script holds where the measure once did not look is measured
// between ticks: the agent that holds it is suspended with a memory error,
// and the heap grows by less than the limit plus a margin (96 MiB: the
// collector lets the heap reach twice what is live before it runs, and
// the test binary's other tests allocate beside).
func TestMemoryHeldWholeIsMeasured(t *testing.T) {
	const limit, margin = 64 << 20, 96 << 20
	for _, tc := range []struct{ name, ctx, update string }{
		{"suspended coroutines", `cos = {}`,
			`for i = 1, 20 do ctx.cos[#ctx.cos + 1] = coroutine.create(function() coroutine.yield() end) coroutine.resume(ctx.cos[#ctx.cos]) end`},
		{"locals of a suspended coroutine", `n = 0`,
			`if not co then co = coroutine.create(function() local big = {} while true do
  for i = 1, 2000 do big[#big + 1] = ("x"):rep(1000) .. #big end coroutine.yield() end end) end
coroutine.resume(co)`},
		{"the thread of coroutine.wrap in the context", `n = 0`,
			`ctx.f = ctx.f or coroutine.wrap(function() local big = {} while true do
  for i = 1, 2000 do big[#big + 1] = ("x"):rep(1000) .. #big end coroutine.yield() end end)
ctx.f()`},
		{"nil slots", `list = {}`,
			fmt.Sprintf(`local t = {} t[%d] = 1 ctx.list[#ctx.list + 1] = t`, 16384*64/strconv.IntSize)}, // as many bytes of slots on 32-bit
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs []*host.ScriptError
			h, err := host.New(host.Options{Workers: 1, MemoryLimit: limit, Budget: -1, ReportAllErrors: true,
				OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("hoard.lua", fmt.Sprintf(`local ai = require("luaai")
local co
return ai.fsm { initial = "s", context = { %s }, states = { s = {
  update = function(ctx) %s end } } }`, tc.ctx, tc.update))
			require.NoError(t, err)
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			runtime.GC()
			base, peak := luabind.HeapBytes(), int64(0)
			for i := 0; i < 400 && !a.Suspended(); i++ {
				require.NoError(t, h.Tick(0.1))
				peak = max(peak, luabind.HeapBytes())
			}
			require.NotEmpty(t, errs, "never stopped; the measure says %s", luatext.FormatBytes(h.MemoryUsed()))
			if last := errs[len(errs)-1]; a.Suspended() {
				require.True(t, errors.Is(last, scripterr.ErrMemoryLimit), "%v", last)
				require.Equal(t, host.CallbackMemory, last.Callback)
			} else {
				// The callback was stopped by the limit while it allocated
				// (the coroutine it resumed died with it: later ticks say
				// it is dead), and what is left fits: the measure, not a
				// suspension, is the proof.
				stop := errs[0]
				require.True(t, errors.Is(stop, scripterr.ErrMemoryLimit), "%v", stop)
				require.Equal(t, host.CallbackUpdate, stop.Callback, "%v", stop)
				for _, e := range errs[1:] {
					require.Contains(t, e.Error(), "dead", "a failed coroutine is dead, not running")
				}
				require.LessOrEqual(t, h.MemoryUsed(), int64(limit))
			}
			t.Logf("%s: stopped after %d ticks (suspended: %v), the heap grew by %s at most", tc.name, a.Ticks(), a.Suspended(), luatext.FormatBytes(peak-base))
			require.Less(t, peak-base, int64(limit+margin))
		})
	}
}

// A payload costs its sender what it costs its receiver: a table with a
// gap, sent a thousand times, is copied with its nil slots, so the
// sender's callback is stopped by the memory limit long before the
// receivers' inboxes hold gigabytes; a shared table sent inside one
// payload twice counts twice. What the tick leaves held (after a garbage
// collection, so that the garbage the collector had not yet reached,
// which depends on what earlier tests left on the heap, does not count)
// is less than the limit plus a margin of twice the limit: the heap is
// sampled every few milliseconds while a callback runs, and what was sent
// before the stop is still queued for the receiver.
func TestPayloadsCostWhatTheyHold(t *testing.T) {
	const limit, margin = 64 << 20, 128 << 20
	for _, tc := range []struct{ name, body, want string }{
		{"a gap sent a thousand times", `local t = {} t[60000] = 1 for i = 1, 1000 do ai.send_to(ctx.to, "gift", t) end`, "memory limit"},
		{"a gap shared inside a payload", `local t = {} t[40000] = 1 ai.send_to(ctx.to, "gift", { t, t })`, "more than 65536 entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs []*host.ScriptError
			h, err := host.New(host.Options{Workers: 1, MemoryLimit: limit, Budget: -1, ReportAllErrors: true,
				OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
			require.NoError(t, err)
			defer h.Close()
			sink, err := h.LoadString("sink.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {} } }`)
			require.NoError(t, err)
			rcv, err := h.Spawn(sink, nil)
			require.NoError(t, err)
			b, err := h.LoadString("gifts.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { to = 0 }, states = { s = {
  update = function(ctx) `+tc.body+` end } } }`)
			require.NoError(t, err)
			_, err = h.Spawn(b, map[string]any{"to": rcv.ID()})
			require.NoError(t, err)
			runtime.GC()
			base := luabind.HeapBytes()
			require.NoError(t, h.Tick(0.1))
			runtime.GC()
			grown := luabind.HeapBytes() - base
			require.NotEmpty(t, errs)
			require.Contains(t, errs[0].Msg, tc.want)
			t.Logf("%s: %s; the heap grew by %s", tc.name, errs[0].Msg, luatext.FormatBytes(grown))
			require.Less(t, grown, int64(limit+margin))
		})
	}
}
