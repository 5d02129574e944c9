package explore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/luaai/luaai/explore"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/stretchr/testify/require"
)

// Fields that only native conditions and scorers read are written with
// the values those natives compare with: a flag that defaults to false
// and is read by ai.is is set to true, a number compared by ai.gt is set
// around its constant, a curve's input across 0..1, so every state is
// reached as it is when the same condition is written in Lua.
func TestNativeConditionsAreExplored(t *testing.T) {
	cases := []struct{ name, context, when string }{
		{"is", "seen = false", `ai.is("seen")`},
		{"eq true", "seen = false", `ai.eq("seen", true)`},
		{"ne false", "seen = false", `ai.ne("seen", false)`},
		{"non", "calm = true", `ai.non(ai.is("calm"))`},
		{"all", "seen = false, armed = false", `ai.all(ai.is("seen"), ai.is("armed"))`},
		{"any", "seen = false, heard = false", `ai.any(ai.is("seen"), ai.eq("heard", true))`},
		{"gt", "noise = false", `ai.gt("noise", 7)`},
		{"le", "hp = 100", `ai.le("hp", 12.5)`},
		{"eq string", `mood = "calm"`, `ai.eq("mood", "angry")`},
		{"nested", "target = {}", `ai.is("target.visible")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "guard.lua")
			require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  context = { `+c.context+` },
  states = {
    patrol = { transitions = { { to = "chase", when = `+c.when+` } } },
    chase = { transitions = { { to = "patrol", after = 1 } } },
  },
}`), 0o644))
			o := opts(1, 1)
			o.Runs = 2000
			rep, err := explore.Run(context.Background(), script, o)
			require.NoError(t, err)
			for _, it := range rep.Unreached() {
				if it.Kind == hosttool.CoverState {
					t.Errorf("state %s never reached (tried fields %v)", it.Name, rep.Tried.Fields)
				}
			}
		})
	}
}

// A utility choice whose scorers are native (a curve that peaks inside 0..1, over
// a field and over a normalized field) reaches every child.
func TestNativeScorersAreExplored(t *testing.T) {
	script := filepath.Join(t.TempDir(), "villager.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.utility {
  context = { hunger = 0, fear = 0 },
  initial = "idle",
  states = {
    idle = { score = 0.5 },
    eat = { score = ai.curve(ai.field("hunger"), { kind = "normal", k = 2, c = 0.1 }) },
    flee = { score = ai.curve(ai.normalize(ai.field("fear"), 50, 80), { kind = "normal", k = 2 }) },
  },
}`), 0o644))
	o := opts(1, 1)
	o.Runs = 2000
	rep, err := explore.Run(context.Background(), script, o)
	require.NoError(t, err)
	for _, it := range rep.Unreached() {
		t.Errorf("%s %s never reached (tried fields %v)", it.Kind, it.Name, rep.Tried.Fields)
	}
}

// A field handed to ai.send_to is written with agents' ids only (and
// false, its "none yet"): a number that is no id would be a failure no
// game makes.
func TestSendToFieldGetsIDsOnly(t *testing.T) {
	script := filepath.Join(t.TempDir(), "caller.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  context = { buddy = false, calls = 0 },
  states = {
    idle = { transitions = { { to = "calling", when = function(ctx) return ctx.buddy and ctx.buddy > 0 end } } },
    calling = {
      enter = function(ctx)
        ctx.calls = ctx.calls + 1
        ai.send_to(ctx.buddy, "ping", { from = ai.id() })
      end,
      transitions = { { to = "idle", after = 1 } },
    },
  },
}`), 0o644))
	for _, agents := range []int{1, 2} {
		o := opts(agents, 1)
		o.Runs = 2000
		rep, err := explore.Run(context.Background(), script, o)
		require.NoError(t, err)
		for _, f := range rep.Findings {
			t.Errorf("%d agents: %s after %s", agents, f.Message, f.Words)
		}
		for _, it := range rep.Unreached() {
			if it.Kind == hosttool.CoverState {
				t.Errorf("%d agents: state %s never reached", agents, it.Name)
			}
		}
	}
}

// The stranded guard: a pushed state left with to, so the to back to the
// paused state is refused. explore finds the refusal, at the transition's
// line, with the fix in its message.
func TestFindsTheStrandedGuard(t *testing.T) {
	script := filepath.Join(t.TempDir(), "guard.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  context = { noise = false, enemy = false },
  states = {
    patrol = { transitions = { { push = "investigate", when = ai.is("noise") } } },
    investigate = { transitions = { { to = "alert", when = ai.is("enemy") } } },
    alert = { transitions = { { to = "patrol", after = 1 } } },
  },
}`), 0o644))
	o := opts(1, 1)
	o.Runs = 2000
	rep, err := explore.Run(context.Background(), script, o)
	require.NoError(t, err)
	f := findingAt(rep, 8)
	require.NotNil(t, f, "%+v", rep.Findings)
	require.Equal(t, "alert", f.State)
	require.Contains(t, f.Message, `"patrol" is paused below "alert"`)
	require.Contains(t, f.Message, "pop = true")
}
