package host_test

import (
	"fmt"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

type mover struct {
	X      float64 `lua:"x"`
	VX     float64 `lua:"vx"`
	HP     int32   `lua:"hp"`
	Alive  bool    `lua:"alive"`
	Name   string  `lua:"name"`
	Team   uint8   `lua:"team,readonly"`
	Secret float64 // untagged: not copied
	Ptr    *int    `lua:"ptr"` // not a copied kind
}

const moverScript = `local ai = require("luaai")
return ai.fsm { initial = "move", states = { move = {
  update = function(ctx, dt)
    local me = ctx.me
    me.x = me.x + me.vx * dt
    me.hp = me.hp - 1.7
    if me.hp < 8 then me.alive = false end
    me.name = me.name .. "!"
    me.team = 99
    ctx.seen_secret = me.Secret
    ctx.seen_ptr = me.ptr
  end } } }`

func TestSync(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		t.Run(fmt.Sprint(workers, " workers"), func(t *testing.T) {
			h, err := host.New(host.Options{Workers: workers})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString("mover.lua", moverScript)
			require.NoError(t, err)
			movers := make([]*mover, 200)
			for i := range movers {
				movers[i] = &mover{X: float64(i), VX: 10, HP: 10, Alive: true, Name: "m", Team: 3, Secret: 7}
				a, err := h.Spawn(b, nil)
				require.NoError(t, err)
				require.NoError(t, a.Sync("me", movers[i]))
			}
			require.NoError(t, h.Tick(0.5))
			m := movers[5]
			require.Equal(t, 10.0, m.X)
			require.Equal(t, int32(8), m.HP, "10 - 1.7 truncated toward zero")
			require.True(t, m.Alive)
			require.Equal(t, "m!", m.Name)
			require.Equal(t, uint8(3), m.Team, "readonly is not copied back")

			// The game changes the struct between ticks; the script sees it.
			m.VX = -2
			m.Team = 4
			require.NoError(t, h.Tick(0.5))
			require.Equal(t, 9.0, m.X)
			require.Equal(t, int32(6), m.HP)
			require.False(t, m.Alive)
			require.Equal(t, "m!!", m.Name)
			a := h.Agents()[5]
			require.Equal(t, map[string]any{"x": 9.0, "vx": -2.0, "hp": 6.3, "alive": false, "name": "m!!", "team": 99.0}, a.Get("me"))
			require.Nil(t, a.Get("seen_secret"), "untagged fields are not in Lua")
			require.Nil(t, a.Get("seen_ptr"))
		})
	}
}

func TestSyncRefusals(t *testing.T) {
	h, err := host.New(host.Options{Workers: 2})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("mover.lua", moverScript)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	other, err := h.Spawn(b, nil)
	require.NoError(t, err)
	for _, bad := range []any{mover{}, (*mover)(nil), 3, &struct{ X int }{}, nil} {
		require.ErrorIs(t, a.Sync("me", bad), host.ErrNotSyncable, "%T", bad)
	}
	m := &mover{}
	require.NoError(t, a.Sync("me", m))
	require.ErrorIs(t, other.Sync("me", m), host.ErrNotShared, "one struct, one agent, with several workers")

	// A script storing another type leaves the field alone.
	b2, err := h.LoadString("odd.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function(ctx)
  ctx.me.x = "far" ctx.me.alive = 1 ctx.me.name = nil end } } }`)
	require.NoError(t, err)
	c, err := h.Spawn(b2, nil)
	require.NoError(t, err)
	m2 := &mover{X: 5, Alive: true, Name: "keep"}
	require.NoError(t, c.Sync("me", m2))
	require.NoError(t, c.Tick(0.1))
	require.Equal(t, &mover{X: 5, Alive: true, Name: "keep"}, m2)
	c.Unsync("me")
	m2.X = 6
	require.NoError(t, c.Tick(0.1))
	require.Equal(t, "far", c.Get("me").(map[string]any)["x"], "unsynced: the table is plain data")
}

// A readonly field a script changed is the game's again at the next tick.
func TestSyncReadonlyRestored(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("ro.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { seen = {} }, states = { s = { update = function(ctx)
  ctx.seen[#ctx.seen + 1] = ctx.me.team
  ctx.me.team = 99
end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	m := &mover{Team: 3}
	require.NoError(t, a.Sync("me", m))
	for range 3 {
		require.NoError(t, h.Tick(0.1))
	}
	require.Equal(t, []any{3.0, 3.0, 3.0}, a.Get("seen"))
	require.Equal(t, uint8(3), m.Team)
}

// A synced table a script grows (its string map past one group of eight
// keys, then back to one key of the struct) is still copied both ways.
func TestSyncGrownTable(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("grow.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function(ctx)
  local me = ctx.me
  me.x = me.x + me.vx
  ctx.n = (ctx.n or 0) + 1
  if ctx.n == 2 then for i = 1, 40 do me["extra" .. i] = i end end
  if ctx.n == 4 then for i = 1, 40 do me["extra" .. i] = nil end end
end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	m := &mover{X: 1, VX: 1, HP: 5, Name: "m"}
	require.NoError(t, a.Sync("me", m))
	for tick := 1; tick <= 6; tick++ {
		m.VX = float64(tick)
		require.NoError(t, h.Tick(0.1))
		require.Equal(t, 1+float64(tick*(tick+1)/2), m.X, "tick %d", tick)
	}
	require.Equal(t, int32(5), m.HP)
	require.Equal(t, "m", m.Name)
}
