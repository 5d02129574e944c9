package host_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
)

// memoryHost is a host with a 64 MiB limit and the time budget off, so
// only the memory limit can stop the hostile scripts below.
func memoryHost(t *testing.T, errs *[]*host.ScriptError) *host.Host {
	h, err := host.New(host.Options{Workers: 1, MemoryLimit: 64 << 20, Budget: -1, ReportAllErrors: true,
		OnError: func(e *host.ScriptError) { *errs = append(*errs, e) }})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return h
}

// A callback that grows a table without end is stopped by the memory
// limit, at its file:line, and the agent goes on.
func TestMemoryLimitStopsACallback(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"tables", `local t = {} local i = 0 while true do i = i + 1 t[i] = { i, i } end`},
		{"strings", `local t = {} local i = 0 while true do i = i + 1 t[i] = ("x"):rep(1000) .. i end`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs []*host.ScriptError
			h := memoryHost(t, &errs)
			b, err := h.LoadString("hog.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx)
    ctx.n = ctx.n + 1
    if ctx.n == 1 then `+tc.body+` end
  end } } }`)
			require.NoError(t, err)
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			require.NoError(t, h.Tick(0.1))
			require.Len(t, errs, 1)
			e := errs[0]
			require.True(t, errors.Is(e, scripterr.ErrMemoryLimit), "%v", e)
			require.Equal(t, "hog.lua", e.Script)
			require.Equal(t, 5, e.Line, "the stop's error: %v\ntraceback: %s", e, e.Traceback)
			require.Equal(t, host.CallbackUpdate, e.Callback)
			require.Contains(t, e.Msg, "memory limit: the callback allocated more than 64 MiB")
			require.NoError(t, h.Tick(0.1)) // the agent goes on
			n, _ := a.Number("n")
			require.Equal(t, 2.0, n)
		})
	}
}

// A context that grows a little every tick is measured between ticks: the
// agent holding too much is suspended with a memory error, the others go on.
func TestMemoryLimitSuspendsAGrowingContext(t *testing.T) {
	var errs []*host.ScriptError
	h := memoryHost(t, &errs)
	hog, err := h.LoadString("hoard.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { t = {} }, states = { s = {
  update = function(ctx) ctx.t[#ctx.t + 1] = ("x"):rep(1000000) .. #ctx.t end } } }`)
	require.NoError(t, err)
	calm, err := h.LoadString("calm.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx) ctx.n = ctx.n + 1 end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(hog, nil)
	require.NoError(t, err)
	c, err := h.Spawn(calm, nil)
	require.NoError(t, err)
	for i := 0; i < 300 && !a.Suspended(); i++ {
		require.NoError(t, h.Tick(0.1))
	}
	require.True(t, a.Suspended(), "the hoarding agent was never stopped")
	require.Less(t, a.Ticks(), 200)
	require.Len(t, errs, 1)
	require.True(t, errors.Is(errs[0], scripterr.ErrMemoryLimit))
	require.Equal(t, host.CallbackMemory, errs[0].Callback)
	require.Equal(t, "s", errs[0].State)
	require.Equal(t, "hoard.lua", errs[0].Script)
	require.Contains(t, errs[0].Msg, "the agent is suspended")
	require.False(t, c.Suspended())
	ticks := a.Ticks()
	for i := 0; i < 5; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	require.Equal(t, ticks, a.Ticks(), "a suspended agent does not tick")
	n, _ := c.Number("n")
	require.Equal(t, float64(c.Ticks()), n)
	require.Greater(t, h.MemoryUsed(), int64(64<<20))
}

// Error values are kept small and readable: a 16 MiB message is cut, a
// table raised as an error says so, or gives its __tostring.
func TestErrorTextIsBounded(t *testing.T) {
	h, err := host.New(host.Options{Workers: 1, Budget: 10 * time.Second}) // 16 MiB takes a while on a busy machine
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("errs.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx)
    local which = ctx.which
    if which == 1 then error(("x"):rep(16 * 1024 * 1024 - 100)) end
    if which == 2 then error({}) end
    if which == 3 then error(setmetatable({}, { __tostring = function() return "custom error" end })) end
    if which == 4 then error("line one\nline two") end
  end } } }`)
	require.NoError(t, err)
	var got []string
	for which := 1; which <= 4; which++ {
		a, err := h.Spawn(b, map[string]any{"which": which})
		require.NoError(t, err)
		require.NoError(t, a.Tick(0.1))
		errs := a.TakeErrors()
		require.Len(t, errs, 1)
		got = append(got, errs[0].Message())
	}
	require.Less(t, len(got[0]), 2*scripterr.MaxErrorText)
	require.True(t, strings.HasPrefix(got[0], "errs.lua:5: xxxx"), got[0][:40])
	require.Contains(t, got[0], "more bytes)")
	require.Equal(t, "errs.lua:6: (error object is a table value)", got[1])
	require.Equal(t, "errs.lua:7: custom error", got[2])
	require.Equal(t, "errs.lua:8: line one\nline two", got[3])
}

// A runaway callback costs its budget each time it runs: after
// MaxOverruns of them the agent is suspended and reported; Resume lets it
// tick again.
func TestRunawayAgentIsSuspended(t *testing.T) {
	var errs []*host.ScriptError
	h, err := host.New(host.Options{Budget: 20 * time.Millisecond, ReportAllErrors: true,
		OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("spin.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function() while true do end end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	for i := 0; i < 6; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	require.True(t, a.Suspended())
	require.Equal(t, 3, a.Ticks())
	require.Len(t, errs, 4)
	require.ErrorIs(t, errs[2], scripterr.ErrBudget)
	require.ErrorIs(t, errs[3], host.ErrOverruns)
	require.Contains(t, errs[3].Error(), "suspended after 3 callbacks ran past their time budget (Agent.Unsuspend, or a reload that changes that line, lets it tick again)")
	require.Equal(t, host.SuspendedByOverruns, errs[3].Suspension)
	require.Equal(t, host.NotSuspended, errs[2].Suspension)
	require.NotContains(t, errs[3].Message(), "tick again", "the remedy is a field, not text to cut")
	a.Unsuspend()
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, 4, a.Ticks())
	require.False(t, a.Suspended())
}

// The instruction budget stops a runaway at the same instruction every
// time, whatever the machine's load: the partial work it leaves is equal.
func TestBudgetStepsIsDeterministic(t *testing.T) {
	run := func() (float64, *host.ScriptError) {
		var errs []*host.ScriptError
		h, err := host.New(host.Options{Budget: -1, BudgetSteps: 100000, MaxOverruns: -1,
			OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
		require.NoError(t, err)
		defer h.Close()
		b, err := h.LoadString("count.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx) while true do ctx.n = ctx.n + 1; local s = ("ab"):rep(3):find("b.-a") end end } } }`)
		require.NoError(t, err)
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		require.NoError(t, h.Tick(0.1))
		n, _ := a.Number("n")
		require.Len(t, errs, 1)
		return n, errs[0]
	}
	n1, e1 := run()
	n2, _ := run()
	require.Equal(t, n1, n2)
	require.Greater(t, n1, 100.0)
	require.ErrorIs(t, e1, scripterr.ErrBudget)
	require.Equal(t, "count.lua", e1.Script)
	require.Equal(t, 3, e1.Line)
	require.Contains(t, e1.Msg, "callback ran past its 100000-instruction budget")
}

// One hog among a thousand calm agents: only the hog is suspended, and its
// bytes, once it is suspended, do not get the calm agents suspended in the
// following checks. Every suspension reaches OnError, however throttled the
// other errors are.
func TestMemoryHogDoesNotSuspendTheInnocent(t *testing.T) {
	var errs []*host.ScriptError
	h, err := host.New(host.Options{Workers: 2, MemoryLimit: 16 << 20, Budget: -1,
		OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
	require.NoError(t, err)
	defer h.Close()
	hog, err := h.LoadString("hog.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { t = {} }, states = { s = {
  update = function(ctx) ctx.t[#ctx.t + 1] = ("x"):rep(262144) .. #ctx.t end } } }`)
	require.NoError(t, err)
	calm, err := h.LoadString("calm.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0, items = {} }, states = { s = {
  update = function(ctx) ctx.n = ctx.n + 1 ctx.items[ctx.n % 8 + 1] = { ctx.n } end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(hog, nil)
	require.NoError(t, err)
	var calms []*host.Agent
	for i := 0; i < 1000; i++ {
		c, err := h.Spawn(calm, nil)
		require.NoError(t, err)
		calms = append(calms, c)
	}
	ticks := 0
	for ; ticks < 400 && !a.Suspended(); ticks++ {
		require.NoError(t, h.Tick(0.1))
	}
	require.True(t, a.Suspended(), "the hog was never stopped")
	require.Equal(t, host.SuspendedByMemory, a.SuspendReason())
	for range 30 { // the hog's bytes stay; nobody else pays for them
		require.NoError(t, h.Tick(0.1))
	}
	for _, c := range calms {
		require.False(t, c.Suspended(), "calm agent %d suspended", c.ID())
		require.Equal(t, ticks+30, c.Ticks())
	}
	suspensions := 0
	for _, e := range errs {
		require.Equal(t, a.ID(), e.Agent, "%v", e) // a hog's callback may be stopped too
		if e.Suspends {
			suspensions++
		}
	}
	require.Equal(t, 1, suspensions)
}

// Suspensions are never throttled: a hundred agents suspended by the same
// line are a hundred OnError calls, while the errors that do not suspend
// are reported 1st, 10th, 100th.
func TestSuspensionsAreAlwaysReported(t *testing.T) {
	var errs, suspends []*host.ScriptError
	h, err := host.New(host.Options{Faults: host.FaultSuspend,
		OnError: func(e *host.ScriptError) {
			errs = append(errs, e)
			if e.Suspends {
				suspends = append(suspends, e)
			}
		}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("bad.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) error("boom") end } } }`)
	require.NoError(t, err)
	for i := 0; i < 100; i++ {
		_, err := h.Spawn(b, nil)
		require.NoError(t, err)
	}
	require.NoError(t, h.Tick(0.1))
	require.Len(t, suspends, 100)
	require.Len(t, errs, 100)
	for i, e := range suspends {
		require.Equal(t, i+1, e.Count)
	}
	for _, a := range h.Agents() {
		require.Equal(t, host.SuspendedByFault, a.SuspendReason())
	}
}

// What a script holds outside contexts counts too: a hoard in a
// script-level local (an upvalue of its update) or in a global gets that
// script's agents suspended, and the calm script's agents go on.
func TestMemoryLimitCoversScriptData(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"upvalue", `local ai = require("luaai")
local hoard = {}
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) hoard[#hoard + 1] = ("x"):rep(262144) .. #hoard end } } }`},
		{"global", `local ai = require("luaai")
HOARD = {}
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) HOARD[#HOARD + 1] = ("x"):rep(262144) .. #HOARD end } } }`},
		{"module", `local ai = require("luaai")
local cache = require("cache")
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) cache.put(("x"):rep(262144) .. ctx.n) ctx.n = (ctx.n or 0) + 1 end } } }`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cache.lua"), []byte(`local M = {} local items = {}
function M.put(v) items[#items + 1] = v end
return M`), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "hoard.lua"), []byte(tc.src), 0o644))
			var errs []*host.ScriptError
			h, err := host.New(host.Options{MemoryLimit: 16 << 20, Budget: -1,
				OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
			require.NoError(t, err)
			defer h.Close()
			hoard, err := h.LoadFile(filepath.Join(dir, "hoard.lua"))
			require.NoError(t, err)
			calm, err := h.LoadString("calm.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx) ctx.n = ctx.n + 1 end } } }`)
			require.NoError(t, err)
			hogs := []*host.Agent{}
			for range 2 {
				a, err := h.Spawn(hoard, map[string]any{"n": 0})
				require.NoError(t, err)
				hogs = append(hogs, a)
			}
			c, err := h.Spawn(calm, nil)
			require.NoError(t, err)
			for i := 0; i < 400 && !(hogs[0].Suspended() && hogs[1].Suspended()); i++ {
				require.NoError(t, h.Tick(0.1))
			}
			for _, a := range hogs {
				require.True(t, a.Suspended(), "agent %d of the hoarding script was never stopped", a.ID())
				require.Equal(t, host.SuspendedByMemory, a.SuspendReason())
			}
			require.False(t, c.Suspended())
			var suspensions []*host.ScriptError
			for _, e := range errs {
				if e.Suspends {
					suspensions = append(suspensions, e)
				}
			}
			require.NotEmpty(t, suspensions)
			require.Contains(t, suspensions[0].Msg, "the script's own data (globals, upvalues, modules) holds about")
		})
	}
}
