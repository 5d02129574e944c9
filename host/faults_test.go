package host_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

const failing = `local ai = require("luaai")
return ai.fsm {
  initial = "a",
  context = { n = 0 },
  states = { a = { update = function(ctx) ctx.n = ctx.n + 1; if ctx.bad then error("broken") end end } },
}`

func TestFaultPolicy(t *testing.T) {
	for _, policy := range []host.FaultPolicy{host.FaultContinue, host.FaultSuspend} {
		h, err := host.New(host.Options{Faults: policy})
		require.NoError(t, err)
		b, err := h.LoadString("f.lua", failing)
		require.NoError(t, err)
		bad, _ := h.Spawn(b, map[string]any{"bad": true})
		good, _ := h.Spawn(b, nil)
		for i := 0; i < 3; i++ {
			require.NoError(t, h.Tick(0.1))
		}
		n, _ := bad.Number("n")
		g, _ := good.Number("n")
		require.Equal(t, 3.0, g, "other agents go on")
		if policy == host.FaultContinue {
			require.Equal(t, 3.0, n)
			require.False(t, bad.Suspended())
		} else {
			require.Equal(t, 1.0, n, "suspended after the tick that failed")
			require.True(t, bad.Suspended())
			require.ErrorIs(t, bad.Tick(0.1), host.ErrSuspended)
			bad.Set("bad", false)
			bad.Unsuspend()
			require.NoError(t, h.Tick(0.1))
			n, _ = bad.Number("n")
			require.Equal(t, 2.0, n)
		}
		h.Close()
	}
}

func TestErrorFloodIsCounted(t *testing.T) {
	var got []*host.ScriptError
	h, err := host.New(host.Options{OnError: func(e *host.ScriptError) { got = append(got, e) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("f.lua", failing)
	require.NoError(t, err)
	for i := 0; i < 100; i++ {
		_, _ = h.Spawn(b, map[string]any{"bad": true})
	}
	for i := 0; i < 10; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	// 1000 failures of one line: reported at the 1st, 10th, 100th and 1000th.
	require.Len(t, got, 4)
	require.Equal(t, []int{1, 10, 100, 1000}, []int{got[0].Count, got[1].Count, got[2].Count, got[3].Count})
	require.Contains(t, got[3].Error(), "failed 1000 times")
	require.Equal(t, map[string]int{"f.lua:5 update": 1000}, h.ErrorCounts())
	require.Len(t, h.Agents()[0].TakeErrors(), 10, "each agent still keeps its own errors")
}

func TestScriptErrorShape(t *testing.T) {
	var got *host.ScriptError
	h, err := host.New(host.Options{OnError: func(e *host.ScriptError) { got = e }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("f.lua", failing)
	require.NoError(t, err)
	a, _ := h.Spawn(b, map[string]any{"bad": true})
	require.NoError(t, a.Tick(0.1))
	require.NotNil(t, got)
	require.Equal(t, "f.lua", got.Script)
	require.Equal(t, 5, got.Line)
	require.Equal(t, 1, got.Agent)
	require.Equal(t, 1, got.Tick)
	require.Equal(t, "a", got.State)
	require.Equal(t, host.CallbackUpdate, got.Callback)
	require.Equal(t, "broken", got.Msg)
	require.Contains(t, got.Traceback, "stack traceback")
	var api *lua.ApiError
	require.True(t, errors.As(got, &api))
	require.Equal(t, "f.lua:5: broken (agent 1, state a, update)", got.Error())
}

func TestRunawayCallbackIsStopped(t *testing.T) {
	var got []*host.ScriptError
	h, err := host.New(host.Options{Budget: 20 * time.Millisecond, OnError: func(e *host.ScriptError) { got = append(got, e) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("loop.lua", `local ai = require("luaai")
local function f() return f() + 1 end
return ai.fsm {
  initial = "a",
  context = { n = 0 },
  states = {
    a = {
      update = function(ctx) ctx.n = ctx.n + 1; if ctx.spin then while true do end end end,
      transitions = { { to = "b", when = function(ctx) if ctx.deep then return f() end return false end } },
    },
    b = {},
  },
}`)
	require.NoError(t, err)
	spin, _ := h.Spawn(b, map[string]any{"spin": true})
	deep, _ := h.Spawn(b, map[string]any{"deep": true})
	fine, _ := h.Spawn(b, nil)
	start := time.Now()
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, h.Tick(0.1))
	require.Less(t, time.Since(start), 30*time.Second, "stopped, not hung")
	for _, a := range []*host.Agent{spin, deep, fine} {
		n, _ := a.Number("n")
		require.Equal(t, 2.0, n, "agent %d goes on", a.ID())
	}
	require.Len(t, got, 2)
	byCallback := map[host.Callback]*host.ScriptError{}
	for _, e := range got {
		byCallback[e.Callback] = e
	}
	require.ErrorIs(t, byCallback["update"], scripterr.ErrBudget)
	require.Equal(t, "loop.lua", byCallback["update"].Script)
	require.Equal(t, 8, byCallback["update"].Line)
	require.Equal(t, "a", byCallback["update"].State)
	require.Contains(t, byCallback["when"].Error(), "loop.lua:2:")
}

// An operation on nil that read ctx.X names the field, with the key it
// probably meant.
func TestNilFieldHint(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "alert.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm { initial = "a", context = { alertness = 0 }, states = { a = { update = function(ctx, dt)
  ctx.alertness = ctx.alertnes + dt
end } } }`), 0o644))
	var errs []*host.ScriptError
	h, err := host.New(host.Options{Workers: 2, ReportAllErrors: true, OnError: func(e *host.ScriptError) { errs = append(errs, e) }})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadFile(script)
	require.NoError(t, err)
	for range 4 {
		_, err := h.Spawn(b, nil)
		require.NoError(t, err)
	}
	require.NoError(t, h.Tick(0.1))
	require.Len(t, errs, 4)
	for _, e := range errs {
		require.Equal(t, "cannot perform add operation between nil and number (ctx.alertnes is nil; did you mean ctx.alertness?)", e.Msg)
	}
}

// The field a line assigns is not the nil it read: the hint names the
// nil on the right-hand side.
func TestNilFieldHintSkipsTheAssignedField(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	dir := t.TempDir()
	script := filepath.Join(dir, "vent.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm { initial = "a", context = { heat = 2 }, states = { a = { update = function(ctx)
  ctx.vent_rate = ctx.heat * ctx.pressure
end } } }`), 0o644))
	b, err := h.LoadFile(script)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, a.Tick(0.1))
	errs := a.TakeErrors()
	require.Len(t, errs, 1)
	require.Equal(t, "cannot perform mul operation between number and nil (ctx.pressure is nil)", errs[0].Msg)
}

// Each reason for a suspension says what lets the agent tick again.
func TestSuspendReasonRemedy(t *testing.T) {
	for _, tc := range []struct {
		r    host.SuspendReason
		want string
	}{
		{host.NotSuspended, ""},
		{host.SuspendedByFault, "Agent.Unsuspend, or a reload that changes that line, lets it tick again"},
		{host.SuspendedByOverruns, "Agent.Unsuspend, or a reload that changes that line, lets it tick again"},
		{host.SuspendedByMemory, "Agent.Unsuspend lets it tick again"},
		{host.SuspendedByHost, "Agent.Unsuspend lets it tick again"},
	} {
		require.Equal(t, tc.want, tc.r.Remedy(), tc.r.String())
	}
}
