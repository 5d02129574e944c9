package host_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// attackUpdate churns a context under the scorers' fields: keys added and
// removed (the map grows past the size up to which decisions remember
// where fields are, and gets new slots), other keys taking the slots
// scored fields leave, scored fields set to nil, a
// table, a string, a boolean or a bound Go value (userdata), and the
// nested table t swapped or taken away.
const attackUpdate = `function(ctx)
  ctx.n = ctx.n + 1
  local n = ctx.n
  for i = 1, (n % 7) * 6 do ctx["k" .. i] = i end
  if n % 3 == 0 then for i = 1, 42 do ctx["k" .. i] = nil end end
  local m = n % 9
  if m == 0 then ctx.a = nil
  elseif m == 1 then ctx.a = {}
  elseif m == 2 then ctx.b = "x"
  elseif m == 3 then ctx.b = true
  elseif m == 4 then ctx.a = ctx.obj
  elseif m == 5 then ctx.t = nil
  elseif m == 6 then ctx.t = { x = (n * 0.13) % 1 }
  else ctx.a, ctx.b = (n * 0.37) % 1, (n * 0.61) % 1 end
  if n % 4 == 0 then ctx.a, ctx.b = (n * 0.21) % 1, (n * 0.47) % 1 end
  if n % 5 == 0 then ctx.c = (ctx.c + 0.31) % 1 end
  if n % 2 == 1 then
    -- another key takes the slot a field leaves, and the field another
    local a, b = ctx.a, ctx.b
    ctx.a, ctx.b = nil, nil
    ctx["s" .. n], ctx["r" .. n] = n, n
    ctx.b, ctx.a = a, b
    ctx["s" .. (n - 4)], ctx["r" .. (n - 2)] = nil, nil
  end
end`

// attackStates are four states scored by natives and by Lua over the
// churned fields (a nested path among them).
const attackStates = `
  x = { score = ai.product(ai.field("a"), ai.inverse(ai.field("b"))), update = churn },
  y = { score = function(ctx) return ctx.b * (1 - ctx.a) end, update = churn },
  z = { score = function(ctx) return ctx.c * (1 - ctx.t.x) end, update = churn },
  w = { score = ai.max(ai.field("t.x"), ai.field("c")), update = churn },`

const attackContext = `context = { a = 0.5, b = 0.25, c = 0.75, n = 0, t = { x = 0.3 } }`

// attackSources: the utility machine at the root, the same states in an
// fsm (no utility machine), and the utility machine under an fsm.
var attackSources = []string{
	`local ai = require("luaai")
local churn = ` + attackUpdate + `
return ai.utility { ` + attackContext + `, states = {` + attackStates + ` } }`,
	`local ai = require("luaai")
local churn = ` + attackUpdate + `
return ai.fsm { initial = "x", ` + attackContext + `, states = {
  x = { update = churn, transitions = { { to = "y", after = 0.2 } } },
  y = { update = churn, transitions = { { to = "z", after = 0.3 } } },
  z = { update = churn, transitions = { { to = "w", after = 0.1 } } },
  w = { update = churn, transitions = { { to = "x", after = 0.2 } } } } }`,
	`local ai = require("luaai")
local churn = ` + attackUpdate + `
return ai.fsm { initial = "u", ` + attackContext + `, states = {
  u = ai.utility { states = {` + attackStates + ` },
    transitions = { { to = "rest", after = 0.7 } } },
  rest = { update = churn, transitions = { { to = "u", after = 0.2 } } } } }`,
}

// attackMode is how decisions score: planned with remembered reads
// (compiled), planned with the natives only (compiling off), or not
// planned at all (decisions traced: every scorer is called).
type attackMode int

const (
	modeRemembered attackMode = iota
	modeCompiledOff
	modeTraced
)

// attackRun runs agents over the sources through reloads, saves and
// restores into a fresh host, despawns from a hook and spawns, and
// returns, by agent, what it did (transitions and errors).
func attackRun(t *testing.T, workers int, mode attackMode, reload, restore, despawn bool) map[int][]string {
	got := map[int][]string{}
	var h *host.Host
	var b *host.Behaviour
	tick := 0
	open := func() {
		opts := host.Options{Workers: workers, Budget: -1, ReportAllErrors: true,
			OnTransition: func(tr host.Transition) {
				got[tr.Agent] = append(got[tr.Agent], fmt.Sprintf("%d %v", tr.Tick, tr))
				if despawn && tr.Kind == host.TransitionSelect && (tr.Agent+tick)%17 == 0 {
					if a, ok := h.Agent(tr.Agent); ok {
						require.NoError(t, h.Despawn(a))
					}
				}
			},
			OnError: func(e *host.ScriptError) {
				got[e.Agent] = append(got[e.Agent], fmt.Sprintf("error %d %v", tick, e))
			}}
		if mode == modeTraced {
			opts.OnDecision = func(host.Decision) {}
		}
		var err error
		h, err = host.New(opts)
		require.NoError(t, err)
		host.SetCompiledAll(h, mode != modeCompiledOff)
		b, err = h.LoadString("attack.lua", attackSources[0])
		require.NoError(t, err)
	}
	open()
	defer func() { h.Close() }()
	for i := range 40 {
		_, err := h.Spawn(b, map[string]any{"obj": &heldThing{}})
		require.NoError(t, err, "spawn %d", i)
	}
	src := 0
	for tick = 1; tick <= 150; tick++ {
		require.NoError(t, h.Tick(0.1))
		if reload && tick%9 == 0 {
			src = (src + 1) % len(attackSources)
			require.NoError(t, b.ReloadSource(attackSources[src]))
		}
		if restore && tick%25 == 0 {
			data, err := h.Snapshot()
			require.NoError(t, err)
			h.Close()
			open()
			if src != 0 {
				require.NoError(t, b.ReloadSource(attackSources[src]))
			}
			_, err = h.Restore(data, b)
			require.NoError(t, err)
		}
		if despawn && tick%10 == 0 {
			_, err := h.Spawn(b, nil)
			require.NoError(t, err)
		}
	}
	return got
}

// Utility decisions choose, and fail, the same whether they read the
// context's fields where they remember them, with compiling off, or with
// every scorer called: over contexts scripts churn (fields set to nil,
// tables, strings, booleans, userdata; the map growing and shrinking),
// behaviours reloaded between a utility root, an fsm and a utility under
// an fsm, the host saved and restored into a fresh one, and agents
// despawned from a hook and spawned, on one worker and on four.
func TestUtilityRemembersAcrossChurn(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		workers                  int
		reload, restore, despawn bool
	}{
		{"churn", 1, false, false, false},
		{"reload", 1, true, false, false},
		{"restore", 2, false, true, false},
		{"despawn", 4, false, false, true},
		{"all", 4, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := attackRun(t, tc.workers, modeTraced, tc.reload, tc.restore, tc.despawn)
			selects, errs := 0, 0
			for _, lines := range want {
				s, e := countDecisions(lines)
				selects, errs = selects+s, errs+e
			}
			require.Greater(t, selects, 300, "decisions that changed state")
			require.Greater(t, errs, 30, "scorers that failed on a field not a number")
			for _, mode := range []attackMode{modeRemembered, modeCompiledOff} {
				got := attackRun(t, tc.workers, mode, tc.reload, tc.restore, tc.despawn)
				ids := slices.Sorted(func(yield func(int) bool) {
					for id := range want {
						if !yield(id) {
							return
						}
					}
				})
				for _, id := range ids {
					require.Equal(t, want[id], got[id], "mode %d, agent %d", mode, id)
				}
				require.Len(t, got, len(want), "mode %d: agents", mode)
			}
		})
	}
}
