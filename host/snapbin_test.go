package host_test

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// plainSrc holds in its context every form the value codec has (shared
// tables, a cycle, bytes that are not UTF-8, NaN, infinities, -0, a sparse
// list, keys that are not strings, long strings) and sends nothing, so its
// agents have nothing pending and are saved as binary records.
const plainSrc = `local ai = require("luaai")
return ai.fsm { initial = "a", context = {}, states = { a = {
  enter = function(ctx)
    local t = { 1, 2, "three", { deep = { deeper = { 1.5 } } } }
    ctx.a, ctx.b = t, t
    ctx.cycle = { name = "c" } ctx.cycle.self = ctx.cycle
    ctx.raw, ctx.html = "\255\254<&>", "<a & b>\n"
    ctx.nan, ctx.inf, ctx.ninf, ctx.nzero = 0/0, 1/0, -1/0, -0.0
    ctx.sparse = { [1] = 1, [40] = 2, x = 3 }
    ctx.holes = { [1] = 1, [9] = 2 }
    ctx.list = { 1, nil, 3 }
    ctx.keys = { [1.5] = "half", [true] = "yes", ["$dollar"] = 1, [-3] = "minus" }
    ctx.small, ctx.big, ctx.huge = 1e-7, 1e21, 2^60
    ctx.long = string.rep("long text ", 10)
    ctx.empty = {}
  end,
  update = function(ctx, dt) ctx.n = (ctx.n or 0) + dt end,
} } }`

// binHost is hostileHost with agents of plainSrc, ticked once more so
// that most agents have nothing pending (binary records) and some have
// messages and requests (JSON records inside the binary save).
func binHost(t *testing.T) (*host.Host, []string) {
	t.Helper()
	h := hostileHost(t)
	b, err := h.LoadString("plain.lua", plainSrc)
	require.NoError(t, err)
	for i := 0; i < 4; i++ {
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		if i == 0 {
			require.NoError(t, a.Bind("body", &pos{X: 1}))
		}
	}
	require.NoError(t, h.Tick(0.1))
	return h, []string{"busy.lua", "hostile.lua", "tree.lua", "request.lua", "plain.lua"}
}

// emptyLike is a host with the behaviours of binHost under the same names.
func emptyLike(t *testing.T, names []string) (*host.Host, []*host.Behaviour) {
	t.Helper()
	var trace []string
	h, busyB := busyHost(t, &trace)
	out := []*host.Behaviour{busyB}
	for _, name := range names[1:] {
		src := map[string]string{"hostile.lua": hostileSrc, "tree.lua": treeSrc, "request.lua": requestSrc, "plain.lua": plainSrc}[name]
		b, err := h.LoadString(name, src)
		require.NoError(t, err)
		out = append(out, b)
	}
	return h, out
}

func rebindAll(*host.Agent, string) any { return &pos{X: 1} }

// A binary save restored and saved as JSON is the JSON save of the
// original; the restored agents go on as the original ones do; the
// asynchronous binary save writes the blocking one's bytes.
func TestBinarySnapshotRoundTrip(t *testing.T) {
	h, names := binHost(t)
	want, err := h.Snapshot()
	require.NoError(t, err)
	var bin bytes.Buffer
	require.NoError(t, h.WriteSnapshotWith(&bin, host.SaveOptions{Format: host.SnapshotBinary}))
	require.Less(t, bin.Len(), len(want))
	job, err := h.SnapshotAsyncWith(&bytes.Buffer{}, host.SaveOptions{Format: host.SnapshotBinary})
	require.NoError(t, err)
	require.NoError(t, job.Wait())
	require.Equal(t, bin.Len(), job.Bytes())
	var async bytes.Buffer
	job, err = h.SnapshotAsyncWith(&async, host.SaveOptions{Format: host.SnapshotBinary})
	require.NoError(t, err)
	require.NoError(t, job.Wait())
	require.Equal(t, bin.Bytes(), async.Bytes(), "the async binary save differs from the blocking one")
	var json bytes.Buffer
	require.NoError(t, h.WriteSnapshotWith(&json, host.SaveOptions{}))
	require.Equal(t, string(want), json.String(), "the zero SaveOptions is not the JSON save")

	h2, bs := emptyLike(t, names)
	got, err := h2.RestoreFrom(bytes.NewReader(bin.Bytes()), host.RestoreOptions{Rebind: rebindAll}, bs...)
	require.NoError(t, err)
	require.Len(t, got, len(h.Agents()))
	again, err := h2.Snapshot()
	require.NoError(t, err)
	require.Equal(t, string(want), string(again), "binary save, load, JSON save differs from the JSON save")
	var bin2 bytes.Buffer
	require.NoError(t, h2.WriteSnapshotWith(&bin2, host.SaveOptions{Format: host.SnapshotBinary}))
	require.Equal(t, bin.Bytes(), bin2.Bytes(), "binary save, load, binary save differs")

	// The binary load and the JSON load go on alike.
	h3, bs3 := emptyLike(t, names)
	_, err = h3.RestoreFrom(bytes.NewReader(want), host.RestoreOptions{Rebind: rebindAll}, bs3...)
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		require.NoError(t, h2.Tick(0.1))
		require.NoError(t, h3.Tick(0.1))
	}
	a, err := h2.Snapshot()
	require.NoError(t, err)
	b, err := h3.Snapshot()
	require.NoError(t, err)
	require.True(t, string(a) == string(b), "the agents of the binary load went on otherwise than the JSON load's")

	// Import reads either format too, under new ids.
	ids := map[int]int{}
	for _, ag := range h.Agents() {
		ids[ag.ID()] = ag.ID() + 1000
	}
	imported := make([]string, 2)
	for i, data := range [][]byte{bin2.Bytes(), want} {
		h4, bs4 := emptyLike(t, names)
		got, err := h4.Import(data, host.ImportOptions{IDs: ids, Rebind: rebindAll}, bs4...)
		require.NoError(t, err)
		require.Equal(t, 1001, got[0].ID())
		out, err := h4.Snapshot()
		require.NoError(t, err)
		imported[i] = string(out)
	}
	require.True(t, imported[0] == imported[1], "a binary import differs from the JSON one")
}

// A damaged binary save is an error wrapping ErrBadSnapshot that adds no
// agent: cut anywhere, a byte changed anywhere, a huge length.
func TestBinarySnapshotDamaged(t *testing.T) {
	h, names := binHost(t)
	var bin bytes.Buffer
	require.NoError(t, h.WriteSnapshotWith(&bin, host.SaveOptions{Format: host.SnapshotBinary}))
	data := bin.Bytes()
	h2, bs := emptyLike(t, names)
	step := max(1, len(data)/400)
	for n := 8; n < len(data); n += step {
		_, err := h2.Restore(data[:n], bs...)
		require.ErrorIs(t, err, host.ErrBadSnapshot, "cut at %d", n)
		require.Empty(t, h2.Agents())
	}
	for i := 8; i < len(data); i += step {
		bad := bytes.Clone(data)
		bad[i] ^= 0xff
		if _, err := h2.Restore(bad, bs...); err != nil {
			require.True(t, errors.Is(err, host.ErrBadSnapshot) || errors.Is(err, host.ErrIDInUse), "byte %d: %v", i, err)
			require.Empty(t, h2.Agents())
			continue
		}
		for _, a := range h2.Agents() {
			require.NoError(t, h2.Remove(a))
		}
	}
	huge := append([]byte("\x89LUAAI\r\n\x01"), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f)
	_, err := h2.Restore(huge, bs...)
	require.ErrorIs(t, err, host.ErrBadSnapshot)
	require.ErrorContains(t, err, "items in the 0 bytes left")
	_, err = h2.Restore([]byte("\x89LUAAI\r\n\x02\x00"), bs...)
	require.ErrorContains(t, err, "binary snapshot of version 2")
}

// FuzzBinarySnapshot restores mutated binary saves: each is refused as a
// bad snapshot, never a panic, or read, the reader allocating at most 256
// times the input's size plus 1 MiB whatever its length fields say; what
// is read saves (binary and JSON), and the binary save reads back to the
// same saves.
func FuzzBinarySnapshot(f *testing.F) {
	fuzzBinary(f, plainSrc, nil, []byte("\x89LUAAI\r\n\x01\x01\x01\x02plain.lua"))
}

// pendingSrc keeps something of every kind pending at each save: a
// request, messages and events, their payloads sharing a table with the
// context.
const pendingSrc = `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { t = { 1 } }, states = {
  idle = { update = function(ctx)
    ai.push("look", { n = 7, a = ctx.t })
    ai.send_to(ai.id() % 2 + 1, "hello", { from = ai.id(), shared = ctx.t })
    ai.send("self", ctx.t)
  end },
  look = { update = function(ctx) ai.pop({ n = 9 }) end },
} }`

// FuzzBinaryPending is FuzzBinarySnapshot over saves of agents with
// requests, messages and events pending (records of tag 3).
func FuzzBinaryPending(f *testing.F) {
	fuzzBinary(f, pendingSrc, func(h *host.Host) error {
		return h.Agents()[0].Send("poke", map[string]any{"n": 1})
	})
}

// fuzzBinary fuzzes the restore of binary saves of a host of two agents
// of src (ticked, then prepared), seeded with that save, its first half
// and extra.
func fuzzBinary(f *testing.F, src string, prepare func(*host.Host) error, extra ...[]byte) {
	h, err := host.New(host.Options{Workers: 1})
	if err != nil {
		f.Fatal(err)
	}
	b, err := h.LoadString("plain.lua", src)
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := h.Spawn(b, nil); err != nil {
			f.Fatal(err)
		}
	}
	if err := h.Tick(0.1); err != nil {
		f.Fatal(err)
	}
	if prepare != nil {
		if err := prepare(h); err != nil {
			f.Fatal(err)
		}
	}
	var seed bytes.Buffer
	if err := h.WriteSnapshotWith(&seed, host.SaveOptions{Format: host.SnapshotBinary}); err != nil {
		f.Fatal(err)
	}
	h.Close()
	f.Add(seed.Bytes())
	f.Add(seed.Bytes()[:seed.Len()/2])
	for _, e := range extra {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		load := func(data []byte) (*host.Host, error) {
			h, err := host.New(host.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(h.Close)
			b, err := h.LoadString("plain.lua", src)
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.Restore(data, b)
			return h, err
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		h, err := load(data)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(256*len(data)+1<<20) {
			t.Fatalf("a %d-byte snapshot made its reader allocate %d bytes", len(data), alloc)
		}
		if err != nil {
			if !errors.Is(err, host.ErrBadSnapshot) && !errors.Is(err, host.ErrIDInUse) {
				t.Fatalf("refused, but not as a bad snapshot: %v", err)
			}
			return
		}
		var bin bytes.Buffer
		if err := h.WriteSnapshotWith(&bin, host.SaveOptions{Format: host.SnapshotBinary}); err != nil {
			t.Fatalf("read but cannot save: %v", err)
		}
		json, err := h.Snapshot()
		if err != nil {
			t.Fatalf("read but cannot save as JSON: %v", err)
		}
		h2, err := load(bin.Bytes())
		if err != nil {
			t.Fatalf("a binary save does not read back: %v", err)
		}
		var bin2 bytes.Buffer
		if err := h2.WriteSnapshotWith(&bin2, host.SaveOptions{Format: host.SnapshotBinary}); err != nil || !bytes.Equal(bin.Bytes(), bin2.Bytes()) {
			t.Fatalf("a binary save does not read back the same: %v", err)
		}
		json2, err := h2.Snapshot()
		if err != nil || string(json) != string(json2) {
			t.Fatalf("a binary save does not read back to the same JSON: %v\n%.2000s\n%.2000s", err, json, json2)
		}
	})
}

// Restored contexts of the same keys share no map: each agent's context
// changes alone, and walks its own keys.
func TestBinaryRestoredContextsApart(t *testing.T) {
	h, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h.Close()
	src := `local ai = require("luaai")
return ai.fsm { initial = "a", context = { x = 0, player = "none" }, states = { a = {
  update = function(ctx) local n = 0 for _ in pairs(ctx) do n = n + 1 end ctx.keys = n end,
} } }`
	b, err := h.LoadString("apart.lua", src)
	require.NoError(t, err)
	for range 4 {
		_, err := h.Spawn(b, nil)
		require.NoError(t, err)
	}
	var bin bytes.Buffer
	require.NoError(t, h.WriteSnapshotWith(&bin, host.SaveOptions{Format: host.SnapshotBinary}))
	h2, err := host.New(host.Options{Workers: 1})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("apart.lua", src)
	require.NoError(t, err)
	got, err := h2.Restore(bin.Bytes(), b2)
	require.NoError(t, err)
	require.Len(t, got, 4)
	for i, a := range got {
		a.Set("x", i*10)
		if i == 1 {
			a.Set("player", nil)
			a.Set("extra", true)
		}
	}
	require.NoError(t, h2.Tick(0.1))
	for i, a := range got {
		require.EqualValues(t, i*10, a.Get("x"), "agent %d", a.ID())
		// Counted before keys is first set: x and player, or x and extra.
		if i == 1 {
			require.Nil(t, a.Get("player"))
		} else {
			require.Equal(t, "none", a.Get("player"))
			require.Nil(t, a.Get("extra"))
		}
		require.EqualValues(t, 2, a.Get("keys"), "agent %d walks its own keys", a.ID())
	}
}

// memoSrc: machines whose records differ by the state on top, a pushed
// state under it, a machine's history and a utility machine's decide
// timer, all set through the context.
const memoSrc = `local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  context = { mode = 0 },
  states = {
    patrol = ai.fsm {
      initial = "walk", history = true,
      transitions = { { to = "combat", when = function(ctx) return ctx.mode == 1 end } },
      states = {
        walk = { transitions = {
          { push = "look", when = function(ctx) return ctx.mode == 2 end },
          { to = "rest", when = function(ctx) return ctx.mode == 3 end } } },
        look = {}, rest = {},
      },
    },
    combat = ai.utility {
      decide_every = 1,
      transitions = { { to = "patrol", when = function(ctx) return ctx.mode == 4 end } },
      states = { aim = { score = function() return 1 end }, fire = { score = function() return 0 end } },
    },
  },
}`

// Agents saved one after another with machine records alike, different
// and alike again (binMachines copies a record the same as the last
// one's) load to the same agents: the saves of the load are the saves of
// the originals, and they go on alike.
func TestBinaryLoadMachineRecordsAlike(t *testing.T) {
	newHost := func() (*host.Host, *host.Behaviour, *host.Behaviour) {
		h, err := host.New(host.Options{Workers: 2})
		require.NoError(t, err)
		t.Cleanup(h.Close)
		a, err := h.LoadString("memo.lua", memoSrc)
		require.NoError(t, err)
		g, err := h.LoadString("guard.lua", guardSource(false))
		require.NoError(t, err)
		return h, a, g
	}
	h, memo, guard := newHost()
	// modes in spawn order: runs of equal records, changes, and a guard
	// (another behaviour) between two alike.
	modes := []int{0, 0, 0, 2, 2, 0, 3, 3, 1, 1, -1, 1, 0, 4, 4, 2, -1, 2, 3}
	for _, m := range modes {
		b := memo
		if m < 0 {
			b = guard
		}
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		if m >= 0 {
			require.NoError(t, a.Set("mode", m))
		}
	}
	require.NoError(t, h.Tick(0.25))
	for i, a := range h.Agents() {
		if modes[i] == 4 || modes[i] == 3 { // back to patrol, history kept; rest then walk again
			require.NoError(t, a.Set("mode", map[int]int{4: 0, 3: 1}[modes[i]]))
		}
	}
	require.NoError(t, h.Tick(0.25))
	require.NoError(t, h.Tick(0.25))
	var bin bytes.Buffer
	require.NoError(t, h.WriteSnapshotWith(&bin, host.SaveOptions{Format: host.SnapshotBinary}))
	want, err := h.Snapshot()
	require.NoError(t, err)

	h2, memo2, guard2 := newHost()
	_, err = h2.RestoreFrom(bytes.NewReader(bin.Bytes()), host.RestoreOptions{}, memo2, guard2)
	require.NoError(t, err)
	got, err := h2.Snapshot()
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	states := map[string]bool{}
	for i, a := range h2.Agents() {
		p, _ := a.State()
		o, _ := h.Agents()[i].State()
		require.Equal(t, o, p, "agent %d", a.ID())
		states[p] = true
	}
	require.GreaterOrEqual(t, len(states), 4, "the agents are in too few states to test: %v", states)
	for range 3 {
		require.NoError(t, h.Tick(0.25))
		require.NoError(t, h2.Tick(0.25))
	}
	want, err = h.Snapshot()
	require.NoError(t, err)
	got, err = h2.Snapshot()
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "the loaded agents went on otherwise")
}
