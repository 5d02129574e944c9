package srcpos

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTokenize(t *testing.T) {
	toks := Tokenize([]byte("a = [[x\ny]] --[==[\n]==] b == 'q\\'' -- c\n1e-3 { }"))
	var got []string
	for _, tk := range toks {
		got = append(got, fmt.Sprintf("%d:%s", tk.line, tk.text))
	}
	require.Equal(t, []string{"1:a", "1:=", "1:[[x\ny]]", "3:b", "3:==", `3:q\'`, "4:0", "4:-", "4:0", "4:{", "4:}"}, got)
}

func TestMachine(t *testing.T) {
	src := `local ai = require("luaai")
return ai.fsm({ initial = "a", -- comment with states = {
  states = {
    a = { transitions = {
      { to = "b" },
      { to = "a", when = function() return "}" end },
    } },
    ["b"] = ai.utility { states = { x = {} } },
  },
})`
	got := Machine(Tokenize([]byte(src)), 2, "fsm")
	require.Equal(t, []Written{
		{Name: "a", Line: 4, Trans: []int{5, 6}, Fields: map[string]int{"transitions": 4}},
		{Name: "b", Line: 8, Fields: map[string]int{"states": 8}},
	}, got)
	require.Equal(t, []Written{{Name: "x", Line: 8}}, Machine(Tokenize([]byte(src)), 8, "utility"))
	require.Nil(t, Machine(Tokenize([]byte(src)), 3, "fsm"), "no call on that line")
	require.Nil(t, Machine(Tokenize([]byte("return ai.fsm { states = { [1] = {} } }")), 1, "fsm"), "a key that is not a name")
	require.Nil(t, Machine(Tokenize([]byte("return ai.fsm { states = {")), 1, "fsm"), "unclosed")
}
