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

// A cancelled TickContext stops the callback in flight on every worker,
// skips the agents not yet ticked and returns the cause; the next tick
// runs normally.
func TestTickContextCancel(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			var errs []*host.ScriptError
			h, err := host.New(host.Options{Workers: workers, Budget: time.Minute,
				OnError: func(e *host.ScriptError) { errs = append(errs, e) }, ReportAllErrors: true})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("spin.lua", spinner)
			require.NoError(t, err)
			var agents []*host.Agent
			for i := range 300 {
				a, err := h.Spawn(b, map[string]any{"spin": i%64 == 10})
				require.NoError(t, err)
				agents = append(agents, a)
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(30*time.Millisecond, cancel)
			start := time.Now()
			err = h.TickContext(ctx, 0.1)
			require.Less(t, time.Since(start), 20*time.Second, "stopped long before the budget")
			require.ErrorIs(t, err, context.Canceled)
			require.NotEmpty(t, errs)
			for _, e := range errs {
				require.ErrorIs(t, e, context.Canceled)
				require.Equal(t, "spin.lua", e.Script)
				require.Equal(t, 5, e.Line)
			}
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
