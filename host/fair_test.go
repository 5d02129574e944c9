package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

var errFrameDeadline = errors.New("frame deadline")

// A frame deadline is fair across the workers: the last worker's agents
// call a slow Go function (the deadline ends every frame after it has
// ticked a handful of them), while the other workers tick at full speed.
// After 60 cut frames every agent has been ticked as often as every other,
// give or take one, and a whole tick then pays each the time it missed.
func TestDeadlineFairAcrossWorkers(t *testing.T) {
	for _, tc := range []struct {
		workers, agents, slowPerFrame int
	}{
		{workers: 2, agents: 512, slowPerFrame: 5},
		{workers: 3, agents: 600, slowPerFrame: 4},
		{workers: 2, agents: 300, slowPerFrame: 40},
		{workers: 1, agents: 300, slowPerFrame: 7},
	} {
		t.Run(fmt.Sprintf("workers=%d,agents=%d", tc.workers, tc.agents), func(t *testing.T) {
			var cancel context.CancelCauseFunc
			var slowCalls atomic.Int64
			slowWorker := tc.workers - 1
			work := func(a *Agent) {
				if a.w.index != slowWorker {
					return
				}
				// The starved worker: the deadline comes after a few of
				// its agents, whatever the other workers did meanwhile.
				if slowCalls.Add(1) == int64(tc.slowPerFrame) {
					cancel(errFrameDeadline)
				}
			}
			h, err := New(Options{Workers: tc.workers, Funcs: map[string]map[string]any{"game": {"work": work}}})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("unit.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) game.work() end } } }`)
			require.NoError(t, err)
			for range tc.agents {
				_, err := h.Spawn(b, nil)
				require.NoError(t, err)
			}
			for frame := range 60 {
				var ctx context.Context
				ctx, cancel = context.WithCancelCause(context.Background())
				slowCalls.Store(0)
				err := h.TickContext(ctx, 0.1)
				cancel(nil)
				require.ErrorIs(t, err, errFrameDeadline, "frame %d", frame)
			}
			ticks := tickCounts(h)
			lo, hi := slices.Min(ticks), slices.Max(ticks)
			require.LessOrEqual(t, hi-lo, 1, "ticks per agent after 60 cut frames: %d..%d", lo, hi)
			require.Positive(t, lo, "every agent ticked")

			require.NoError(t, h.Tick(0.1)) // a whole tick: everyone once, with what it missed
			for i, a := range h.Agents() {
				require.Equal(t, ticks[i]+1, a.Ticks(), "agent %d", a.ID())
				require.InDelta(t, 6.1, a.Clock(), 1e-6, "agent %d", a.ID())
			}
			// Cut again: the order after the whole tick is still the fair one.
			for frame := range 20 {
				var ctx context.Context
				ctx, cancel = context.WithCancelCause(context.Background())
				slowCalls.Store(0)
				err := h.TickContext(ctx, 0.1)
				cancel(nil)
				require.ErrorIs(t, err, errFrameDeadline, "frame %d", frame)
			}
			ticks = tickCounts(h)
			lo, hi = slices.Min(ticks), slices.Max(ticks)
			require.LessOrEqual(t, hi-lo, 1, "ticks per agent after 20 more cut frames: %d..%d", lo, hi)
		})
	}
}

// Without cuts the host leaves the fair order: once every agent has been
// ticked as often as every other, ticks go in plain id order again.
func TestDeadlineFairEnds(t *testing.T) {
	var cancel context.CancelCauseFunc
	var calls atomic.Int64
	h, err := New(Options{Funcs: map[string]map[string]any{"game": {"work": func() {
		if calls.Add(1) == 150 {
			cancel(errFrameDeadline)
		}
	}}}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("unit.lua", `local ai = require("luaai")
local game = require("game")
return ai.fsm { initial = "s", states = { s = { update = function() game.work() end } } }`)
	require.NoError(t, err)
	for range 200 {
		_, err := h.Spawn(b, nil)
		require.NoError(t, err)
	}
	cut := func() {
		var ctx context.Context
		ctx, cancel = context.WithCancelCause(context.Background())
		calls.Store(0)
		require.ErrorIs(t, h.TickContext(ctx, 0.1), errFrameDeadline)
		cancel(nil)
	}
	cut()
	require.True(t, h.fair)
	require.NoError(t, h.Tick(0.1))
	require.True(t, h.fair, "some agents are still a tick behind")
	for !slices.Equal(tickCounts(h), slices.Repeat([]int{tickCounts(h)[0]}, 200)) {
		cut() // a cut that lands where the last one did evens them out
		require.Less(t, h.TickNumber(), 40)
	}
	require.False(t, h.fair)
	for _, a := range h.Agents() {
		require.Zero(t, a.lag)
	}
}

func tickCounts(h *Host) []int {
	var out []int
	for _, a := range h.Agents() {
		out = append(out, a.Ticks())
	}
	return out
}
