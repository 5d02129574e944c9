package host_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

const spinner = `local ai = require("luaai")
return ai.fsm { initial = "s", context = { spin = false, n = 0 }, states = { s = {
  update = function(ctx)
    ctx.n = ctx.n + 1
    while ctx.spin do end
  end } } }`

// cancelSpinner is spinner telling the test (signal.spinning) that it is
// about to spin, so that the test cancels while a callback is in flight.
const cancelSpinner = `local ai = require("luaai")
local signal = require("signal")
return ai.fsm { initial = "s", context = { spin = false, n = 0 }, states = { s = {
  update = function(ctx)
    ctx.n = ctx.n + 1
    if ctx.spin then signal.spinning() end
    while ctx.spin do end
  end } } }`

// A cancelled TickContext stops the callback in flight on every worker,
// skips the agents not yet ticked and returns the cause; the next tick
// runs normally. The cancel comes when the first spinner starts to spin:
// that callback is stopped after its signal (on its line or in the loop),
// and any other worker's callback in flight then wherever it is.
func TestTickContextCancel(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			var errs []*host.ScriptError
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			h, err := host.New(host.Options{Workers: workers, Budget: time.Minute,
				OnError: func(e *host.ScriptError) { errs = append(errs, e) }, ReportAllErrors: true,
				Funcs: map[string]map[string]any{"signal": {"spinning": func() { cancel() }}}})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("spin.lua", cancelSpinner)
			require.NoError(t, err)
			var agents []*host.Agent
			for i := range 300 {
				a, err := h.Spawn(b, map[string]any{"spin": i%64 == 10})
				require.NoError(t, err)
				agents = append(agents, a)
			}
			err = h.TickContext(ctx, 0.1)
			require.ErrorIs(t, err, context.Canceled)
			require.NotEmpty(t, errs)
			inLoop := 0
			for _, e := range errs {
				require.ErrorIs(t, e, context.Canceled)
				require.Equal(t, "spin.lua", e.Script)
				require.Contains(t, []int{5, 6, 7}, e.Line, "a line of the update")
				if e.Line >= 6 {
					inLoop++
				}
			}
			require.NotZero(t, inLoop, "the spinner is stopped after its signal, at it or in its loop")
			ticked := 0
			for _, a := range agents {
				if n, _ := a.Number("n"); n == 1 {
					ticked++
				}
			}
			require.Less(t, ticked, len(agents), "agents after the stop wait for the next tick")

			for _, a := range agents {
				require.NoError(t, a.Set("spin", false))
			}
			errs = nil
			require.NoError(t, h.TickContext(context.Background(), 0.1))
			require.Empty(t, errs)
		})
	}
}

// A deadline stops a load or a reload that runs too long; the old
// behaviour keeps running.
func TestLoadAndReloadContext(t *testing.T) {
	h, err := host.New(host.Options{Budget: time.Minute, LoadBudget: time.Minute, Workers: 2})
	require.NoError(t, err)
	defer h.Close()
	slow := `while true do end`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err = h.LoadStringContext(ctx, "slow.lua", slow)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Contains(t, err.Error(), "slow.lua:1: script load stopped: context deadline exceeded")

	b, err := h.LoadStringContext(context.Background(), "spin.lua", spinner)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	err = b.ReloadSourceContext(ctx2, slow)
	require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
	require.NoError(t, h.Tick(0.1))
	n, _ := a.Number("n")
	require.Equal(t, 1.0, n, "the old version runs")
}
