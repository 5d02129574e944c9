package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
`)
	code, stdout, stderr := cli("run", script, "--agents", "2", "--ticks", "6", "--input", input)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{
		"tick 2 agent 2 closed -> open",
		"tick 4 agent 1 closed -> open",
		"tick 5 agent 1 open -> closed",
		"tick 5 agent 2 open -> closed",
	}, lines(stdout))
	require.Empty(t, lines(stderr))

	// An agent the run does not have is refused before it starts.
	bad := writeTemp(t, "bad.jsonl", `{"tick":6,"agent":9,"send":"knock"}`+"\n")
	code, stdout, stderr = cli("run", script, "--agents", "2", "--input", bad)
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "luaai run: --input: "+bad+":1: no agent 9 (the run has 2)")

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
		{`{"tick":1,"agent":1}`, `:2: "send", "set", "resume", "reset" or "respawn" is missing`},
		{`{"tick":1,"agent":1,"resume":true,"send":"x"}`, `:2: "resume", "reset" and "respawn" each go alone`},
		{`{"tick":1,"agent":1,"send":"x","set":{}}`, `:2: "send" or "set", not both`},
		{`{"tick":1,"agent":1,"sned":"x"}`, `:2: not an input line (unknown field "sned" (did you mean "send"?))`},
		{`{"tick":1,"agent":1,"send":3}`, `:2: not an input line ("send" must be a string, got a number)`},
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
	require.Contains(t, stderr, `input:2: unknown command "oops"; help lists the commands (a JSON input line starts with "{")`)
}

// The live commands on --input -: lines apply in order, and a step
// runs its ticks before the lines after it are read.
func TestRunCommands(t *testing.T) {
	script := writeTemp(t, "door.lua", doorLua)
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader(`pause
step 2
send 1 knock {"name":"ann"}
step
set 1 who="zed"
set * who=bo
step 1
sned 1 slam
set 1 whom=x
set 7 who=x
step 0
send 1
help
resume
`)
	code, stdout, stderr := cli("run", script, "--ticks", "6", "--hz", "20", "--input", "-", "--trace", "--json")
	require.Equal(t, 0, code, stderr)
	rows := jsonLines(t, stdout)
	var who []string
	for _, r := range rows {
		if ctx, ok := r["ctx"].(map[string]any); ok {
			who = append(who, fmt.Sprint(r["tick"], ":", ctx["who"]))
		}
	}
	require.Equal(t, []string{"1:nobody", "2:nobody", "3:ann", "4:bo", "5:bo", "6:bo"}, who)
	require.Contains(t, stdout, `{"tick":3,"agent":1,"from":"closed","to":"open","kind":"to","event":"knock"}`)
	for _, want := range []string{
		"paused at tick 0 (step [N] runs ticks, resume goes on)",
		"paused at tick 2",
		"paused at tick 3",
		"paused at tick 4",
		`input:8: unknown command "sned" (did you mean "send"?); help lists the commands`,
		`input:9: agent 1: set whom: "whom" is not a key of the context (did you mean "who"?)`,
		"input:10: no agent 7",
		`agent 1: who = "zed"`, // a set says what it did
		`agent 1: who = "bo"`,
		`input:11: step: want step [N] with N from 1 to 1000000, got "0"`,
		"input:12: send: want send A EVENT [json]: the event is missing",
		"  step [N]              run N ticks (default 1), then pause",
		"resumed at tick 4",
	} {
		require.Contains(t, stderr, want)
	}
	require.Less(t, strings.Index(stderr, "paused at tick 3"), strings.Index(stderr, "paused at tick 4"))
}

// Typed in a terminal: line editing, history with the arrows, and Ctrl-C
// ends the run.
func TestConsole(t *testing.T) {
	keys, typing := io.Pipe()
	var screen syncBuffer
	c := newConsole(struct {
		io.Reader
		io.Writer
	}{keys, &screen})
	stopped := make(chan struct{})
	in := c.input(func() { close(stopped) })
	next := func() inputLine {
		select {
		case l := <-in.live:
			return l
		case err := <-in.errs:
			t.Fatal(err)
		case <-time.After(10 * time.Second):
			t.Fatal("no line")
		}
		return inputLine{}
	}
	fmt.Fprint(typing, "send 2 knock {\"name\":\"ann\"}\r")
	l := next()
	require.Equal(t, "knock", l.send)
	require.Equal(t, 2, l.agent)
	require.Equal(t, map[string]any{"name": "ann"}, l.payload)

	fmt.Fprint(typing, "step 3\r")
	require.Equal(t, 3, next().steps)
	fmt.Fprint(typing, "\x1b[A\x1b[A\r") // up twice: the send again
	require.Equal(t, "knock", next().send)
	fmt.Fprint(typing, "stpe 9\x7f\x7f\x7f\x7f\x7f\x7fpause\r") // typed, erased, retyped
	require.Equal(t, "pause", next().control)
	// Home and End as terminals send them: "ep 2" typed, Home, "st", End, "0".
	for _, keys := range [][2]string{{"\x1b[1~", "\x1b[4~"}, {"\x1bOH", "\x1bOF"}, {"\x1b[H", "\x1b[F"}} {
		fmt.Fprint(typing, "ep 2"+keys[0]+"st"+keys[1]+"0\r")
		require.Equal(t, 20, next().steps, "%q %q", keys[0], keys[1])
	}

	fmt.Fprint(c, "tick 1 agent 1 closed -> open\n") // the run writes above the prompt
	require.Contains(t, screen.String(), "tick 1 agent 1 closed -> open\r\n")

	fmt.Fprint(typing, "\x03") // Ctrl-C
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl-C did not stop the run")
	}
}

// One rule for every write from outside the scripts: --set, --input and
// the console refuse an unknown key and a value of another type than its
// default alike, and a default of false takes any value (the shipped
// hunter documents false as "no prey").
func TestEveryWriteFollowsTheRule(t *testing.T) {
	code, stdout, stderr := cli("run", "../../scripts/hunter.lua", "--ticks", "1", "--trace", "--json", "--set", "prey_x=3")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, `"prey_x":3`)

	script := writeTemp(t, "watch.lua", `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { player_visible = true, hp = 10, target = false },
  states = { idle = {} } }`)
	input := writeTemp(t, "in.jsonl", `{"tick":2,"agent":1,"set":{"player_visible":1}}
{"tick":2,"agent":1,"set":{"hpp":3}}
{"tick":2,"agent":1,"set":{"hp":"lots"}}
{"tick":3,"agent":1,"set":{"target":{"x":4},"hp":7}}
`)
	code, stdout, stderr = cli("run", script, "--ticks", "3", "--input", input, "--trace", "--json")
	require.Equal(t, 1, code, "refused input is reported, the run goes on, and it exits 1: %s", stderr)
	require.Equal(t, []string{
		input + `:1: agent 1: set player_visible: the default is a boolean, got the number 1`,
		input + `:2: agent 1: set hpp: "hpp" is not a key of the context (did you mean "hp"?)`,
		input + `:3: agent 1: set hp: the default is a number, got the string "lots"`,
		"luaai run: --input: 3 lines refused",
	}, lines(stderr))
	require.Contains(t, stdout, `{"tick":2,"agent":1,"state":"idle","ctx":{"hp":10,"player_visible":true,"target":false}}`)
	require.Contains(t, stdout, `{"tick":3,"agent":1,"state":"idle","ctx":{"hp":7,"player_visible":true,"target":{"x":4}}}`)

	code, _, stderr = cli("run", script, "--set", "player_visible=1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "luaai run: --set player_visible=1: the default is a boolean, got the number 1\n")
}

// resume A lets suspended agents tick again: from --input (and the
// console, which reads the same commands), with the suspended agents
// marked in --trace until then.
func TestResumeSuspendedAgents(t *testing.T) {
	script := writeTemp(t, "spin.lua", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { spin = true, n = 0 }, states = { s = {
  update = function(ctx)
    while ctx.spin do end
    ctx.n = ctx.n + 1
  end } } }`)
	input := writeTemp(t, "in.jsonl", `{"tick":5,"agent":"*","set":{"spin":false}}
{"tick":5,"agent":"*","resume":true}
{"tick":6,"agent":1,"resume":true}
`)
	code, stdout, stderr := cli("run", script, "--agents", "2", "--ticks", "6", "--budget", "5ms", "--input", input, "--trace")
	require.Equal(t, 1, code, "the overruns are errors")
	out := lines(stdout)
	require.Contains(t, out, `tick 3 agent 1 state s suspended (overruns) ctx {"n":0,"spin":true}`)
	require.Contains(t, out, `tick 4 agent 2 state s suspended (overruns) ctx {"n":0,"spin":true}`)
	require.Contains(t, out, `tick 5 agent 1 state s ctx {"n":1,"spin":false}`)
	require.Contains(t, out, `tick 6 agent 2 state s ctx {"n":2,"spin":false}`)
	errs := lines(stderr)
	require.Contains(t, errs, "agent 1 resumed")
	require.Contains(t, errs, "agent 2 resumed")
	require.Contains(t, errs, input+":3: agent 1 is not suspended")
	var suspensions []string
	for _, l := range errs {
		if strings.Contains(l, "suspended)") {
			suspensions = append(suspensions, l)
		}
	}
	require.Len(t, suspensions, 1, "both agents in one line: %v", errs)
	require.Contains(t, suspensions[0], "tick 3 error: "+script+":4: ")
	require.Contains(t, suspensions[0], "; agents 1, 2 suspended)")
	require.Contains(t, errs, "8 errors, 2 distinct, 2 agents") // 3 overruns each, the third also a suspension

	code, _, stderr = cli("run", script, "--ticks", "1", "--input", writeTemp(t, "bad.jsonl", `{"tick":1,"agent":1,"resume":true,"set":{"n":1}}`+"\n"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `"resume", "reset" and "respawn" each go alone`)
}

func TestParseResumeCommand(t *testing.T) {
	l, err := parseCommand("x", "resume")
	require.NoError(t, err)
	require.Equal(t, "resume", l.control, "resume alone: the run ticks again")
	l, err = parseCommand("x", "resume 2")
	require.NoError(t, err)
	require.True(t, l.resume)
	require.Equal(t, 2, l.agent)
	l, err = parseCommand("x", "resume *")
	require.NoError(t, err)
	require.True(t, l.resume && l.all)
	_, err = parseCommand("x", "resume two")
	require.EqualError(t, err, `x: resume: want resume (the run) or resume A (suspended agents), with A an agent id or *; got "two "`)
}

// reset A and respawn A free an agent stuck on its stack (reset keeps the
// context, respawn makes a new one with the run's --set); show A prints
// where it is. On --input FILE as JSON lines, and as commands.
func TestResetRespawnShow(t *testing.T) {
	script := writeTemp(t, "guard.lua", `local ai = require("luaai")
return ai.fsm {
  initial = "patrol",
  context = { noise = false, enemy = false, seen = 0 },
  states = {
    patrol = { transitions = { { push = "investigate", when = ai.is("noise") } } },
    investigate = {
      enter = function(ctx) ctx.seen = ctx.seen + 1 end,
      transitions = { { to = "alert", when = ai.is("enemy") } },
    },
    alert = { transitions = { { to = "patrol", after = 0.2 } } },
  },
}`)
	input := writeTemp(t, "in.jsonl", `{"tick":1,"agent":1,"set":{"noise":true}}
{"tick":2,"agent":1,"set":{"enemy":true}}
{"tick":6,"agent":1,"set":{"noise":false,"enemy":false}}
{"tick":6,"agent":1,"reset":true}
{"tick":8,"agent":1,"set":{"noise":true}}
{"tick":9,"agent":1,"respawn":true}
`)
	code, stdout, stderr := cli("run", script, "--ticks", "10", "--input", input, "--set", "seen=5", "--trace", "--json")
	require.Equal(t, 1, code, "the refusals are script errors: %s", stderr)
	require.NotContains(t, stderr, "line refused")
	require.Contains(t, stdout, `{"tick":5,"agent":1,"from":"alert","to":"patrol","kind":"reset"}`)
	require.Contains(t, stdout, `{"tick":8,"agent":1,"from":"investigate","to":"patrol","kind":"respawn"}`)
	require.Contains(t, stdout, `{"tick":7,"agent":1,"state":"patrol","ctx":{"enemy":false,"noise":false,"seen":6}}`, "reset keeps the context")
	require.Contains(t, stdout, `{"tick":9,"agent":1,"state":"patrol","ctx":{"enemy":false,"noise":false,"seen":5}}`, "respawn: the defaults and --set")
	require.Contains(t, stderr, "agent 1 reset: alert -> patrol (context kept)")
	require.Contains(t, stderr, "agent 1 respawned: investigate -> patrol (new context)")

	for _, c := range []struct{ text, want string }{
		{"reset 2", ""}, {"respawn *", ""}, {"show 1", ""},
		{"reset", `x: reset: want reset A, with A an agent id or *; got ""`},
		{"show 1 2", `x: show: want show A, with A an agent id or *; got "1 2"`},
	} {
		l, err := parseCommand("x", c.text)
		if c.want != "" {
			require.EqualError(t, err, c.want)
			continue
		}
		require.NoError(t, err, c.text)
		require.True(t, l.reset || l.respawn || l.show)
	}

	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader("set 1 noise=true\nstep 1\nshow 1\nreset 1\nshow 1\nresume\n")
	code, _, stderr = cli("run", script, "--ticks", "3", "--hz", "20", "--input", "-")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, `agent 1 (guard.lua): investigate, paused patrol, tick 1; ctx {"enemy":false,"noise":true,"seen":1}`)
	require.Contains(t, stderr, "agent 1 reset: investigate -> patrol (context kept)")
}

// --input FILE exits 1 when a line could not be applied, after the run.
func TestInputRefusedLineFails(t *testing.T) {
	script := writeTemp(t, "door.lua", doorLua)
	input := writeTemp(t, "in.jsonl", `{"tick":1,"agent":1,"set":{"who.first":"x"}}
{"tick":2,"agent":1,"send":"knock","payload":{"name":"ann"}}
`)
	code, stdout, stderr := cli("run", script, "--ticks", "3", "--input", input)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stdout, "tick 2 agent 1 closed -> open", "the run goes on")
	require.Contains(t, stderr, input+":1: agent 1: set who.first:")
	require.Contains(t, stderr, "luaai run: --input: 1 line refused")
}

// A --watch run reads the commands a terminal types also when stdout goes
// to a pipe or a file; without a terminal, nothing is read.
func TestConsoleMode(t *testing.T) {
	require.Equal(t, consoleEditor, consoleMode(true, true))
	require.Equal(t, consoleLines, consoleMode(true, false))
	require.Equal(t, consoleNone, consoleMode(false, true))
	require.Equal(t, consoleNone, consoleMode(false, false))
}
