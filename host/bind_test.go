package host_test

import (
	"sync"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// Counter is a game object scripts call; it is not safe for concurrent use
// unless mu is used.
type Counter struct {
	N    int
	mu   sync.Mutex
	safe bool
}

// Add counts one call.
func (c *Counter) Add() {
	if c.safe {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	c.N++
}

const counting = `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function(ctx) ctx.world:Add() end } } }`

// The zero Options run one worker: one Go value bound to every agent is
// called from the goroutine calling Tick, and no update is lost (-race).
func TestDefaultWorkersAreSafe(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	require.Equal(t, 1, h.Workers())
	b, err := h.LoadString("count.lua", counting)
	require.NoError(t, err)
	world := &Counter{}
	for i := 0; i < 200; i++ {
		_, err := h.Spawn(b, map[string]any{"world": world})
		require.NoError(t, err)
	}
	for i := 0; i < 10; i++ {
		require.NoError(t, h.Tick(0.1))
	}
	require.Equal(t, 2000, world.N)
}

// With several workers, one value bound to two agents is refused unless
// the game marks it Shared; per-agent values are fine, and a value is free
// again once its agent is removed.
func TestSeveralWorkersRefuseUnsharedValues(t *testing.T) {
	for _, workers := range []int{2, 4} {
		h, err := host.New(host.Options{Workers: workers})
		require.NoError(t, err)
		b, err := h.LoadString("count.lua", counting)
		require.NoError(t, err)
		world := &Counter{}
		a1, err := h.Spawn(b, map[string]any{"world": world})
		require.NoError(t, err)
		_, err = h.Spawn(b, map[string]any{"world": world})
		require.ErrorIs(t, err, host.ErrNotShared)
		a2, err := h.Spawn(b, map[string]any{"world": &Counter{}})
		require.NoError(t, err)
		require.ErrorIs(t, a2.Bind("world", world), host.ErrNotShared)
		require.ErrorIs(t, a2.Set("world", world), host.ErrNotShared)
		require.NoError(t, a1.Bind("world", world), "the same agent may bind it again")
		require.NoError(t, h.Remove(a1))
		require.NoError(t, a2.Bind("world", world), "free once its agent is gone")

		shared := &Counter{safe: true}
		for _, a := range h.Agents() {
			require.NoError(t, a.Bind("world", host.Shared(shared)))
		}
		for i := 0; i < 130; i++ {
			_, err := h.Spawn(b, map[string]any{"world": host.Shared(shared)})
			require.NoError(t, err)
		}
		for i := 0; i < 10; i++ {
			require.NoError(t, h.Tick(0.1))
		}
		require.Equal(t, 10*len(h.Agents()), shared.N)
		h.Close()
	}
}
