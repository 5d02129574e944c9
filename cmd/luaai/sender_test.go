package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// --trace names the event that fired each transition and the agent that
// sent it: another agent (ai.send_to), itself (ai.send), or the game
// (--input), which has no sender.
func TestTraceShowsSenders(t *testing.T) {
	script := writeTemp(t, "order.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", states = {
  a = { update = function(ctx) if ai.id() == 1 then ai.send_to(2, "go") ai.send("self") end end,
        transitions = { { to = "b", on = "go" }, { to = "c", on = "self" } } },
  b = { transitions = { { to = "a", on = "back" } } }, c = {} } }`)
	input := writeTemp(t, "in.jsonl", `{"tick":3,"agent":2,"send":"back"}`+"\n")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{name: "text", args: []string{"--trace"}, want: []string{
			"tick 2 agent 1 a -> c on self from agent 1",
			"tick 2 agent 2 a -> b on go from agent 1",
			"tick 3 agent 2 b -> a on back",
		}},
		{name: "json", args: []string{"--trace", "--json"}, want: []string{
			`{"tick":2,"agent":1,"from":"a","to":"c","kind":"to","event":"self","sender":1}`,
			`{"tick":2,"agent":2,"from":"a","to":"b","kind":"to","event":"go","sender":1}`,
			`{"tick":3,"agent":2,"from":"b","to":"a","kind":"to","event":"back"}`,
		}},
		{name: "without --trace", want: []string{
			"tick 2 agent 1 a -> c",
			"tick 2 agent 2 a -> b",
			"tick 3 agent 2 b -> a",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", script, "--agents", "2", "--ticks", "3", "--input", input}, c.args...)
			code, stdout, stderr := cli(args...)
			require.Equal(t, 0, code, stderr)
			var got []string
			for _, l := range lines(stdout) {
				for _, w := range c.want {
					if l == w {
						got = append(got, l)
					}
				}
			}
			require.Equal(t, c.want, got, stdout)
		})
	}
}
