package host_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/luaval"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

const plainBehaviour = `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {} } }`

// withContext is a one-agent snapshot of plainBehaviour whose context is
// ctx (JSON as Save writes it).
func withContext(t *testing.T, ctx string) []byte {
	h, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("plain.lua", plainBehaviour)
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	data, err := h.Snapshot()
	require.NoError(t, err)
	var snap map[string]any
	require.NoError(t, json.Unmarshal(data, &snap))
	snap["agents"].([]any)[0].(map[string]any)["ctx"] = json.RawMessage(ctx)
	out, err := json.Marshal(snap)
	require.NoError(t, err)
	return out
}

// restoreAlloc restores data into a fresh host and returns the error, the
// bytes the Go heap allocated meanwhile (garbage included), and the bytes
// still held once it is collected (the host alive).
func restoreAlloc(t *testing.T, data []byte) (alloc, kept int64, err error) {
	h, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("plain.lua", plainBehaviour)
	require.NoError(t, err)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = h.Restore(data, b)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(h)
	return int64(after.TotalAlloc - before.TotalAlloc), int64(after.HeapAlloc) - int64(before.HeapAlloc), err
}

// A crafted snapshot makes its reader allocate at most a small multiple of
// its own size: an integer key past a table's array part is charged for
// the empty slots it fills (4 times the value's bytes at most), keys past
// the sequence limit are hash entries, and tables start without room
// reserved. What the restored agents hold is at most 64 times the
// snapshot's size plus 256 KiB (a host's fixed cost of restoring an
// agent): an empty table is 96 bytes for the 3 of "[],", the largest
// multiple a snapshot can reach. What the reader allocates on the way,
// garbage included (encoding/json's tokens, 150 to 200 bytes each), is at
// most 256 times the size plus 1 MiB.
func TestCraftedSnapshotsAllocateLittle(t *testing.T) {
	many := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	for _, tc := range []struct{ name, ctx, err string }{
		{"a key far past the array part", `{"$pairs":[[8388608,1]]}`, ""},
		{"the largest array key", `{"$pairs":[[67108863,1]]}`, ""},
		{"a key at the sequence limit", fmt.Sprintf(`{"$pairs":[[%d,1]]}`, luaval.MaxSequence), "empty array slots"},
		{"keys past the end of many tables", many(2000, fmt.Sprintf(`{"$pairs":[[%d,1]]}`, luaval.MaxSequence/2)), "empty array slots"},
		{"a gap paid for", fmt.Sprintf(`{"pad":"%s","t":{"$pairs":[[%d,1]]}}`, strings.Repeat("x", 200000), 50000), ""},
		{"descending keys", `{"$pairs":[[9000,1],[8999,1],[8998,1]]}`, "empty array slots"},
		{"a bound value far out", fmt.Sprintf(`{"$pairs":[[%d,{"$bound":"x"}]]}`, luaval.MaxSequence), "empty array slots"},
		{"empty tables", many(100000, `[]`), ""},
		{"empty objects", many(100000, `{}`), ""},
		{"nulls", many(100000, `null`), ""},
		{"small numbers", many(100000, `1`), ""},
		{"shared tables", `{"a":{"$id":1,"$t":[1,2,3]},"b":` + many(50000, `{"$ref":1}`) + `}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := withContext(t, tc.ctx)
			alloc, kept, err := restoreAlloc(t, data)
			t.Logf("%s: %d bytes of snapshot, %d allocated (%.1fx), %d kept (%.1fx)", tc.name, len(data),
				alloc, float64(alloc)/float64(len(data)), kept, float64(kept)/float64(len(data)))
			if tc.err != "" {
				require.ErrorIs(t, err, host.ErrBadSnapshot)
				require.ErrorContains(t, err, tc.err)
			} else {
				require.NoError(t, err)
			}
			require.Less(t, kept, int64(64*len(data)+256<<10))
			require.Less(t, alloc, int64(256*len(data)+1<<20))
		})
	}
}

// What Save writes of a sparse table reads back exactly: one with more
// holes than elements is written as a list with nulls (the snapshot pays
// for the empty slots its reader fills), and keys past the sequence limit
// as pairs.
func TestSparseTablesSaveAndRestore(t *testing.T) {
	for _, tc := range []struct{ name, build string }{
		{"one far key", `ctx.t = {} ctx.t[100000] = "far"`},
		{"far keys and names", `ctx.t = { name = "x", [1] = 1 } ctx.t[131072] = 2 ctx.t[131073] = 3 ctx.t[-5] = 4`},
		{"a few holes", `ctx.t = { 1, 2, nil, 4, nil, 6 }`},
		{"holes after removals", `ctx.t = {} for i = 1, 5000 do ctx.t[i] = i end for i = 1, 4990 do ctx.t[i] = nil end`},
		{"past the limit", `ctx.t = {} for i = 1, 131080 do ctx.t[i] = i end`},
		{"only past the limit", `ctx.t = {} ctx.t[131073] = 1 ctx.t[200000] = 2`},
		{"shared and sparse", `local s = {} s[70000] = "s" ctx.a = s ctx.b = { s, s }`},
		{"a sparse list of tables", `ctx.t = {} ctx.t[3000] = { x = 1 } ctx.t[1] = { y = 2 }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := host.New(host.Options{Workers: 1, Budget: -1})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("plain.lua", plainBehaviour)
			require.NoError(t, err)
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			fn, err := host.VM(h).RunString("build.lua", "return function(ctx) "+tc.build+" end")
			require.NoError(t, err)
			_, err = host.VM(h).Call(fn.(*lua.LFunction), host.ContextTable(a))
			require.NoError(t, err)
			data, err := h.Snapshot()
			require.NoError(t, err)

			g, err := host.New(host.Options{Workers: 1})
			require.NoError(t, err)
			defer g.Close()
			gb, err := g.LoadString("plain.lua", plainBehaviour)
			require.NoError(t, err)
			restored, err := g.Restore(data, gb)
			require.NoError(t, err, "%.300s", data)
			require.Equal(t, luaval.ToGo(host.ContextTable(a)), luaval.ToGo(host.ContextTable(restored[0])))
			again, err := g.Snapshot()
			require.NoError(t, err)
			require.Equal(t, string(data), string(again))
		})
	}
}

// A list of bound values reads back: each slot is made as it is read, so
// none leaves a gap before the next.
func TestBoundListsReadBack(t *testing.T) {
	ctx := `{"bodies":[` + strings.TrimSuffix(strings.Repeat(`{"$bound":"b"},`, 2000), ",") + `,"last"]}`
	h, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("plain.lua", plainBehaviour)
	require.NoError(t, err)
	agents, err := h.RestoreFrom(strings.NewReader(string(withContext(t, ctx))), host.RestoreOptions{
		Rebind: func(a *host.Agent, path string) any { return nil },
	}, b)
	require.NoError(t, err)
	bodies := host.ContextTable(agents[0]).RawGetString("bodies").(*lua.LTable)
	require.Equal(t, lua.LString("last"), bodies.RawGetInt(2001))
}
