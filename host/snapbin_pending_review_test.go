package host_test

import (
	"bytes"
	stdjson "encoding/json"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// mixedPendingSrc leaves at every save a request, messages to two other
// agents and an event to itself, their payloads sharing tables with the
// context and with each other and holding a bound Go value; its context
// keys change order and shape from agent to agent.
const mixedPendingSrc = `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { t = { 1 }, n = 0, name = "unit" }, states = {
  idle = { update = function(ctx)
    ctx.n = ctx.n + 1
    if ai.id() % 3 == 0 then ctx.extra = { k = ai.id(), list = { 1, 2, "s" } } end
    local shared = { hits = ctx.n, tag = "shared" }
    ai.push("look", { n = ctx.n, a = ctx.t, s = shared, g = ctx.go })
    ai.send_to(ai.id() % 7 + 1, "hello", { from = ai.id(), shared = ctx.t, s = shared })
    ai.send("withgo", { g = ctx.go, s = shared })
    ai.send_to((ai.id() + 1) % 7 + 1, "hi", shared)
    ai.send("self", ctx.t)
  end },
  look = { update = function(ctx) ai.pop({ n = 9 }) end },
} }`

// flatSrc has nothing pending: flat contexts, of a shape that varies.
const flatSrc = `local ai = require("luaai")
return ai.fsm { initial = "s", context = { x = 0, player = "none" }, states = { s = {
  update = function(ctx)
    ctx.x = ctx.x + 1
    if ai.id() % 2 == 0 then ctx.player = nil; ctx.z = "zed" end
    if ai.id() % 5 == 0 then ctx.body = { hp = ai.id(), x = 1.5 } end
  end } } }`

// goThing is a Go value bound into contexts.
type goThing struct{ N int }

// mixedHost is a host of workers workers with seven agents of
// mixedPendingSrc (each with its own bound value) and four of flatSrc,
// ticked so that each kind of thing is pending, and an event from the
// game.
func mixedHost(t *testing.T, workers int) (*host.Host, []*host.Behaviour) {
	t.Helper()
	h, err := host.New(host.Options{Workers: workers, Budget: -1, BudgetSteps: 1_000_000})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	behs := loadMixed(t, h)
	for i := range 11 {
		b := behs[0]
		if i%3 == 2 {
			b = behs[1]
		}
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		if b == behs[0] {
			require.NoError(t, a.Bind("go", &goThing{N: i}))
		}
	}
	for range 3 {
		require.NoError(t, h.Tick(0.1))
	}
	require.NoError(t, h.Agents()[0].Send("poke", map[string]any{"n": 1, "list": []any{1, "two"}}))
	return h, behs
}

func loadMixed(t *testing.T, h *host.Host) []*host.Behaviour {
	t.Helper()
	b, err := h.LoadString("mixed.lua", mixedPendingSrc)
	require.NoError(t, err)
	f, err := h.LoadString("flat.lua", flatSrc)
	require.NoError(t, err)
	return []*host.Behaviour{b, f}
}

// rebindThings gives back a Go value for every bound path.
func rebindThings(a *host.Agent, path string) any { return &goThing{N: a.ID()} }

// A binary save with agents pending (requests, messages, events sharing
// tables with their contexts, bound values in payloads) is the same bytes
// blocking and async, with 1, 2 and 4 workers; it loads back (with those
// workers) to the JSON save of the original.
func TestBinaryPendingSavesAgree(t *testing.T) {
	var first []byte
	for _, workers := range []int{1, 2, 4} {
		h, _ := mixedHost(t, workers)
		json, err := h.Snapshot()
		require.NoError(t, err)
		for _, p := range []string{`"events"`, `"messages"`, `"request"`, `"$ref"`, `"$bound"`} {
			require.Contains(t, string(json), p)
		}
		var blocking, async bytes.Buffer
		require.NoError(t, h.WriteSnapshotWith(&blocking, host.SaveOptions{Format: host.SnapshotBinary}))
		job, err := h.SnapshotAsyncWith(&async, host.SaveOptions{Format: host.SnapshotBinary})
		require.NoError(t, err)
		require.NoError(t, job.Wait())
		require.Equal(t, blocking.Bytes(), async.Bytes(), "workers %d: blocking and async binary saves differ", workers)
		if first == nil {
			first = blocking.Bytes()
		}
		require.Equal(t, first, blocking.Bytes(), "workers %d: the save is not the one of 1 worker", workers)

		for _, loadWorkers := range []int{1, 2, 4} {
			// A bound value in a payload is not bound again (JSON or
			// binary): what a JSON save loads to is the reference.
			load := func(doc []byte) *host.Host {
				h2, err := host.New(host.Options{Workers: loadWorkers})
				require.NoError(t, err)
				t.Cleanup(h2.Close)
				_, err = h2.RestoreFrom(bytes.NewReader(doc), host.RestoreOptions{Rebind: rebindThings}, loadMixed(t, h2)...)
				require.NoError(t, err)
				return h2
			}
			ref := load(json)
			want, err := ref.Snapshot()
			require.NoError(t, err)
			var wantBin bytes.Buffer
			require.NoError(t, ref.WriteSnapshotWith(&wantBin, host.SaveOptions{Format: host.SnapshotBinary}))
			h2 := load(blocking.Bytes())
			again, err := h2.Snapshot()
			require.NoError(t, err)
			require.Equal(t, string(want), string(again), "saved with %d workers, loaded with %d", workers, loadWorkers)
			var bin2 bytes.Buffer
			require.NoError(t, h2.WriteSnapshotWith(&bin2, host.SaveOptions{Format: host.SnapshotBinary}))
			require.Equal(t, wantBin.Bytes(), bin2.Bytes(), "saved with %d workers, loaded with %d: binary again", workers, loadWorkers)
			// The loaded agents go on as the original ones do.
			require.NoError(t, h2.Tick(0.1))
			h2.Close()
		}
	}
}

// Import of a binary save with an id map renames the senders of pending
// messages as Import of the JSON save does: both load to the same JSON.
func TestBinaryPendingImportRenamesSenders(t *testing.T) {
	h, _ := mixedHost(t, 1)
	json, err := h.Snapshot()
	require.NoError(t, err)
	var bin bytes.Buffer
	require.NoError(t, h.WriteSnapshotWith(&bin, host.SaveOptions{Format: host.SnapshotBinary}))
	ids := map[int]int{}
	for _, a := range h.Agents() {
		ids[a.ID()] = a.ID() + 100
	}
	var saves []string
	for _, doc := range [][]byte{json, bin.Bytes()} {
		h2, err := host.New(host.Options{})
		require.NoError(t, err)
		_, err = h2.Import(doc, host.ImportOptions{IDs: ids, Rebind: rebindThings}, loadMixed(t, h2)...)
		require.NoError(t, err)
		s, err := h2.Snapshot()
		require.NoError(t, err)
		saves = append(saves, string(s))
		h2.Close()
	}
	require.Equal(t, saves[0], saves[1])
	var doc struct {
		Agents []struct {
			Events, Messages []struct{ From int }
		}
	}
	require.NoError(t, stdjson.Unmarshal([]byte(saves[1]), &doc))
	senders := 0
	for _, a := range doc.Agents {
		for _, ev := range append(a.Events, a.Messages...) {
			if ev.From != 0 {
				require.Greater(t, ev.From, 100, "a sender is not renamed")
				senders++
			}
		}
	}
	require.Greater(t, senders, 10)
}

// A script that sends huge payloads and many messages right before a save:
// the binary save costs about what the JSON one does and loads back.
func TestBinaryPendingFloodSaves(t *testing.T) {
	src := `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = { update = function(ctx)
  ai.send_to(ai.id(), "long", string.rep("x", 100000))
  local big = {}
  for i = 1, 500 do big[i] = { i = i, s = "payload " .. i } end
  for i = 1, 100 do ai.send_to(ai.id(), "m" .. (i % 7), big) end
  for i = 1, 100 do ai.send("e" .. i, { big = big, i = i }) end
end } } }`
	// No CPU time budget (a slow machine would stop the script early).
	h, err := host.New(host.Options{Budget: -1, BudgetSteps: 10_000_000})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("flood.lua", src)
	require.NoError(t, err)
	for range 2 {
		_, err := h.Spawn(b, nil)
		require.NoError(t, err)
	}
	require.NoError(t, h.Tick(0.1))
	json, err := h.Snapshot()
	require.NoError(t, err)
	var bin bytes.Buffer
	require.NoError(t, h.WriteSnapshotWith(&bin, host.SaveOptions{Format: host.SnapshotBinary}))
	require.Less(t, bin.Len(), len(json), "the binary save is larger than the JSON one")
	h2, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("flood.lua", src)
	require.NoError(t, err)
	_, err = h2.Restore(bin.Bytes(), b2)
	require.NoError(t, err)
	again, err := h2.Snapshot()
	require.NoError(t, err)
	require.Equal(t, string(json), string(again))
	require.Equal(t, 2, strings.Count(string(again), `"name":"long"`), "the long messages")
	require.Equal(t, 2*100, strings.Count(string(again), `"name":"m`), "the messages")
	require.Equal(t, 2*100, strings.Count(string(again), `"name":"e`), "the events")
}
