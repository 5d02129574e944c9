package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const doorLua = `local ai = require("luaai")
return ai.fsm { initial = "closed", context = { who = "nobody" }, states = {
  closed = { transitions = { { to = "open", on = "knock", when = function(ctx, p) ctx.who = p.name return true end } } },
  open = { transitions = { { to = "closed", on = "slam" } } },
} }`

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// --input FILE applies each line before its tick, to one agent or all.
func TestRunInputFile(t *testing.T) {
	script := writeTemp(t, "door.lua", doorLua)
	input := writeTemp(t, "in.jsonl", `{"tick":2,"agent":2,"send":"knock","payload":{"name":"ann"}}

{"tick":4,"agent":"*","send":"knock","payload":{"name":"bob"}}
{"tick":5,"agent":"*","send":"slam"}
{"tick":5,"agent":1,"set":{"who":"set by the game"}}
{"tick":6,"agent":9,"send":"knock"}
`)
	code, stdout, stderr := cli("run", script, "--agents", "2", "--ticks", "6", "--input", input)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{
		"tick 2 agent 2 closed -> open",
		"tick 4 agent 1 closed -> open",
		"tick 5 agent 1 open -> closed",
		"tick 5 agent 2 open -> closed",
	}, lines(stdout))
	require.Equal(t, []string{input + ":6: no agent 9"}, lines(stderr))

	code, stdout, _ = cli("run", script, "--agents", "2", "--ticks", "5", "--input", input, "--trace", "--json")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, `{"tick":5,"agent":1,"state":"closed","ctx":{"who":"set by the game"}}`)
	require.Contains(t, stdout, `{"tick":5,"agent":2,"state":"closed","ctx":{"who":"ann"}}`, "open at tick 4: the knock is not taken")
}

// A bad line is an error naming the file and the line, before anything runs.
func TestRunInputErrors(t *testing.T) {
	script := writeTemp(t, "door.lua", doorLua)
	for _, tc := range []struct{ line, msg string }{
		{`{"agent":1,"send":"x"}`, `:2: "tick" is missing`},
		{`{"tick":0,"agent":1,"send":"x"}`, `:2: tick must be a whole number ≥ 1, got 0`},
		{`{"tick":1.5,"agent":1,"send":"x"}`, `:2: tick must be a whole number ≥ 1, got 1.5`},
		{`{"tick":1,"send":"x"}`, `:2: "agent" is missing`},
		{`{"tick":1,"agent":"all","send":"x"}`, `:2: "agent" must be an agent id or "*", got "all"`},
		{`{"tick":1,"agent":1}`, `:2: "send" or "set" is missing`},
		{`{"tick":1,"agent":1,"send":"x","set":{}}`, `:2: "send" or "set", not both`},
		{`{"tick":1,"agent":1,"sned":"x"}`, `:2: not an input line (json: unknown field "sned")`},
		{`not json`, `:2: not an input line`},
	} {
		input := writeTemp(t, "in.jsonl", `{"tick":1,"agent":1,"send":"knock","payload":{"name":"a"}}`+"\n"+tc.line+"\n")
		code, stdout, stderr := cli("run", script, "--input", input)
		require.Equal(t, 1, code, tc.line)
		require.Empty(t, stdout, tc.line)
		require.Contains(t, stderr, "luaai run: --input: "+input+tc.msg, tc.line)
	}
}

// --input - reads stdin as lines come; a line without "tick" applies
// before the next tick, a bad one is reported and skipped.
func TestRunInputStdin(t *testing.T) {
	script := writeTemp(t, "door.lua", doorLua)
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader(`{"agent":1,"send":"knock","payload":{"name":"cli"}}
oops
{"tick":3,"agent":1,"send":"slam"}
`)
	code, stdout, stderr := cli("run", script, "--ticks", "4", "--hz", "20", "--input", "-") // paced: the reader is ahead of tick 1
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{"tick 1 agent 1 closed -> open", "tick 3 agent 1 open -> closed"}, lines(stdout))
	require.Contains(t, stderr, "input:2: not an input line")
}
