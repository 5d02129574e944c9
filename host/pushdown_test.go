package host_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/require"
)

// pitfall is the pushdown pitfall: investigate, pushed over patrol,
// leaves with to, which replaces the top and leaves patrol paused below,
// so alert's later to patrol is refused on every tick.
const pitfall = `local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  context = { noise = false, enemy = false },
  states = {
    patrol = {
      transitions = {
        { push = "investigate", when = ai.is("noise") },
      },
    },
    investigate = {
      transitions = {
        { to = "alert", when = ai.is("enemy") },
      },
    },
    alert = {
      transitions = {
        { to = "patrol", after = 0.2 },
      },
    },
  },
}`

// stuck runs an agent of the pitfall into its refusal.
func stuck(t *testing.T, o host.Options) (*host.Host, *host.Behaviour, *host.Agent) {
	t.Helper()
	h, err := host.New(o)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	path := filepath.Join(t.TempDir(), "guard.lua")
	require.NoError(t, os.WriteFile(path, []byte(pitfall), 0o644))
	b, err := h.LoadFile(path)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, a.Set("noise", true))
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, a.Set("enemy", true))
	for range 4 {
		require.NoError(t, h.Tick(0.1))
	}
	require.Equal(t, "alert", a.Path())
	require.Equal(t, []string{"patrol"}, a.PausedStates())
	return h, b, a
}

// A transition the stack refuses is reported at the transition's line,
// naming the paused state, where it was pushed, and the fix.
func TestRefusedTransitionNamesThePitfall(t *testing.T) {
	_, _, a := stuck(t, host.Options{})
	errs := a.TakeErrors()
	require.NotEmpty(t, errs)
	e := errs[0]
	require.ErrorIs(t, e, host.ErrOnStack)
	require.Equal(t, host.CallbackTransition, e.Callback)
	require.Equal(t, "guard.lua", filepath.Base(e.Script))
	require.Equal(t, 18, e.Line, e.Error())
	msg := e.Error()
	for _, want := range []string{
		`to "patrol"`,
		`"patrol" is paused below "alert"`,
		`pushed over it at ` + e.Script + `:8`,
		`pop = true`,
	} {
		require.True(t, strings.Contains(msg, want), "%q lacks %q", msg, want)
	}
}

// A reload that changes the refused transition's line frees the agents
// stuck on it: suspended ones (the Suspend fault policy) are resumed, as
// a fixed runaway's are, and every one takes the new transition.
func TestReloadFreesAgentsStuckOnARefusal(t *testing.T) {
	for _, faults := range []host.FaultPolicy{host.FaultContinue, host.FaultSuspend} {
		t.Run(fmt.Sprint(faults), func(t *testing.T) {
			var reloads []host.ReloadResult
			h, b, a := stuck(t, host.Options{Faults: faults, OnReload: func(r host.ReloadResult) { reloads = append(reloads, r) }})
			require.NoError(t, h.Tick(0.1))
			require.Equal(t, "alert", a.Path(), "still stuck")
			require.Equal(t, faults == host.FaultSuspend, a.Suspended())
			fixed := strings.Replace(pitfall, `{ to = "patrol", after = 0.2 },`, `{ pop = true, after = 0.2 },`, 1)
			require.NoError(t, os.WriteFile(b.Name(), []byte(fixed), 0o644))
			require.NoError(t, b.Reload())
			require.Len(t, reloads, 1)
			if faults == host.FaultSuspend {
				require.Equal(t, 1, reloads[0].Resumed)
			}
			require.False(t, a.Suspended())
			require.NoError(t, a.Set("noise", false))
			for range 3 {
				require.NoError(t, h.Tick(0.1))
			}
			require.Equal(t, "patrol", a.Path())
			require.Empty(t, a.PausedStates())
		})
	}
}

// Reset takes a stuck agent back to its initial state with its context;
// Respawn does it with a fresh context; both keep the id.
func TestResetAndRespawn(t *testing.T) {
	var kinds []string
	h, _, a := stuck(t, host.Options{OnTransition: func(tr host.Transition) {
		kinds = append(kinds, fmt.Sprintf("%s %s>%s", tr.Kind, tr.From, tr.To))
	}})
	require.NoError(t, a.Set("noise", false))
	require.NoError(t, a.Set("hp", 3.0))
	require.NoError(t, a.Reset())
	require.Equal(t, "patrol", a.Path())
	require.Empty(t, a.PausedStates())
	hp, _ := a.Number("hp")
	require.Equal(t, 3.0, hp, "the context is kept")
	require.Equal(t, "reset alert>patrol", kinds[len(kinds)-1])
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "patrol", a.Path())

	require.NoError(t, a.Set("noise", true))
	require.NoError(t, h.Tick(0.1))
	require.Equal(t, "investigate", a.Path())
	require.NoError(t, a.Respawn(map[string]any{"enemy": true}))
	require.Equal(t, "patrol", a.Path())
	require.Nil(t, a.Get("hp"), "a fresh context")
	noise, _ := a.Bool("noise")
	require.False(t, noise)
	enemy, _ := a.Bool("enemy")
	require.True(t, enemy, "with the overrides")
	require.Equal(t, "respawn investigate>patrol", kinds[len(kinds)-1])
	got, ok := h.Agent(a.ID())
	require.True(t, ok)
	require.Same(t, a, got)
	require.ErrorIs(t, a.Respawn(map[string]any{"bad": struct{ X int }{1}}), host.ErrBindByValue)
	require.Equal(t, "patrol", a.Path(), "a refused respawn changes nothing")
}

// on_reload runs once per agent after a reload whatever the root is: an
// fsm, a utility machine, regions, or a behaviour tree.
func TestOnReloadRunsForEveryRootKind(t *testing.T) {
	roots := map[string]string{
		"fsm":     `ai.fsm { initial = "a", on_reload = bump, states = { a = {} } }`,
		"utility": `ai.utility { on_reload = bump, states = { a = { score = 1 } } }`,
		"regions": `ai.regions { on_reload = bump, states = { r = ai.fsm { initial = "a", states = { a = {} } } } }`,
		"tree":    `ai.tree { on_reload = bump, root = ai.action(function() return "running" end) }`,
	}
	for kind, root := range roots {
		t.Run(kind, func(t *testing.T) {
			src := `local ai = require("luaai")
local function bump(ctx) ctx.reloads = (ctx.reloads or 0) + 1 end
return ` + root
			h, err := host.New(host.Options{})
			require.NoError(t, err)
			defer h.Close()
			b, err := h.LoadString(kind+".lua", src)
			require.NoError(t, err)
			require.Empty(t, hosttool.Definition(b).Warnings, "on_reload is a field of every root")
			a, err := h.Spawn(b, nil)
			require.NoError(t, err)
			require.NoError(t, h.Tick(0.1))
			require.NoError(t, b.ReloadSource(src))
			n, _ := a.Number("reloads")
			require.Equal(t, 1.0, n, "on_reload of the %s root", kind)
		})
	}
}

// An error indexing the payload of an event sent with none says so.
func TestNilPayloadErrorSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "soldier.lua")
	require.NoError(t, os.WriteFile(path, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "hold",
  context = { goal = 0 },
  states = {
    hold = { transitions = { { to = "advance", on = "advance", run = function(ctx, order) ctx.goal = order.x end } } },
    advance = {},
  },
}`), 0o644))
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadFile(path)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, a.Send("advance", nil))
	require.NoError(t, h.Tick(0.1))
	errs := a.TakeErrors()
	require.Len(t, errs, 1)
	require.Equal(t, 6, errs[0].Line)
	require.Contains(t, errs[0].Error(), `(the payload of event "advance" is nil: it was sent with none;`)
	require.NoError(t, a.Send("advance", map[string]any{"x": 3.0}))
	require.NoError(t, h.Tick(0.1))
	require.Empty(t, a.TakeErrors())
}
