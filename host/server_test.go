package host_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// A module function runs on a worker's goroutine while other workers tick
// their agents: every Agent and Host method that changes agents returns
// ErrReentrant there, and nothing races (go test -race).
func TestAgentMethodsFromAWorkerAreRefused(t *testing.T) {
	var mu sync.Mutex
	got := map[string]error{}
	var agents []*host.Agent
	var h *host.Host
	note := func(name string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := got[name]; !ok || err == nil {
			got[name] = err
		}
	}
	var err error
	h, err = host.New(host.Options{Workers: 4, Modules: map[string]host.Module{"game": {
		"poke": func(L *lua.LState) int {
			me, ok := host.Caller(L)
			if !ok {
				L.RaiseError("no caller")
			}
			other := agents[(me.ID()*7)%len(agents)] // an agent on another worker, as often as not
			note("Send", other.Send("poke", nil))
			note("Set", other.Set("hp", 1))
			note("SetPath", other.SetPath([]string{"hp"}, 1))
			note("Bind", other.Bind("thing", &struct{ X int }{}))
			note("Sync", other.Sync("body", &struct {
				X float64 `lua:"x"`
			}{}))
			note("Unsync", other.Unsync("body"))
			note("Suspend", other.Suspend())
			note("Resume", other.Unsuspend())
			note("Tick", other.Tick(0.1))
			note("SetUserData", other.SetUserData(1))
			note("WatchDecisions", other.WatchDecisions(true))
			_, err := other.Snapshot()
			note("Snapshot", err)
			_, err = me.Snapshot()
			note("Snapshot(me)", err)
			note("Host.Tick", h.Tick(0.1))
			note("Host.Remove", h.Remove(other))
			_, err = h.Spawn(me.Behaviour(), nil)
			note("Host.Spawn", err)
			if other.TakeErrors() != nil {
				note("Errors", errors.New("Errors returned a list while the workers run"))
			}
			return 0
		},
	}}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("poker.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "s", context = { hp = 0 }, states = { s = {
  update = function(ctx) game.poke() end } } }`)
	require.NoError(t, err)
	for i := 0; i < 300; i++ {
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		agents = append(agents, a)
	}
	for i := 0; i < 3; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	require.NotEmpty(t, got)
	for name, err := range got {
		if name == "Errors" {
			t.Errorf("%v", err)
			continue
		}
		require.ErrorIs(t, err, host.ErrReentrant, name)
	}
	for _, a := range agents {
		require.Empty(t, a.TakeErrors())
		require.False(t, a.Suspended())
		require.Equal(t, 3, a.Ticks())
	}
}

// Host.Tick from a hook of Options is refused: the tick calling the hook
// is not over. Spawning from the hook still works.
func TestTickFromAHookIsRefused(t *testing.T) {
	var h *host.Host
	var b *host.Behaviour
	var tickErr, spawnErr error
	calls := 0
	h, err := host.New(host.Options{OnTransition: func(tr host.Transition) {
		calls++
		if tr.Kind == host.TransitionTo && calls < 10 {
			tickErr = h.Tick(0.1)
			_, spawnErr = h.Spawn(b, nil)
		}
	}})
	require.NoError(t, err)
	defer h.Close()
	b, err = h.LoadString("flip.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", states = {
  a = { transitions = { { to = "b" } } }, b = {} } }`)
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.ErrorIs(t, tickErr, host.ErrReentrant)
	require.NoError(t, spawnErr)
	require.Len(t, h.Agents(), 2)
}

type unit struct{ x, y float64 }

// A module function learns its caller: a mod moves its own unit and no
// other, whatever it passes. Typed functions (Options.Funcs) convert their
// arguments and results, and refuse bad ones at the script's line.
func TestCallerAndTypedFuncs(t *testing.T) {
	units := map[int]*unit{}
	h, err := host.New(host.Options{Workers: 2, Funcs: map[string]map[string]any{"game": {
		"move": func(a *host.Agent, dx, dy float64) (float64, float64, error) {
			u := a.UserData().(*unit)
			if dx > 100 {
				return 0, 0, fmt.Errorf("too far: %v", dx)
			}
			u.x += dx
			u.y += dy
			return u.x, u.y, nil
		},
		"clamp": func(v int, lo, hi uint8) int { return max(int(lo), min(v, int(hi))) },
		"describe": func(name string, opts map[string]any, list []any, any any, flag bool) string {
			return fmt.Sprintf("%s %v %v %v %v", name, opts, list, any, flag)
		},
		"whoami": func(a *host.Agent) int { return a.ID() },
	}}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("mover.lua", `local ai = require("luaai")
local game = require("game")
local _, load_err = pcall(game.whoami)
assert(load_err:find("game.whoami: called outside an agent's callback"), load_err)
return ai.fsm { initial = "s", context = { x = 0, y = 0, victim = 1 }, states = { s = {
  update = function(ctx)
    ctx.x, ctx.y = game.move(1, 2)
    ctx.me = game.whoami()
    ctx.clamped = game.clamp(300, 0, 255)
    ctx.text = game.describe("n", { a = 1 }, { 1, 2 }, true, false)
    ctx.bad_int = select(2, pcall(game.clamp, 1.5, 0, 1))
    ctx.bad_arg = select(2, pcall(game.move, "far", 0))
    ctx.too_far = select(2, pcall(game.move, 1000, 0))
  end } } }`)
	require.NoError(t, err)
	var agents []*host.Agent
	for i := 0; i < 130; i++ { // two workers' blocks of 64
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		u := &unit{}
		units[a.ID()] = u
		require.NoError(t, a.SetUserData(u))
		agents = append(agents, a)
	}
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, h.Tick(0.1))
	for _, a := range agents {
		require.Empty(t, a.TakeErrors())
		require.Equal(t, unit{2, 4}, *units[a.ID()], "agent %d", a.ID())
		x, _ := a.Number("x")
		require.Equal(t, 2.0, x)
		me, _ := a.Number("me")
		require.Equal(t, float64(a.ID()), me)
		c, _ := a.Number("clamped")
		require.Equal(t, 255.0, c)
		s, _ := a.Text("text")
		require.Equal(t, "n map[a:1] [1 2] true false", s)
		s, _ = a.Text("bad_int")
		require.Contains(t, s, "mover.lua:11: bad argument #1 to 'game.clamp' (number 1.5 is not an integer that fits int)")
		s, _ = a.Text("bad_arg")
		require.Equal(t, "mover.lua:12: bad argument #1 to 'game.move' (number expected, got string)", s)
		s, _ = a.Text("too_far")
		require.Equal(t, "mover.lua:13: too far: 1000", s)
	}
}

// Funcs that cannot be converted are New's error, naming module and
// function.
func TestBadFuncs(t *testing.T) {
	for _, tc := range []struct {
		fn   any
		want string
	}{
		{42, "game.f: int: not a function"},
		{func(ch chan int) {}, "game.f: parameter 1: chan int: not a function"},
		{func(a ...int) {}, "is variadic"},
		{func() (error, int) { return nil, 0 }, "only the last result may be an error"},
		{func(x int, a *host.Agent) {}, "parameter 2: *host.Agent"},
	} {
		_, err := host.New(host.Options{Funcs: map[string]map[string]any{"game": {"f": tc.fn}}})
		require.ErrorIs(t, err, host.ErrBadFunc)
		require.ErrorContains(t, err, tc.want)
	}
	_, err := host.New(host.Options{Funcs: map[string]map[string]any{"luaai": {}}})
	require.ErrorContains(t, err, `may not be named "luaai"`)
	_, err = host.New(host.Options{
		Modules: map[string]host.Module{"game": {"f": func(*lua.LState) int { return 0 }}},
		Funcs:   map[string]map[string]any{"game": {"f": func() {}}}})
	require.ErrorContains(t, err, `Options.Funcs["game"]["f"] is also in Options.Modules`)
}

// A save keeps who is suspended and why, and how many overruns each agent
// has had: after a load the runaway and the hoarder stay stopped, and an
// agent one overrun short of suspension is suspended by its next.
func TestSnapshotKeepsSuspensions(t *testing.T) {
	opts := host.Options{Budget: 20 * time.Millisecond, MaxOverruns: 3}
	h, err := host.New(opts)
	require.NoError(t, err)
	defer h.Close()
	src := `local ai = require("luaai")
return ai.fsm { initial = "s", context = { loop = false, n = 0 }, states = { s = {
  update = function(ctx) ctx.n = ctx.n + 1 if ctx.loop then while true do end end end } } }`
	b, err := h.LoadString("loop.lua", src)
	require.NoError(t, err)
	runaway, err := h.Spawn(b, map[string]any{"loop": true})
	require.NoError(t, err)
	held, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, held.Suspend())
	calm, err := h.Spawn(b, nil)
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	require.False(t, runaway.Suspended())
	data, err := h.Snapshot()
	require.NoError(t, err)
	require.Contains(t, string(data), `"overruns":2`)
	require.Contains(t, string(data), `"suspended":"host"`)

	h2, err := host.New(opts)
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("loop.lua", src)
	require.NoError(t, err)
	agents, err := h2.Restore(data, b2)
	require.NoError(t, err)
	require.Len(t, agents, 3)
	require.Equal(t, host.SuspendedByHost, agents[1].SuspendReason())
	require.NoError(t, h2.Tick(0.1))
	require.True(t, agents[0].Suspended(), "the third overrun, counted across the load, suspends")
	require.Equal(t, host.SuspendedByOverruns, agents[0].SuspendReason())
	require.False(t, agents[2].Suspended())
	require.Equal(t, calm.Ticks()+1, agents[2].Ticks())
	require.Equal(t, held.Ticks(), agents[1].Ticks())

	bad := strings.Replace(string(data), `"suspended":"host"`, `"suspended":"bored"`, 1)
	h3, err := host.New(opts)
	require.NoError(t, err)
	defer h3.Close()
	b3, err := h3.LoadString("loop.lua", src)
	require.NoError(t, err)
	_, err = h3.Restore([]byte(bad), b3)
	require.ErrorIs(t, err, host.ErrBadSnapshot)
	require.ErrorContains(t, err, `suspended "bored": not a reason`)
}

// A tick cut short by its context resumes where it stopped: with a cut
// after every 500 agents of 2,000, each agent ticks once in four ticks, none
// starves, and the time an agent missed is added to its next dt.
func TestTickDeadlineIsFair(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			var cancel context.CancelCauseFunc
			var calls atomic.Int64
			per := int64(500 / workers)
			h, err := host.New(host.Options{Workers: workers, Funcs: map[string]map[string]any{"game": {
				"work": func() {
					if calls.Add(1) == per*int64(workers) {
						cancel(errors.New("frame deadline"))
					}
				},
			}}})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("worker.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "s", context = { dts = 0 }, states = { s = {
  update = function(ctx, dt) ctx.dts = ctx.dts + dt game.work() end } } }`)
			require.NoError(t, err)
			var agents []*host.Agent
			for range 2000 {
				a, err := h.Spawn(b, nil)
				require.NoError(t, err)
				agents = append(agents, a)
			}
			for range 8 {
				var ctx context.Context
				ctx, cancel = context.WithCancelCause(context.Background())
				calls.Store(0)
				err := h.TickContext(ctx, 0.1)
				cancel(nil)
				require.ErrorContains(t, err, "frame deadline", "tick %d, calls %d", agents[0].Ticks(), calls.Load())
			}
			ticks := make([]int, len(agents))
			for i, a := range agents {
				ticks[i] = a.Ticks()
				if workers == 1 {
					require.Equal(t, 2, a.Ticks(), "agent %d", a.ID())
				} // with two, how the 500 calls split between the workers varies
			}
			require.NoError(t, h.Tick(0.1)) // a whole tick pays what is owed
			for i, a := range agents {
				require.Equal(t, ticks[i]+1, a.Ticks())
				require.InDelta(t, 0.9, a.Clock(), 1e-9, "agent %d", a.ID())
				if len(a.TakeErrors()) > 0 {
					continue // its update was stopped by the deadline: that dt went unused
				}
				dts, _ := a.Number("dts")
				require.InDelta(t, 0.9, dts, 1e-9, "agent %d", a.ID())
			}
		})
	}
}

// The time budget stops work, not waiting: with more workers than cores,
// other goroutines hogging the CPU and a 2 ms budget, one-line callbacks
// are descheduled for longer than their budget and never blamed; a
// callback blocked in a slow module function is not stopped either (it
// did no work the budget can stop); a runaway still is.
func TestBudgetBlamesOnlyWork(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	stop := make(chan struct{})
	var hogs sync.WaitGroup
	// The slow module function blocks until the hogs have done 1,000 more
	// rounds of work (milliseconds on any machine, longer on a busy one):
	// a wait measured in work done elsewhere, not on a clock.
	var rounds atomic.Int64
	var mu sync.Mutex
	type waiter struct {
		at   int64
		done chan struct{}
	}
	var waiters []waiter
	wait := func() {
		w := waiter{rounds.Load() + 1000, make(chan struct{})}
		mu.Lock()
		waiters = append(waiters, w)
		mu.Unlock()
		<-w.done
	}
	for range 4 {
		hogs.Add(1)
		go func() {
			defer hogs.Done()
			x := 0
			for {
				select {
				case <-stop:
					return
				default:
				}
				for i := range 1 << 16 {
					x += i
				}
				if n := rounds.Add(1); n%16 == 0 {
					mu.Lock()
					kept := waiters[:0]
					for _, w := range waiters {
						if w.at <= n {
							close(w.done)
						} else {
							kept = append(kept, w)
						}
					}
					waiters = kept
					mu.Unlock()
				}
			}
		}()
	}
	defer func() { close(stop); hogs.Wait() }()

	var errs []*host.ScriptError
	h, err := host.New(host.Options{Workers: 4, Budget: 2 * time.Millisecond, ReportAllErrors: true,
		OnError: func(e *host.ScriptError) { errs = append(errs, e) },
		Funcs:   map[string]map[string]any{"game": {"wait": wait}}})
	require.NoError(t, err)
	defer h.Close()
	calm, err := h.LoadString("calm.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "s", context = { n = 0, slow = false }, states = { s = {
  update = function(ctx) ctx.n = ctx.n + 1 if ctx.slow then game.wait() end end } } }`)
	require.NoError(t, err)
	for i := range 2000 {
		_, err := h.Spawn(calm, map[string]any{"slow": i%500 == 0})
		require.NoError(t, err)
	}
	for range 30 {
		require.NoError(t, h.Tick(0.1))
	}
	require.Empty(t, errs, "innocent callbacks were stopped")
	for _, a := range h.Agents() {
		require.False(t, a.Suspended())
	}

	runaway, err := h.LoadString("runaway.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function() while true do end end } } }`)
	require.NoError(t, err)
	r, err := h.Spawn(runaway, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], host.ErrBudget)
	require.Equal(t, r.ID(), errs[0].Agent)
}

// One agent's tick is bounded as a whole: a parallel of 30 actions, each
// well inside the callback budget but together far past the agent's tick
// budget, ends the tick early with one report that counts as an overrun.
//
// Each action burns 10 ms of its thread's CPU time in a Go function (what
// the budget charges): a spin on os.clock, which is wall time, would cost
// far less CPU on a busy machine, and all thirty would fit.
func TestAgentTickBudget(t *testing.T) {
	var errs []*host.ScriptError
	h, err := host.New(host.Options{Budget: 40 * time.Millisecond, AgentTickBudget: 60 * time.Millisecond,
		ReportAllErrors: true, OnError: func(e *host.ScriptError) { errs = append(errs, e) },
		Funcs: map[string]map[string]any{"game": {"burn": func() { burnCPU(10 * time.Millisecond) }}}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("wide.lua", `local ai = require("luaai")
local game = require("game")
local function slow(ctx)
  ctx.ran = ctx.ran + 1
  game.burn()
  return "running"
end
local kids = { succeed = "all", fail = "one" }
for i = 1, 30 do kids[i] = ai.action(slow, { name = "a" .. i }) end
return ai.tree { context = { ran = 0 }, root = ai.parallel(kids) }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	ran, _ := a.Number("ran")
	require.Less(t, ran, 30.0, "the tick ran every action")
	require.Greater(t, ran, 0.0)
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], host.ErrBudget)
	require.Contains(t, errs[0].Msg, "the agent's tick ran past its 60ms budget")
	require.Equal(t, "wide.lua", errs[0].Script)
	require.Contains(t, []int{5, 6}, errs[0].Line, "the burn's line, or the next one where the stop is seen")

	// The next tick starts afresh; the third stopped tick suspends.
	for range 2 {
		require.NoError(t, h.Tick(0.1))
	}
	require.True(t, a.Suspended())
	require.Equal(t, host.SuspendedByOverruns, a.SuspendReason())
}

// What a script makes Go build is bounded by what it holds, not by depth ×
// key length: a 90-deep payload with 256 KiB keys crosses ai.send_to, and
// a 190-deep context with such keys is saved, each allocating about the
// data's size, not a path string per value (gigabytes before).
func TestDeepLongKeysCostTheirSize(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts and 100 MB snapshots: measured without the race detector")
	}
	h, err := host.New(host.Options{Workers: 2})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("deep.lua", `local ai = require("luaai")
local key = string.rep("k", 262144)
local function nest(n) local t = { leaf = 1 } for _ = 1, n do t = { [key] = t } end return t end
return ai.fsm { initial = "s", context = { to = 0 }, states = { s = {
  enter = function(ctx) ctx.deep = nest(190) end,
  update = function(ctx) if ctx.to > 0 then ai.send_to(ctx.to, "deep", nest(90)) end end,
  transitions = { { on = "deep", to = "got", run = function(ctx, p) ctx.got = p ~= nil end } } }, got = {} } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, map[string]any{"to": 0})
	require.NoError(t, err)
	_, err = h.Spawn(b, map[string]any{"to": 1})
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, h.Tick(0.1))
	data, err := h.Snapshot()
	require.NoError(t, err)
	runtime.ReadMemStats(&after)
	require.Equal(t, "got", a.Path())
	require.Empty(t, a.TakeErrors())
	require.Greater(t, len(data), 2*190*262144)
	// Linear: a few copies of the saved data (JSON building), where a path
	// per value made sum(depth × 256 KiB) ≈ 4.7 GB for the context alone.
	alloc := after.TotalAlloc - before.TotalAlloc
	require.Less(t, alloc, uint64(8*len(data)), "allocated %d MiB for %d MiB of snapshot", alloc>>20, len(data)>>20)
}

// require of a large module compiles under the calling callback's budget:
// the callback is stopped at its budget, not when the compiler is done.
func TestRequireCompilesUnderTheBudget(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("do local a = 1 end\n", (4<<20)/19-100) + "return {}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "big.lua"), []byte(big), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "req.lua"), []byte(`local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) ctx.m = require("big") end } } }`), 0o644))
	// While the stopped compile goes on by itself, a second large compile
	// is refused: those refusals are counted, not kept.
	compiling := "a chunk abandoned by an earlier stop is still compiling"
	var errs []*host.ScriptError
	refused := 0
	h, err := host.New(host.Options{Budget: 20 * time.Millisecond, ReportAllErrors: true,
		OnError: func(e *host.ScriptError) {
			if strings.Contains(e.Msg, compiling) {
				refused++
				return
			}
			errs = append(errs, e)
		}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadFile(filepath.Join(dir, "req.lua"))
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], host.ErrBudget)
	// The callback's budget, or on a loaded machine (-race, CI) the agent
	// tick's, whichever the watchdog sees first: stopped either way, not
	// when the compiler is done.
	require.Regexp(t, `callback ran past its 20ms budget|the agent's tick ran past its 80ms budget`, errs[0].Msg)
	// The compile goes on by itself; meanwhile a second large compile is
	// refused. Once it is done, require runs the compiled module (which
	// loads, or with the race detector's slowness runs past the budget).
	// Once the compile is done, require runs the compiled module (which
	// loads, or with the race detector's slowness runs past the budget).
	// However long the compile takes on a busy machine (over a minute
	// under -race beside a busy loop per core), the game ticks on, and go
	// test's timeout is the bound.
	for a.Get("m") == nil && len(errs) == 1 {
		require.NoError(t, h.Tick(0.1))
		runtime.Gosched()
	}
	for _, e := range errs[1:] {
		require.ErrorIs(t, e, host.ErrBudget, "the compiled module ran past the budget (race detector)")
	}
	t.Logf("%d ticks refused while it compiled", refused)
}

type body struct {
	X  float64 `lua:"x"`
	HP float64 `lua:"hp"`
}

// What the game attaches at spawn is there before the enter hooks run;
// a snapshot remembers which keys were synced, and Attach gets them back
// on restore with the game's user data.
func TestSpawnWithAndAttach(t *testing.T) {
	var got []string
	h, err := host.New(host.Options{Funcs: map[string]map[string]any{"game": {
		"unit": func(a *host.Agent) string { return a.UserData().(string) },
	}}})
	require.NoError(t, err)
	defer h.Close()
	src := `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "s", states = { s = {
  enter = function(ctx) ctx.seen = ctx.body.hp .. " " .. game.unit() .. " " .. ctx.tool:Name() end,
  update = function(ctx) ctx.body.x = ctx.body.x + 1 end } } }`
	b, err := h.LoadString("unit.lua", src)
	require.NoError(t, err)
	bd := &body{HP: 7}
	a, err := h.SpawnWith(b, host.SpawnOptions{UserData: "orc#1", Sync: map[string]any{"body": bd}, Bind: map[string]any{"tool": &tool{"axe"}}})
	require.NoError(t, err)
	seen, _ := a.Text("seen")
	require.Equal(t, "7 orc#1 axe", seen)
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, 1.0, bd.X)

	_, err = h.SpawnWith(b, host.SpawnOptions{Sync: map[string]any{"body": body{}}})
	require.ErrorIs(t, err, host.ErrNotSyncable)
	require.Len(t, h.Agents(), 1, "no agent when an attachment is refused")
	c, err := h.SpawnWith(b, host.SpawnOptions{UserData: "orc#2", Sync: map[string]any{"body": &body{}}, Bind: map[string]any{"tool": &tool{"bow"}}})
	require.NoError(t, err)
	require.Equal(t, 2, c.ID(), "the refused spawn gave its id back")
	n := 0
	for x := range h.All() {
		n++
		require.Equal(t, n, x.ID())
	}
	require.Equal(t, 2, n)

	data, err := h.Snapshot()
	require.NoError(t, err)
	h2, err := host.New(host.Options{Funcs: map[string]map[string]any{"game": {
		"unit": func(a *host.Agent) string { return a.UserData().(string) },
	}}})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("unit.lua", src)
	require.NoError(t, err)
	bodies := map[int]*body{}
	agents, err := h2.RestoreFrom(bytes.NewReader(data), host.RestoreOptions{
		Rebind: func(a *host.Agent, path string) any { return &tool{"again"} },
		Attach: func(a *host.Agent, synced []string) error {
			got = append(got, fmt.Sprint(a.ID(), synced))
			if err := a.SetUserData(fmt.Sprintf("orc#%d", a.ID())); err != nil {
				return err
			}
			for _, k := range synced {
				bodies[a.ID()] = &body{X: 100}
				if err := a.Sync(k, bodies[a.ID()]); err != nil {
					return err
				}
			}
			return nil
		}}, b2)
	require.NoError(t, err)
	require.Equal(t, []string{"1 [body]", "2 [body]"}, got)
	require.NoError(t, h2.Tick(0.1))
	require.Equal(t, 101.0, bodies[1].X)
	require.Equal(t, "orc#2", agents[1].UserData())

	for _, a := range agents {
		require.NoError(t, h2.Remove(a))
	}
	_, err = h2.RestoreFrom(bytes.NewReader(data), host.RestoreOptions{Attach: func(*host.Agent, []string) error {
		return errors.New("no such unit")
	}}, b2)
	require.ErrorContains(t, err, "attach: no such unit")
	require.Empty(t, h2.Agents(), "a refused restore adds nothing")
}

type tool struct{ name string }

func (t *tool) Name() string { return t.name }

// The slog adapters write script errors and ai.log lines with their fields.
func TestSlogAdapters(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h, err := host.New(host.Options{OnError: host.LogErrors(l), OnLog: host.LogLines(l), Faults: host.FaultSuspend})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("bad.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) ai.log("hello") error("boom") end } } }`)
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	out := buf.String()
	require.Contains(t, out, `level=INFO msg=hello agent=1 tick=1 state=s`)
	require.Contains(t, out, `level=ERROR msg="luaai: boom" script=bad.lua line=3 agent=1 tick=1 state=s callback=update count=1 suspends=true`)
}

// A script logging in a loop cannot pile up log records: at most
// MaxLogLines a tick reach OnLog, then one line counts the rest; a long
// line is cut.
func TestLogLinesAreBounded(t *testing.T) {
	var logs []host.Log
	// No time budget: on a loaded machine (-race, CI) the loop may take
	// longer than the default 50 ms, and this test counts its lines.
	h, err := host.New(host.Options{Budget: -1, OnLog: func(l host.Log) { logs = append(logs, l) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("chatty.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function(ctx)
  ai.log(string.rep("x", 10000))
  for i = 1, 5000 do ai.log("line " .. i) end
end } } }`)
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	require.Len(t, logs, host.MaxLogLines+1)
	require.Contains(t, logs[0].Msg, "… (5904 more bytes)")
	require.Equal(t, "line 999", logs[host.MaxLogLines-1].Msg)
	require.Equal(t, "luaai: 4001 more ai.log lines in this tick were dropped (at most 1000 a tick)", logs[host.MaxLogLines].Msg)
	logs = nil
	require.NoError(t, h.Tick(0.1))
	require.Len(t, logs, host.MaxLogLines+1, "the count starts again each tick")
}

// A fresh context iterates in one order in every process (its keys are set
// in sorted order): a script that walks it with pairs replays the same.
func TestContextOrderIsStable(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("walk.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { zeta = 1, alpha = 2, mid = 3, beta = 4, [7] = 5, omega = 6, gamma = 7, keys = "" },
  states = { s = { enter = function(ctx)
    local out = {}
    for k in pairs(ctx) do out[#out + 1] = tostring(k) end
    ctx.keys = table.concat(out, " ")
  end } } }`)
	require.NoError(t, err)
	for range 3 {
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		keys, _ := a.Text("keys")
		require.Equal(t, "7 alpha beta gamma keys mid omega zeta", keys)
	}
}

// A fixed runaway comes back: a reload that changes the line that ran
// away resumes the agents it suspended, and says how many; a reload that
// leaves it as it was resumes nobody. The suspension points at that line.
func TestReloadResumesFixedRunaways(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "loop.lua")
	bad := `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx)
    while true do end
  end } } }`
	require.NoError(t, os.WriteFile(script, []byte(bad), 0o644))
	var results []host.ReloadResult
	var errs []*host.ScriptError
	h, err := host.New(host.Options{Budget: 10 * time.Millisecond, AgentTickBudget: -1, MaxOverruns: 1,
		OnReload: func(r host.ReloadResult) { results = append(results, r) },
		OnError:  func(e *host.ScriptError) { errs = append(errs, e) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadFile(script)
	require.NoError(t, err)
	var agents []*host.Agent
	for range 3 {
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		agents = append(agents, a)
	}
	require.NoError(t, h.Tick(0.1))
	for _, a := range agents {
		require.Equal(t, host.SuspendedByOverruns, a.SuspendReason())
	}
	var suspension *host.ScriptError
	for _, e := range errs {
		if e.Suspends {
			suspension = e
		}
	}
	require.NotNil(t, suspension)
	require.Equal(t, 4, suspension.Line, "the line that ran away, not the machine")

	require.NoError(t, b.Reload()) // the same text: nobody comes back
	require.Equal(t, 0, results[len(results)-1].Resumed)
	require.True(t, agents[0].Suspended())

	fixed := strings.Replace(bad, "while true do end", "ctx.n = ctx.n + 1", 1)
	require.NoError(t, os.WriteFile(script, []byte(fixed), 0o644))
	require.NoError(t, b.Reload())
	require.Equal(t, 3, results[len(results)-1].Resumed)
	require.NoError(t, h.Tick(0.1))
	for _, a := range agents {
		require.False(t, a.Suspended())
		n, _ := a.Number("n")
		require.Equal(t, 1.0, n)
	}
}

// Sync in Attach fills the table the save restored at its key: what
// scripts added to a synced table comes back with it (in either format),
// the struct's fields win, and the table is synced both ways. Sync after
// the restore, outside Attach, puts a new table there as at spawn.
func TestAttachSyncKeepsScriptFields(t *testing.T) {
	src := `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  enter = function(ctx) ctx.body.note = "seen at " .. ctx.body.hp end,
  update = function(ctx) ctx.body.x = ctx.body.x + 1 end } } }`
	h := syncedUnitHost(t, src)
	for _, format := range []host.SnapshotFormat{host.SnapshotJSON, host.SnapshotBinary} {
		var save bytes.Buffer
		require.NoError(t, h.WriteSnapshotWith(&save, host.SaveOptions{Format: format}))
		h2, err := host.New(host.Options{})
		require.NoError(t, err)
		b2, err := h2.LoadString("unit.lua", src)
		require.NoError(t, err)
		bd := &body{X: 100, HP: 3}
		got, err := h2.RestoreFrom(&save, host.RestoreOptions{Attach: func(a *host.Agent, synced []string) error {
			return a.Sync("body", bd)
		}}, b2)
		require.NoError(t, err)
		a := got[0]
		bodyOf := func() map[string]any { return a.Get("body").(map[string]any) }
		require.Equal(t, "seen at 7", bodyOf()["note"], "format %d: the script's field is lost", format)
		require.Equal(t, 3.0, bodyOf()["hp"], "the struct's field is not synced in")
		require.NoError(t, h2.Tick(0.1))
		require.Equal(t, 101.0, bd.X, "the script's write is not synced out")

		require.NoError(t, a.Sync("body", &body{HP: 1}))
		require.NotContains(t, bodyOf(), "note", "Sync outside Attach keeps the old table")
		h2.Close()
	}
}

// A restore run inside Attach leaves the outer restore's Attach as it
// was: Sync there still fills the table the outer save restored.
func TestAttachSyncAfterNestedRestore(t *testing.T) {
	src := `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  enter = function(ctx) ctx.body.note = "kept" end } } }`
	h := syncedUnitHost(t, src)
	save, err := h.Snapshot()
	require.NoError(t, err)

	h2, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("unit.lua", src)
	require.NoError(t, err)
	attach := func(a *host.Agent, synced []string) error { return a.Sync("body", &body{HP: 1}) }
	got, err := h2.Import(save, host.ImportOptions{IDs: map[int]int{1: 10}, Attach: func(a *host.Agent, synced []string) error {
		if _, err := h2.Import(save, host.ImportOptions{IDs: map[int]int{1: 20}, Attach: attach}, b2); err != nil {
			return err
		}
		return attach(a, synced)
	}}, b2)
	require.NoError(t, err)
	require.Equal(t, "kept", got[0].Get("body").(map[string]any)["note"])
	inner, ok := h2.Agent(20)
	require.True(t, ok)
	require.Equal(t, "kept", inner.Get("body").(map[string]any)["note"])
}

// syncedUnitHost is a host of one unit of src, a body of 7 hp synced at
// "body".
func syncedUnitHost(t *testing.T, src string) *host.Host {
	t.Helper()
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	b, err := h.LoadString("unit.lua", src)
	require.NoError(t, err)
	_, err = h.SpawnWith(b, host.SpawnOptions{Sync: map[string]any{"body": &body{HP: 7}}})
	require.NoError(t, err)
	return h
}
