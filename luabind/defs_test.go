package luabind

import (
	"os"
	"path/filepath"
	"testing"

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
	vm := NewVM(Options{})
	defer vm.Close()
	_, err := vm.LoadBehaviour(path)
	var list ErrorList
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
	vm := NewVM(Options{})
	defer vm.Close()
	m, err := vm.LoadBehaviour(path)
	require.NoError(t, err)
	w := Warnings(m)
	require.Len(t, w, 1)
	require.Equal(t, 6, w[0].Pos.Line, w[0].Error())
}
