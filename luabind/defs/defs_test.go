package defs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
)

// Definition problems point at the line where the state or transition is
// written, not at the ai.fsm line, when the script is a file.
func TestDefinitionErrorsNameTheirLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.lua")
	src := `local ai = require("luaai")
return ai.fsm {
  initial = "a",
  states = {
    a = {
      transitions = {
        { to = "a" },
        { to = "nowhere" },
      },
    },
    b = { enter = "not a function" },
    c = { tranistions = {} },
  },
}
`
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	vm := NewVM(luabind.Options{})
	defer vm.Close()
	_, err := vm.LoadBehaviour(path)
	var list scripterr.ErrorList
	require.ErrorAs(t, err, &list)
	require.Len(t, list, 2)
	require.Equal(t, 8, list[0].Pos.Line, list[0].Error())
	require.Contains(t, list[0].Msg, `"nowhere"`)
	require.Equal(t, 11, list[1].Pos.Line, list[1].Error())
	require.Contains(t, list[1].Msg, "hook enter")
}

func TestUnknownFieldWarningNamesItsLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "warn.lua")
	src := `local ai = require("luaai")
return ai.fsm {
  initial = "a",
  states = {
    a = {},
    b = { tranistions = {} },
  },
}
`
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	vm := NewVM(luabind.Options{})
	defer vm.Close()
	m, err := vm.LoadBehaviour(path)
	require.NoError(t, err)
	w := Warnings(m)
	require.Len(t, w, 1)
	require.Equal(t, 6, w[0].Pos.Line, w[0].Error())
}

// A machine used twice in each of forty nested machines would place 2^41
// states; the behaviour is refused before anything walks it.
func TestTooManyPlacesRefused(t *testing.T) {
	vm := NewVM(luabind.Options{})
	defer vm.Close()
	src := `local ai = require("luaai")
local s = ai.fsm { initial = "a", states = { a = {}, b = {} } }
for _ = 1, 40 do
  s = ai.fsm { initial = "a", states = { a = s, b = s } }
end
return s`
	proto, err := luabind.Compile(strings.NewReader(src), "dag.lua")
	require.NoError(t, err)
	_, err = vm.LoadProto(proto)
	var list scripterr.ErrorList
	require.ErrorAs(t, err, &list)
	require.Len(t, list, 1)
	require.Equal(t, "dag.lua:4: the behaviour places more than 10000 states (a machine used in several parents counts once in each)", list[0].Error())

	// Below the limit, a shared machine is placed at each of its places.
	src = `local ai = require("luaai")
local s = ai.fsm { initial = "a", states = { a = {}, b = {} } }
for _ = 1, 10 do
  s = ai.fsm { initial = "a", states = { a = s, b = s } }
end
return s`
	proto, err = luabind.Compile(strings.NewReader(src), "dag.lua")
	require.NoError(t, err)
	m, err := vm.LoadProto(proto)
	require.NoError(t, err)
	n := 0
	Walk(m, func(*Node) bool { n++; return true })
	require.Equal(t, 1<<12-1, n)
	distinct := 0
	EachState(m, func(*Node) { distinct++ })
	require.Equal(t, 13, distinct, "ten machines, the innermost and its two leaves")
}

func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"udpate", ` (did you mean "update"?)`},
		{"transition", ` (did you mean "transitions"?)`},
		{"inital", ` (did you mean "initial"?)`},
		{"enetr", ` (did you mean "enter"?)`},
		{"stats", ` (did you mean "states"?)`},
		{"x", ""},     // too short to guess
		{"speed", ""}, // a field of the modder's own, nothing close
		{"contexts", ` (did you mean "context"?)`},
	} {
		require.Equal(t, tc.want, didYouMean(tc.name, leafFields, machineFields), tc.name)
	}
	require.Equal(t, ` (did you mean "when"?)`, didYouMean("whne", transitionFields))
}
