package host_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// hostileSrc builds a context with everything the codec has a form for:
// shared tables and a cycle ($id/$ref), a string that is not UTF-8
// ($bytes), NaN and infinities ($num), a sparse list ($array), keys that
// are not strings ($pairs), a bound Go value ($bound), and events and a
// message with payloads waiting for the next tick.
const hostileSrc = `local ai = require("luaai")
return ai.fsm { initial = "a", context = {}, states = { a = {
  enter = function(ctx)
    local t = { 1, 2, "three" }
    ctx.a, ctx.b = t, t
    ctx.cycle = { name = "c" } ctx.cycle.self = ctx.cycle
    ctx.raw, ctx.html = "\255\254<&>", "<a & b>\n"
    ctx.nan, ctx.inf, ctx.ninf = 0/0, 1/0, -1/0
    ctx.sparse = { [1] = 1, [40] = 2, x = 3 }
    ctx.keys = { [1.5] = "half", [true] = "yes", ["$dollar"] = 1 }
    ctx.small, ctx.big = 1e-7, 1e21
  end,
  update = function(ctx) ai.send_to(ai.id() % 3 + 1, "hello", { from = ai.id(), shared = ctx.a }) end,
} } }`

// treeSrc keeps a tree's records (a retry between tries) and requestSrc
// a pending request with a payload at every save.
const treeSrc = `local ai = require("luaai")
return ai.fsm { initial = "t", states = {
  t = ai.tree { root = ai.retry(function() return "failure" end, 1000000, { name = "again" }) },
} }`

const requestSrc = `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { t = { 1 } }, states = {
  idle = { update = function(ctx) ai.push("look", { n = 7, a = ctx.t, b = ctx.t }) end },
  look = { update = function(ctx) ai.pop({ n = 9 }) end },
} }`

func hostileHost(t *testing.T) *host.Host {
	t.Helper()
	var trace []string
	h, b := busyHost(t, &trace)
	hb, err := h.LoadString("hostile.lua", hostileSrc)
	require.NoError(t, err)
	for name, src := range map[string]string{"tree.lua": treeSrc, "request.lua": requestSrc} {
		extra, err := h.LoadString(name, src)
		require.NoError(t, err)
		for i := 0; i < 2; i++ {
			_, err := h.Spawn(extra, nil)
			require.NoError(t, err)
		}
	}
	for i := 0; i < 12; i++ {
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		if i%4 == 0 {
			a, err = h.Spawn(hb, nil)
			require.NoError(t, err)
			require.NoError(t, a.Bind("body", &pos{X: float64(i)}))
		}
	}
	for i := 0; i < 7; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	for _, a := range h.Agents() {
		require.NoError(t, a.Send("poke", map[string]any{"n": a.ID(), "s": "x\xff"}))
	}
	require.NoError(t, h.Agents()[0].SetInterval(3)) // saved as "interval"
	return h
}

// The asynchronous save writes the same bytes as the blocking ones.
func TestSnapshotAsyncSameBytes(t *testing.T) {
	h := hostileHost(t)
	want, err := h.Snapshot()
	require.NoError(t, err)
	for _, s := range []string{`"$id"`, `"$ref"`, `"$bytes"`, `"$num":"nan"`, `"$num":"-inf"`, `"$array"`, `"$pairs"`, `"$bound"`, `"messages"`, `"events"`, `\u003c`, `"request"`, `"tree"`, `"again"`, `"interval":3`} {
		require.Contains(t, string(want), s, "the save lacks a form it should test")
	}
	var blocking bytes.Buffer
	require.NoError(t, h.WriteSnapshot(&blocking))
	var async bytes.Buffer
	job, err := h.SnapshotAsync(&async)
	require.NoError(t, err)
	require.NoError(t, job.Wait())
	<-job.Done()
	require.Equal(t, len(want), job.Bytes())
	require.Equal(t, string(want), blocking.String())
	byReflection, err := host.SnapshotByReflection(h)
	require.NoError(t, err)
	require.Equal(t, string(byReflection), string(want), "the hand-written document differs from encoding/json's")
	require.Equal(t, string(want), async.String())
}

// gate is a writer that holds the save until released, so that the game
// ticks while the save's goroutine has its copy.
type gate struct {
	entered, release chan struct{}
	buf              bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	close(g.entered)
	<-g.release
	return g.buf.Write(p)
}

// The game keeps ticking, changing every context, while an asynchronous
// save is under way, and the save holds the state of when it was called
// (go test -race: the save shares nothing the ticks write).
func TestSnapshotAsyncWhileTicking(t *testing.T) {
	h := hostileHost(t)
	want, err := h.Snapshot()
	require.NoError(t, err)
	g := &gate{entered: make(chan struct{}), release: make(chan struct{})}
	job, err := h.SnapshotAsync(g)
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		if i == 2 {
			// A reload gives the agents new layouts meanwhile.
			require.NoError(t, h.Agents()[0].Behaviour().ReloadSource(busy))
		}
		require.NoError(t, h.Tick(0.1))
		for _, a := range h.Agents() {
			require.NoError(t, a.Set("n", i))
		}
	}
	<-g.entered
	select {
	case <-job.Done():
		t.Fatal("the job is done before its writer returned")
	default:
	}
	close(g.release)
	require.NoError(t, job.Wait())
	require.Equal(t, string(want), g.buf.String())
	now, err := h.Snapshot()
	require.NoError(t, err)
	require.NotEqual(t, string(want), string(now), "the ticks changed nothing")
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

// A writer's error is the job's; a save from inside a tick is refused.
func TestSnapshotAsyncErrors(t *testing.T) {
	h := hostileHost(t)
	job, err := h.SnapshotAsync(failWriter{})
	require.NoError(t, err)
	require.ErrorIs(t, job.Wait(), io.ErrShortWrite)

	var inTick error
	calls := 0
	h2, err := host.New(host.Options{Modules: map[string]host.Module{"game": {
		"save": func(L *lua.LState) int {
			calls++
			_, inTick = h2save.SnapshotAsync(io.Discard)
			return 0
		},
	}}})
	require.NoError(t, err)
	defer h2.Close()
	h2save = h2
	b, err := h2.LoadString("saver.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "s", states = { s = { update = function() game.save() end } } }`)
	require.NoError(t, err)
	_, err = h2.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h2.Tick(0.1))
	require.Equal(t, 1, calls)
	require.ErrorIs(t, inTick, host.ErrReentrant)
}

var h2save *host.Host

// Saves reuse the copies of the save before, never while an asynchronous
// save still writes from them: saves taken, in both formats, while a save
// waits on its writer leave it the state of when it was called, and each
// gives what the blocking save gives.
func TestSnapshotCopiesReused(t *testing.T) {
	h := hostileHost(t)
	want, err := h.Snapshot()
	require.NoError(t, err)
	g := &gate{entered: make(chan struct{}), release: make(chan struct{})}
	held, err := h.SnapshotAsync(g)
	require.NoError(t, err)
	bin := host.SaveOptions{Format: host.SnapshotBinary}
	for i := 0; i < 3; i++ {
		require.NoError(t, h.Tick(0.1))
		for _, a := range h.Agents() {
			require.NoError(t, a.Set("n", i))
		}
		for _, opts := range []host.SaveOptions{{}, bin} {
			var blocking, async bytes.Buffer
			require.NoError(t, h.WriteSnapshotWith(&blocking, opts))
			job, err := h.SnapshotAsyncWith(&async, opts)
			require.NoError(t, err)
			require.NoError(t, job.Wait())
			require.Equal(t, blocking.Bytes(), async.Bytes(), "round %d, format %d", i, opts.Format)
		}
	}
	close(g.release)
	require.NoError(t, held.Wait())
	require.Equal(t, string(want), g.buf.String())
}
