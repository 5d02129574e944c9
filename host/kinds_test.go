package host_test

import (
	"fmt"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// finderSrc records, at its first tick, what ai.agents(ctx.what) returns
// (or the error), and sends "alarm" to each agent found.
const finderSrc = `local ai = require("luaai")
return ai.fsm { initial = "look", context = { what = "", found = "", heard = 0 }, states = {
  look = {
    update = function(ctx)
      if ctx.found ~= "" then return end
      local arg = ctx.what
      if arg == "(none)" then arg = nil elseif arg == "(number)" then arg = 3 end
      local ok, ids = pcall(ai.agents, arg)
      if not ok then ctx.found = "error: " .. ids return end
      ctx.found = table.concat(ids, ",")
      for _, id in ipairs(ids) do ai.send_to(id, "alarm") end
    end,
    transitions = { { on = "alarm", run = function(ctx) ctx.heard = ctx.heard + 1 end } },
  },
} }`

// ai.agents finds agents by the kind the game gave, by default the
// script's name, or by script, in id order, whatever the workers.
func TestAgentsByKindAndScript(t *testing.T) {
	for _, tc := range []struct {
		what  string
		found string
		heard []int // per agent (ids 1 to 5), the alarms heard
	}{
		{"(none)", "1,2,3,4,5", []int{1, 1, 1, 1, 1}},
		{"villager", "1,3,5", []int{1, 0, 1, 0, 1}},
		{"mods/villager.lua", "1,3,5", []int{1, 0, 1, 0, 1}},
		{"villager.lua", "1,3,5", []int{1, 0, 1, 0, 1}},
		{"captain", "2", []int{0, 1, 0, 0, 0}},
		{"guard", "4", []int{0, 0, 0, 1, 0}},          // the other guard keeps the script's name
		{"guard.lua", "2,4", []int{0, 1, 0, 1, 0}},    // by script, whatever the kind
		{"lager.lua", "", []int{0, 0, 0, 0, 0}},       // a whole file name, not a suffix
		{"nobody", "", []int{0, 0, 0, 0, 0}},          //
		{"(number)", "error: ", []int{0, 0, 0, 0, 0}}, // a kind is a string
	} {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d workers", tc.what, workers), func(t *testing.T) {
				h, err := host.New(host.Options{Workers: workers})
				require.NoError(t, err)
				defer h.Close()
				villager, err := h.LoadString("mods/villager.lua", finderSrc)
				require.NoError(t, err)
				guard, err := h.LoadString("mods/guard.lua", finderSrc)
				require.NoError(t, err)
				var agents []*host.Agent
				for i, spawn := range []struct {
					b    *host.Behaviour
					kind string
				}{{villager, ""}, {guard, "captain"}, {villager, ""}, {guard, ""}, {villager, ""}} {
					a, err := h.SpawnWith(spawn.b, host.SpawnOptions{Kind: spawn.kind, Overrides: map[string]any{"what": "nothing"}})
					require.NoError(t, err)
					require.Equal(t, i+1, a.ID())
					agents = append(agents, a)
				}
				// Agent 1 looks; the others look for nothing.
				require.NoError(t, agents[0].Set("what", tc.what))
				require.NoError(t, h.Tick(0.1))
				require.NoError(t, h.Tick(0.1))
				found := agents[0].Get("found").(string)
				if tc.found == "error: " {
					require.Contains(t, found, "a kind or a script name (a string) expected, got a number")
				} else {
					require.Equal(t, tc.found, found)
				}
				for i, a := range agents {
					require.Equal(t, float64(tc.heard[i]), a.Get("heard"), "agent %d", i+1)
				}
				require.Equal(t, []string{"villager", "captain", "villager", "guard", "villager"}, kinds(agents))
				require.Len(t, h.AgentsOf("villager"), 3)
			})
		}
	}
}

func kinds(agents []*host.Agent) []string {
	var out []string
	for _, a := range agents {
		out = append(out, a.Kind())
	}
	return out
}

// A snapshot keeps the kind the game gave.
func TestAgentKindSaved(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("guard.lua", finderSrc)
	require.NoError(t, err)
	_, err = h.SpawnWith(b, host.SpawnOptions{Kind: "captain"})
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	data, err := h.Snapshot()
	require.NoError(t, err)

	h2, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h2.Close()
	b2, err := h2.LoadString("guard.lua", finderSrc)
	require.NoError(t, err)
	agents, err := h2.Restore(data, b2)
	require.NoError(t, err)
	require.Equal(t, []string{"captain", "guard"}, kinds(agents))
}
