package inspect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	"github.com/stretchr/testify/require"
)

// The pushdown pitfall is warned about at both ends: the pushed state's
// `to` and the refused `to` back, each at its own line; a pushed state
// that pops (by a transition or in its code) is not.
func TestLintPushdownPitfall(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{
			name: "pitfall",
			src: `local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  states = {
    patrol = {
      transitions = {
        { push = "investigate", on = "noise" },
      },
    },
    investigate = {
      transitions = {
        { to = "alert", on = "enemy" },
      },
    },
    alert = {
      transitions = {
        { to = "patrol", after = 1 },
      },
    },
  },
}`,
			want: []string{
				`:12: state "investigate" is entered only by push (line 7) and leaves by to alert: "patrol" stays paused below, and no state after it pops back to it; leave a pushed state with pop = true (or ai.pop())`,
				`:17: state "alert": transition 1 (to patrol) is refused whenever "patrol" is paused below: "investigate" is pushed over it (line 7) and leaves by to, which keeps "patrol" paused; leave a pushed state with pop = true (or ai.pop()) to resume "patrol"`,
			},
		},
		{
			name: "popped by a later state",
			src: `local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  states = {
    patrol = { transitions = { { push = "investigate", on = "noise" } } },
    investigate = { transitions = { { to = "alert", on = "enemy" } } },
    alert = { transitions = { { pop = true, after = 1 } } },
  },
}`,
		},
		{
			name: "popped in code",
			src: `local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  states = {
    patrol = { transitions = { { push = "investigate", on = "noise" } } },
    investigate = { transitions = { { to = "alert", on = "enemy" } } },
    alert = { enter = function() ai.pop() end },
  },
}`,
		},
		{
			name: "entered by to as well",
			src: `local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  states = {
    patrol = { transitions = { { push = "investigate", on = "noise" }, { to = "investigate", on = "look" } } },
    investigate = { transitions = { { to = "alert", on = "enemy" } } },
    alert = {},
  },
}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "guard.lua")
			require.NoError(t, os.WriteFile(path, []byte(c.src), 0o644))
			vm := defs.NewVM(luabind.Options{})
			t.Cleanup(vm.Close)
			v, err := vm.RunString(path, c.src)
			require.NoError(t, err)
			m, ok := defs.MachineValue(v)
			require.True(t, ok)
			var got []string
			for _, msg := range lintMessages(Lint(m)) {
				got = append(got, msg[len(path):])
			}
			require.Equal(t, c.want, got)
		})
	}
}

// The shipped scripts that push (sentry, the guard) pop back: no warning.
func TestLintPushdownShipped(t *testing.T) {
	for _, s := range []string{"sentry.lua", "guard.lua", "soldier.lua"} {
		path := filepath.Join("..", "..", "scripts", s)
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		vm := defs.NewVM(luabind.Options{Roots: []string{filepath.Join("..", "..", "scripts")}})
		v, err := vm.RunString(path, string(src))
		require.NoError(t, err, s)
		m, ok := defs.MachineValue(v)
		require.True(t, ok)
		for _, msg := range lintMessages(Lint(m)) {
			require.NotContains(t, msg, "push", s)
		}
		vm.Close()
	}
}

// An unknown field is warned about at its own line, in a plain-table
// state, the root machine and a nested one.
func TestLintUnknownFieldAtItsLine(t *testing.T) {
	src := `local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  colour = "red",
  states = {
    idle = {
      enter = function() end,
      exitt = function() end,
    },
    walk = ai.fsm {
      initial = "a",
      intial = "a",
      states = { a = {} },
    },
  },
}`
	path := filepath.Join(t.TempDir(), "guard.lua")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	vm := defs.NewVM(luabind.Options{})
	t.Cleanup(vm.Close)
	v, err := vm.RunString(path, src)
	require.NoError(t, err)
	m, ok := defs.MachineValue(v)
	require.True(t, ok)
	var got []string
	for _, msg := range lintMessages(Lint(m)) {
		if strings.Contains(msg, "unknown field") {
			got = append(got, msg[len(path):])
		}
	}
	require.Equal(t, []string{
		`:4: ai.fsm: unknown field "colour"`,
		`:8: state "idle": unknown field "exitt" (did you mean "exit"?)`,
		`:12: ai.fsm: unknown field "intial" (did you mean "initial"?)`,
	}, got)
}
