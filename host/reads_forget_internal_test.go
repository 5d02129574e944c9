package host

import (
	"testing"

	"github.com/luaai/luaai/luabind/defs"
	"github.com/stretchr/testify/require"
)

// An agent taken out of the host (Despawn, Remove, Export), or given a
// new context (Respawn), forgets what its utility machines remembered of its
// context's map: its records share a block with agents that go on, and
// the remembered reads' pointers would keep the map, and every value in
// it, alive as long as the block.
func TestTakenOutAgentForgetsReads(t *testing.T) {
	const src = `local ai = require("luaai")
return ai.utility { context = { a = 0.5, b = 0.25 }, states = {
  x = { score = function(ctx) return ctx.a * (1 - ctx.b) end },
  y = { score = ai.product(ai.field("b"), ai.inverse(ai.field("a"))) } } }`
	for _, tc := range []struct {
		name string
		out  func(h *Host, a *Agent) error
	}{
		{"despawn", func(h *Host, a *Agent) error { return h.Despawn(a) }},
		{"remove", func(h *Host, a *Agent) error { return h.Remove(a) }},
		{"export", func(h *Host, a *Agent) error { _, err := h.Export(a); return err }},
		{"respawn", func(h *Host, a *Agent) error { return a.Respawn(map[string]any{"a": 0.1, "b": 0.2}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := New(Options{Workers: 1})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("r.lua", src)
			require.NoError(t, err)
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			_, err = h.Spawn(b, nil) // shares a's block of records
			require.NoError(t, err)
			for range 3 {
				require.NoError(t, h.Tick(0.1))
			}
			r := a.ms[0].reads
			require.NotNil(t, r)
			_, g, _ := r.Hint()
			require.NotNil(t, g, "the root remembers where its fields are")
			require.NoError(t, tc.out(h, a))
			for i := range a.ms {
				if r := a.ms[i].reads; r != nil {
					require.Equal(t, defs.Reads{}, *r, "machine %d's reads", i)
				}
			}
		})
	}
}
