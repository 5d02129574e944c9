package host_test

import (
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

const writeRule = `local ai = require("luaai")
return ai.fsm { initial = "s",
  context = { hp = 3, name = "wolf", player_visible = false, alert = true, target = false,
              squad = {}, gear = { ammo = 5, kind = "rifle", bag = {} }, path = { 1, 2 } },
  states = { s = {} } }`

// One rule for every write from outside the scripts.
func TestCheckWrite(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("rule.lua", writeRule)
	require.NoError(t, err)
	for _, tc := range []struct {
		path  []string
		value any
		err   error
		msg   string
	}{
		{[]string{"hp"}, 7.0, nil, ""},
		{[]string{"hp"}, 7, nil, ""}, // any Go number
		{[]string{"hp"}, "lots", host.ErrValueType, `the default is a number, got the string "lots"`},
		{[]string{"hpp"}, 1.0, host.ErrUnknownKey, `"hpp" is not a key of the context (did you mean "hp"?)`},
		{[]string{"nothing_like_it"}, 1.0, host.ErrUnknownKey, `"nothing_like_it" is not a key of the context`},
		{[]string{"alert"}, 1.0, host.ErrValueType, `the default is a boolean, got the number 1`},
		{[]string{"player_visible"}, 1.0, nil, ""}, // false: "none yet", any value
		{[]string{"target"}, map[string]any{"x": 1.0}, nil, ""},
		{[]string{"squad"}, []any{3.0, 5.0}, nil, ""}, // {}: any value
		{[]string{"squad", "leader"}, 1.0, nil, ""},   // below {}: anything
		{[]string{"gear", "ammo"}, 9.0, nil, ""},
		{[]string{"gear", "ammo"}, true, host.ErrValueType, `the default is a number, got the boolean true`},
		{[]string{"gear", "amo"}, 9.0, host.ErrUnknownKey, `"gear.amo" is not a key of the context (did you mean "gear.ammo"?)`},
		{[]string{"gear", "bag", "x"}, "anything", nil, ""},
		{[]string{"hp", "x"}, 1.0, host.ErrBadPath, `"hp" is a number, not a table`},
		{[]string{"name"}, 3.0, host.ErrValueType, `the default is a string, got the number 3`},
		{[]string{"name"}, nil, host.ErrValueType, `the default is a string, got nil`},
		{[]string{"path"}, []any{}, nil, ""},
		{nil, 1.0, host.ErrUnknownKey, `no key given`},
	} {
		err := b.CheckWrite(tc.path, tc.value)
		if tc.err == nil {
			require.NoError(t, err, "%v = %v", tc.path, tc.value)
			continue
		}
		require.ErrorIs(t, err, tc.err, "%v = %v", tc.path, tc.value)
		require.EqualError(t, err, tc.msg)
	}
}

// ai.spawn's overrides follow the rule: a refused one is a Lua error at
// the call, naming the key.
func TestSpawnOverridesFollowTheRule(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("spawner.lua", `local ai = require("luaai")
local child = ai.fsm { initial = "s", context = { hp = 3, seen = false }, states = { s = {} } }
return ai.fsm { initial = "s", context = { out = "" }, states = { s = { enter = function(ctx)
  local c = ai.spawn(child, { hp = 5, seen = "yes" })
  ctx.out = c.ctx.hp .. " " .. c.ctx.seen
  local ok, err = pcall(ai.spawn, child, { hpp = 1 })
  ctx.out = ctx.out .. " | " .. tostring(ok) .. " " .. tostring(err)
  ok, err = pcall(ai.spawn, child, { hp = "lots" })
  ctx.out = ctx.out .. " | " .. tostring(ok) .. " " .. tostring(err)
end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	out, _ := a.Text("out")
	require.Equal(t, `5 yes`+
		` | false spawner.lua:6: ai.spawn: override hpp: "hpp" is not a key of the context (did you mean "hp"?)`+
		` | false spawner.lua:8: ai.spawn: override hp: the default is a number, got the string "lots"`, out)
}
