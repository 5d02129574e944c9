package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/luaai/luaai/internal/luaval"
	"github.com/luaai/luaai/internal/plainjson"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// cli runs the command line and returns its exit code, stdout and stderr.
func cli(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// lines splits output into lines, without the final newline.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// jsonLines decodes every stdout line as one JSON object.
func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range lines(s) {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "line %q", l)
		out = append(out, m)
	}
	return out
}

func TestRunOutput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdout []string
	}{
		{
			name: "text transitions",
			args: []string{"run", "testdata/guard.lua", "--ticks", "6"},
			stdout: []string{
				"tick 1 agent 1 patrol.find -> patrol.walk",
				"tick 2 agent 1 patrol.walk -> patrol.find",
				"tick 3 agent 1 patrol -> combat",
				"tick 5 agent 1 combat -> patrol",
				"tick 6 agent 1 patrol.find -> patrol.walk",
			},
		},
		{
			name: "json transitions",
			args: []string{"run", "--json", "testdata/guard.lua", "--ticks=5"},
			stdout: []string{
				`{"tick":1,"agent":1,"from":"patrol.find","to":"patrol.walk","kind":"to"}`,
				`{"tick":2,"agent":1,"from":"patrol.walk","to":"patrol.find","kind":"to"}`,
				`{"tick":3,"agent":1,"from":"patrol","to":"combat","kind":"to"}`,
				`{"tick":5,"agent":1,"from":"combat","to":"patrol","kind":"to"}`,
			},
		},
		{
			name: "push and pop kinds, flags before the script",
			args: []string{"run", "--ticks", "6", "testdata/stack.lua"},
			stdout: []string{
				"tick 3 agent 1 a -> b (push)",
				"tick 4 agent 1 b -> a (pop)",
			},
		},
		{
			name: "json push and pop",
			args: []string{"run", "testdata/stack.lua", "--json"},
			stdout: []string{
				`{"tick":3,"agent":1,"from":"a","to":"b","kind":"push"}`,
				`{"tick":4,"agent":1,"from":"b","to":"a","kind":"pop"}`,
			},
		},
		{
			name: "default ticks is 10",
			args: []string{"run", "testdata/guard.lua"},
			stdout: []string{
				"tick 1 agent 1 patrol.find -> patrol.walk",
				"tick 2 agent 1 patrol.walk -> patrol.find",
				"tick 3 agent 1 patrol -> combat",
				"tick 5 agent 1 combat -> patrol",
				"tick 6 agent 1 patrol.find -> patrol.walk",
				"tick 7 agent 1 patrol.walk -> patrol.find",
				"tick 8 agent 1 patrol.find -> patrol.walk",
				"tick 9 agent 1 patrol.walk -> patrol.find",
				"tick 10 agent 1 patrol.find -> patrol.walk",
			},
		},
		{
			name:   "zero ticks",
			args:   []string{"run", "testdata/guard.lua", "--ticks", "0", "--trace"},
			stdout: nil,
		},
		{
			name: "agents",
			args: []string{"run", "testdata/switch.lua", "--agents", "3", "--set", "go=true", "--ticks", "2"},
			stdout: []string{
				"tick 1 agent 1 idle -> moving",
				"tick 1 agent 2 idle -> moving",
				"tick 1 agent 3 idle -> moving",
			},
		},
		{
			name: "set false keeps idle",
			args: []string{"run", "testdata/switch.lua", "--set", "go=false", "--ticks", "2"},
		},
		{
			name: "text trace",
			args: []string{"run", "testdata/stack.lua", "--ticks", "4", "--trace"},
			stdout: []string{
				`tick 1 agent 1 state a ctx {"n":1}`,
				`tick 2 agent 1 state a ctx {"n":2}`,
				"tick 3 agent 1 a -> b (push)",
				`tick 3 agent 1 state b paused a ctx {"n":2}`,
				"tick 4 agent 1 b -> a (pop)",
				`tick 4 agent 1 state a ctx {"n":3}`,
			},
		},
		{
			name: "text trace: decisions, logs, tables, functions",
			args: []string{"run", "testdata/needs.lua", "--ticks", "4", "--trace"},
			stdout: []string{
				"tick 1 agent 1 decide (root): eat=0 idle=0.25 -> idle",
				`tick 1 agent 1 state idle ctx {"f":"function","hunger":0.1,"pos":{"x":1,"y":2},"tags":["a","b"]}`,
				"tick 2 agent 1 decide (root): eat=0.1 idle=0.25 -> idle",
				`tick 2 agent 1 state idle ctx {"f":"function","hunger":0.2,"pos":{"x":1,"y":2},"tags":["a","b"]}`,
				"tick 3 agent 1 decide (root): eat=0.2 idle=0.25 -> idle",
				`tick 3 agent 1 state idle ctx {"f":"function","hunger":0.3,"pos":{"x":1,"y":2},"tags":["a","b"]}`,
				"tick 4 agent 1 decide (root): eat=0.3 idle=0.25 -> eat",
				"tick 4 agent 1 idle -> eat (select)",
				"tick 4 agent 1 log: eating at 0.30000000000000004",
				`tick 4 agent 1 state eat ctx {"f":"function","hunger":0.4,"pos":{"x":1,"y":2},"tags":["a","b"]}`,
			},
		},
		{
			name: "without trace: no decisions, logs still shown",
			args: []string{"run", "testdata/needs.lua", "--ticks", "4"},
			stdout: []string{
				"tick 4 agent 1 idle -> eat (select)",
				"tick 4 agent 1 log: eating at 0.30000000000000004",
			},
		},
		{
			name: "json trace",
			args: []string{"run", "testdata/needs.lua", "--ticks", "4", "--trace", "--json"},
			stdout: []string{
				`{"tick":1,"agent":1,"decide":"","scores":{"eat":0,"idle":0.25},"winner":"idle"}`,
				`{"tick":1,"agent":1,"state":"idle","ctx":{"f":"function","hunger":0.1,"pos":{"x":1,"y":2},"tags":["a","b"]}}`,
				`{"tick":2,"agent":1,"decide":"","scores":{"eat":0.1,"idle":0.25},"winner":"idle"}`,
				`{"tick":2,"agent":1,"state":"idle","ctx":{"f":"function","hunger":0.2,"pos":{"x":1,"y":2},"tags":["a","b"]}}`,
				`{"tick":3,"agent":1,"decide":"","scores":{"eat":0.2,"idle":0.25},"winner":"idle"}`,
				`{"tick":3,"agent":1,"state":"idle","ctx":{"f":"function","hunger":0.3,"pos":{"x":1,"y":2},"tags":["a","b"]}}`,
				`{"tick":4,"agent":1,"decide":"","scores":{"eat":0.3,"idle":0.25},"winner":"eat"}`,
				`{"tick":4,"agent":1,"from":"idle","to":"eat","kind":"select"}`,
				`{"tick":4,"agent":1,"log":"eating at 0.30000000000000004","state":"eat"}`,
				`{"tick":4,"agent":1,"state":"eat","ctx":{"f":"function","hunger":0.4,"pos":{"x":1,"y":2},"tags":["a","b"]}}`,
			},
		},
		{
			name: "cycles are cut",
			args: []string{"run", "testdata/cycle.lua", "--ticks", "1", "--trace", "--json"},
			stdout: []string{
				`{"tick":1,"agent":1,"state":"a","ctx":{"list":[1,2,{"me":"<cycle>"}],"self":"<cycle>"}}`,
			},
		},
		{
			name: "paced with hz",
			args: []string{"run", "testdata/stack.lua", "--hz", "1000", "--ticks", "4"},
			stdout: []string{
				"tick 3 agent 1 a -> b (push)",
				"tick 4 agent 1 b -> a (pop)",
			},
		},
		{
			name: "double dash ends the flags",
			args: []string{"run", "--ticks", "3", "--", "testdata/stack.lua"},
			stdout: []string{
				"tick 3 agent 1 a -> b (push)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(tt.args...)
			require.Equal(t, 0, code, "stderr: %s", stderr)
			require.Empty(t, stderr)
			require.Equal(t, tt.stdout, lines(stdout))
		})
	}
}

func TestRunSet(t *testing.T) {
	code, stdout, stderr := cli("run", "testdata/switch.lua", "--ticks", "1", "--trace", "--json",
		"--set", "go=true", "--set", "speed=2.5", "--set", "name=alice")
	require.Equal(t, 0, code, stderr)
	got := jsonLines(t, stdout)
	require.Len(t, got, 2)
	require.Equal(t, map[string]any{"tick": 1.0, "agent": 1.0, "from": "idle", "to": "moving", "kind": "to"}, got[0])
	require.Equal(t, "moving", got[1]["state"])
	require.Equal(t, map[string]any{"go": true, "speed": 2.5, "name": "alice"}, got[1]["ctx"])

	// A later --set of the same key wins; = after the first is the value's.
	code, stdout, _ = cli("run", "testdata/switch.lua", "--ticks", "1", "--trace", "--set", "name=a", "--set", "name=b=c")
	require.Equal(t, 0, code)
	require.Equal(t, []string{`tick 1 agent 1 state idle ctx {"go":false,"name":"b=c","speed":1}`}, lines(stdout))

	// The rule: a known key (with the nearest suggested), a dotted path into
	// a table, the default's type.
	dir := t.TempDir()
	script := filepath.Join(dir, "nested.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm { initial = "s", context = { target = { distance = 10, name = "wolf" }, code = "000", hp = 3 },
  states = { s = {} } }`), 0o644))
	code, stdout, stderr = cli("run", script, "--ticks", "1", "--trace", "--set", "target.distance=2.5", "--set", "code=007", "--set", "hp=0x10")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{`tick 1 agent 1 state s ctx {"code":"007","hp":16,"target":{"distance":2.5,"name":"wolf"}}`}, lines(stdout))
	for _, tc := range []struct{ set, msg string }{
		{"hpp=1", `--set hpp: "hpp" is not a key of the context (did you mean "hp"?)`},
		{"target.distanse=1", `--set target.distanse: "target.distanse" is not a key of the context (did you mean "target.distance"?)`},
		{"hp.x=1", `--set hp.x: "hp" is a number, not a table`},
		{"hp=many", `--set hp=many: the default is a number, got the string "many"`},
		{"target=3", `--set target=3: the default is a table, got the number 3`},
		{"nothing=1", `--set nothing: "nothing" is not a key of the context`},
	} {
		code, _, stderr = cli("run", script, "--ticks", "1", "--set", tc.set)
		require.Equal(t, 2, code, tc.set)
		require.Contains(t, stderr, "luaai run: "+tc.msg+"\n", tc.set)
	}
}

// decodeValue reads a value as its default wants it; what it cannot read
// so stays text, which the rule then refuses (TestRunSet).
func TestDecodeValue(t *testing.T) {
	tests := []struct {
		in   string
		def  any
		want any
	}{
		{"1", 0.0, 1.0},
		{"-2.5", 0.0, -2.5},
		{"1e3", 0.0, 1000.0},
		{".5", 0.0, 0.5},
		{"0x10", 0.0, 16.0},
		{"-0x10", 0.0, -16.0},
		{"007", 0.0, 7.0},
		{"007", "", "007"},
		{`"007"`, "", "007"},
		{"true", false, true},
		{"false", true, false},
		{"True", true, "True"},
		{"yes", "", "yes"},
		{"", "", ""},
		{"inf", 0.0, "inf"},
		{"NaN", 0.0, "NaN"},
		{"1e999", 0.0, "1e999"},
		{"1_000", 0.0, "1_000"},
		{"0xZZ", 0.0, "0xZZ"},
		{"hello world", "", "hello world"},
		{"[1,2]", []any{}, []any{1.0, 2.0}},
		{`{"a":1}`, map[string]any{}, map[string]any{"a": 1.0}},
		{"3", "", "3"},
		{"3", map[string]any{}, 3.0}, // {} takes any value: JSON where it parses
		{"3", false, 3.0},            // so does false
		{"wolf", false, "wolf"},      // else the text
		{`{"x":1}`, false, map[string]any{"x": 1.0}},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, decodeValue(tt.in, tt.def), "decodeValue(%q, %T)", tt.in, tt.def)
	}
}

func TestRunTraceJSONEveryLine(t *testing.T) {
	code, stdout, stderr := cli("run", "testdata/guard.lua", "--agents", "2", "--ticks", "3", "--trace", "--json")
	require.Equal(t, 0, code, stderr)
	got := jsonLines(t, stdout)
	var traces []map[string]any
	for _, m := range got {
		if _, ok := m["ctx"]; ok {
			traces = append(traces, m)
		}
	}
	require.Len(t, traces, 6) // 3 ticks × 2 agents
	for i, m := range traces {
		require.Equal(t, float64(i/2+1), m["tick"])
		require.Equal(t, float64(i%2+1), m["agent"])
		require.Equal(t, map[string]any{"n": float64(i/2 + 1)}, m["ctx"])
	}
	require.Equal(t, "combat.attack", traces[4]["state"])
}

func TestRunCallbackError(t *testing.T) {
	code, stdout, stderr := cli("run", "testdata/failing.lua", "--ticks", "6")
	require.Equal(t, 1, code)
	require.Equal(t, []string{"tick 2 error: testdata/failing.lua:11: boom (agent 1, state a, update)", "1 error, 1 distinct, 1 agent"}, lines(stderr))
	// The run goes on to its end.
	require.Equal(t, []string{"tick 4 agent 1 a -> b"}, lines(stdout))

	code, stdout, stderr = cli("run", "testdata/failing.lua", "--ticks", "6", "--json")
	require.Equal(t, 1, code)
	require.Equal(t, []string{"tick 2 error: testdata/failing.lua:11: boom (agent 1, state a, update)", "1 error, 1 distinct, 1 agent"}, lines(stderr))
	require.Equal(t, []string{
		`{"tick":2,"agent":1,"error":"testdata/failing.lua:11: boom","state":"a","callback":"update"}`,
		`{"tick":4,"agent":1,"from":"a","to":"b","kind":"to"}`,
	}, lines(stdout))
}

// --budget sets how long one callback may run.
func TestRunBudgetFlag(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "slow.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function() while true do end end } } }`), 0o644))
	code, _, stderr := cli("run", script, "--ticks", "1", "--budget", "20ms")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "slow.lua:2: callback ran past its 20ms budget (agent 1, state s, update)")
}

func TestRunLoadErrors(t *testing.T) {
	tests := []struct {
		name   string
		script string
		stderr string
	}{
		{"syntax error", "testdata/syntax.lua", "testdata/syntax.lua:5: ',' or '}' expected near 'states' (a comma missing after line 4?)"},
		{"invalid definition", "testdata/invalid.lua", `testdata/invalid.lua:6: state "a": transition to "nowhere"`},
		{"missing file", "testdata/nope.lua", "testdata/nope.lua: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli("run", tt.script, "--json")
			require.Equal(t, 1, code)
			// In --json mode the errors are also JSON lines on stdout.
			require.True(t, strings.HasPrefix(stdout, `{"tick":0,"error":`), "stdout: %s", stdout)
			require.True(t, strings.HasPrefix(stderr, tt.stderr), "stderr: %s", stderr)
		})
	}
}

func TestRunUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"missing script", []string{"run"}, "missing SCRIPT"},
		{"counts for other scripts", []string{"run", "testdata/guard.lua", "testdata/stack.lua", "--agents", "1,2,3"}, "--agents gives 3 counts for 2 scripts"},
		{"record into a missing folder", []string{"run", "testdata/guard.lua", "testdata/stack.lua", "--record", "no/such/x.jsonl"}, "--record no/such/x.jsonl: folder no/such does not exist"},
		{"unknown flag", []string{"run", "testdata/guard.lua", "--bogus"}, "unknown flag --bogus"},
		{"ticks not a number", []string{"run", "testdata/guard.lua", "--ticks", "many"}, `invalid value "many" for --ticks`},
		{"negative ticks", []string{"run", "testdata/guard.lua", "--ticks", "-1"}, "--ticks must be ≥ 0"},
		{"zero agents", []string{"run", "testdata/guard.lua", "--agents", "0"}, `want a count from 1 to 1000000, or one per script (1,3), got "0"`},
		{"negative dt", []string{"run", "testdata/guard.lua", "--dt", "-0.1"}, "--dt must be a finite number ≥ 0"},
		{"NaN dt", []string{"run", "testdata/guard.lua", "--dt", "NaN"}, "--dt must be a finite number ≥ 0"},
		{"infinite dt", []string{"run", "testdata/guard.lua", "--dt", "+Inf"}, "--dt must be a finite number ≥ 0"},
		{"zero hz", []string{"run", "testdata/guard.lua", "--hz", "0"}, "--hz must be a number > 0"},
		{"negative hz", []string{"run", "testdata/guard.lua", "--hz", "-5"}, "--hz must be a number > 0"},
		{"tiny hz", []string{"run", "testdata/guard.lua", "--hz", "1e-10"}, "--hz must be between 0.001 and 1000000"},
		{"huge hz", []string{"run", "testdata/guard.lua", "--hz", "1e12"}, "--hz must be between 0.001 and 1000000"},
		{"budget not a duration", []string{"run", "testdata/guard.lua", "--budget", "50"}, `invalid value "50" for --budget: want a duration such as 50ms or 1s, or off`},
		{"zero budget", []string{"run", "testdata/guard.lua", "--budget", "0s"}, `must be more than 0 (or off)`},
		{"negative seed", []string{"run", "testdata/guard.lua", "--seed", "-1"}, `invalid value "-1" for --seed`},
		{"set without =", []string{"run", "testdata/guard.lua", "--set", "go"}, `invalid value "go" for --set: want key=value`},
		{"set without key", []string{"run", "testdata/guard.lua", "--set", "=1"}, `invalid value "=1" for --set`},
		{"flag without value", []string{"run", "testdata/guard.lua", "--ticks"}, "--ticks needs a value"},
		{"misspelt flag", []string{"run", "testdata/guard.lua", "--tick", "3"}, "unknown flag --tick (did you mean --ticks?)"},
		{"too many agents", []string{"run", "testdata/guard.lua", "--agents", "1000000000"}, `want a count from 1 to 1000000, or one per script (1,3), got "1000000000"`},
		{"load with agents", []string{"run", "testdata/guard.lua", "--load", "x.json", "--agents", "2"}, "--agents cannot be used with --load"},
		{"load with set", []string{"run", "testdata/guard.lua", "--set", "a=1", "--load", "x.json"}, "--set cannot be used with --load"},
		{"empty save", []string{"run", "testdata/guard.lua", "--save", ""}, "--save needs a file name"},
		{"empty load", []string{"run", "testdata/guard.lua", "--load="}, "--load needs a file name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(tt.args...)
			require.Equal(t, 2, code)
			require.Empty(t, stdout)
			require.Contains(t, stderr, tt.msg)
			// One line of what is wrong, and where the usage is: not the
			// whole help.
			require.Equal(t, []string{"luaai run: " + lines(stderr)[0][len("luaai run: "):], "Run 'luaai run --help' for the usage."}, lines(stderr))
		})
	}
}

func TestRunDtAndHz(t *testing.T) {
	// The root's clock is visible through ai.time() in an update hook.
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"default dt", nil, `{"t":0.3}`},
		{"dt", []string{"--dt", "0.5"}, `{"t":1.5}`},
		{"hz sets dt", []string{"--hz", "500"}, `{"t":0.006}`},
		{"dt wins over hz", []string{"--hz", "500", "--dt", "1"}, `{"t":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "testdata/clock.lua", "--ticks", "3", "--trace"}, tt.args...)
			code, stdout, stderr := cli(args...)
			require.Equal(t, 0, code, stderr)
			l := lines(stdout)
			require.Len(t, l, 3)
			require.Equal(t, "tick 3 agent 1 state a ctx "+tt.want, l[2])
		})
	}
}

func TestRunSeed(t *testing.T) {
	_, a, _ := cli("run", "testdata/dice.lua", "--ticks", "3", "--trace", "--agents", "2", "--seed", "7")
	_, b, _ := cli("run", "testdata/dice.lua", "--ticks", "3", "--trace", "--agents", "2", "--seed", "7")
	_, c, _ := cli("run", "testdata/dice.lua", "--ticks", "3", "--trace", "--agents", "2", "--seed", "8")
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)
	require.Len(t, lines(a), 6)
}

type point struct{ X, Y int }

func (p point) String() string { return fmt.Sprintf("(%d,%d)", p.X, p.Y) }

func TestJSONValue(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	ud := L.NewUserData()
	ud.Value = point{1, 2}
	holes := L.NewTable()
	holes.RawSetInt(1, lua.LString("a"))
	holes.RawSetInt(3, lua.LString("c"))
	mixed := L.NewTable()
	mixed.RawSetInt(1, lua.LTrue)
	mixed.RawSetString("k", lua.LFalse)
	mixed.RawSet(lua.LTrue, lua.LNumber(1))
	mixed.RawSet(lua.LNumber(2.5), lua.LNumber(2))
	ctx := L.NewTable()
	ctx.RawSetString("body", ud)
	ctx.RawSetString("fn", L.NewFunction(func(*lua.LState) int { return 0 }))
	ctx.RawSetString("nan", lua.LNumber(math.NaN()))
	ctx.RawSetString("inf", lua.LNumber(math.Inf(1)))
	ctx.RawSetString("ninf", lua.LNumber(math.Inf(-1)))
	ctx.RawSetString("holes", holes)
	ctx.RawSetString("mixed", mixed)
	ctx.RawSetString("empty", L.NewTable())
	ctx.RawSetString("shared1", holes) // shared, not a cycle: printed twice
	ctx.RawSetString("html", lua.LString("<a & b>"))

	got := plainjson.Safe(luaval.ToGo(ctx))
	b, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, `{
		"body": "(1,2)", "fn": "function", "nan": "nan", "inf": "inf", "ninf": "-inf",
		"holes": {"1": "a", "3": "c"}, "shared1": {"1": "a", "3": "c"},
		"mixed": {"1": true, "k": false, "true": 1, "2.5": 2},
		"empty": {}, "html": "<a & b>"
	}`, string(b))
}

// ticksFrom keeps the lines of text output whose tick is ≥ from.
func ticksFrom(t *testing.T, out []string, from int) []string {
	t.Helper()
	var kept []string
	for _, l := range out {
		var n int
		_, err := fmt.Sscanf(l, "tick %d ", &n)
		require.NoError(t, err, "line %q", l)
		if n >= from {
			kept = append(kept, l)
		}
	}
	return kept
}

func TestRunSaveLoadContinues(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		snapHas string // in the snapshot
	}{
		{"one agent", []string{"testdata/wander.lua", "--trace"}, `"ticks":10`},
		{"several agents, seeded", []string{"testdata/wander.lua", "--trace", "--agents", "4", "--seed", "9"}, `"id":4`},
		{"a state pushed at the save", []string{"testdata/wander.lua", "--trace", "--agents", "3", "--seed", "5"}, `"stack":["walk","look"]`},
		{"another dt", []string{"testdata/stack.lua", "--trace", "--dt", "0.05"}, `"ctx":{"n":9}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := filepath.Join(t.TempDir(), "snap.json")
			code, full, stderr := cli(append([]string{"run", "--ticks", "20"}, tt.args...)...)
			require.Equal(t, 0, code, stderr)

			code, first, stderr := cli(append([]string{"run", "--ticks", "10", "--save", snap}, tt.args...)...)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, ticksFrom(t, lines(full), 0)[:len(lines(first))], lines(first))
			data, err := os.ReadFile(snap)
			require.NoError(t, err)
			require.Contains(t, string(data), tt.snapHas)

			// --agents and --seed are not allowed or not needed with --load.
			args := []string{"run", tt.args[0], "--load", snap, "--ticks", "10", "--trace"}
			if slices.Contains(tt.args, "--dt") {
				args = append(args, "--dt", "0.05")
			}
			code, second, stderr := cli(args...)
			require.Equal(t, 0, code, stderr)
			require.NotEmpty(t, lines(second))
			require.Equal(t, ticksFrom(t, lines(full), 11), lines(second))
		})
	}
}

func TestRunSaveLoadJSON(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "snap.json")
	code, _, stderr := cli("run", "testdata/wander.lua", "--ticks", "10", "--save", snap, "--json")
	require.Equal(t, 0, code, stderr)
	var doc struct {
		Version int
		Agents  []struct{ ID, Ticks int }
	}
	data, err := os.ReadFile(snap)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Equal(t, 1, doc.Version)
	require.Len(t, doc.Agents, 1)
	require.Equal(t, 10, doc.Agents[0].Ticks)

	code, stdout, stderr := cli("run", "testdata/wander.lua", "--load", snap, "--ticks", "3", "--trace", "--json")
	require.Equal(t, 0, code, stderr)
	var ticks []float64
	for _, m := range jsonLines(t, stdout) {
		if _, ok := m["ctx"]; ok {
			ticks = append(ticks, m["tick"].(float64))
		}
	}
	require.Equal(t, []float64{11, 12, 13}, ticks)

	// Saving over an existing snapshot replaces it whole and leaves no
	// temporary file behind.
	code, _, stderr = cli("run", "testdata/wander.lua", "--load", snap, "--ticks", "5", "--save", snap)
	require.Equal(t, 0, code, stderr)
	data, err = os.ReadFile(snap)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	require.Equal(t, 15, doc.Agents[0].Ticks)
	entries, err := os.ReadDir(filepath.Dir(snap))
	require.NoError(t, err)
	require.Len(t, entries, 1)
}

func TestRunLoadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	guardSnap := filepath.Join(dir, "guard.json")
	code, _, stderr := cli("run", "testdata/guard.lua", "--ticks", "2", "--save", guardSnap)
	require.Equal(t, 0, code, stderr)

	tests := []struct {
		name   string
		script string
		file   string
		msg    string
	}{
		{"not JSON", "testdata/guard.lua", write("garbage.json", "garbage\x00\xff"), "bad snapshot"},
		{"empty file", "testdata/guard.lua", write("empty.json", ""), "bad snapshot"},
		{"truncated", "testdata/guard.lua", write("truncated.json", `{"version":1,"agents":[{"id":1,`), "bad snapshot"},
		{"another version", "testdata/guard.lua", write("v99.json", `{"version":99,"agents":[]}`), "version 99"},
		{"unknown field", "testdata/guard.lua", write("field.json", `{"version":1,"agents":[],"extra":1}`), "bad snapshot"},
		{"another behaviour", "testdata/stack.lua", guardSnap, "bad snapshot"},
		{"bad rng", "testdata/guard.lua", write("rng.json", `{"version":1,"agents":[{"id":1,"behaviour":"x","ticks":0,"clock":0,"rng":"!!","ctx":{},"states":{},"machines":{}}]}`), "rng"},
		{"missing file", "testdata/guard.lua", filepath.Join(dir, "nope.json"), "no such file"},
		{"a folder", "testdata/guard.lua", dir, "not a regular file (a folder)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli("run", tt.script, "--load", tt.file)
			require.Equal(t, 1, code, stderr)
			require.Empty(t, stdout)
			require.Contains(t, stderr, tt.file)
			require.Contains(t, stderr, tt.msg)
			require.NotContains(t, stderr, "panic")
			require.Equal(t, 1, len(lines(stderr)), stderr)
		})
	}
}

func TestRunSaveErrors(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "needs.json")
	// A function in the context cannot be saved: nothing is written.
	code, stdout, stderr := cli("run", "testdata/needs.lua", "--ticks", "4", "--save", snap)
	require.Equal(t, 1, code)
	require.Contains(t, stdout, "tick") // the run itself went to its end
	require.Contains(t, stderr, "--save "+snap)
	require.Contains(t, stderr, "ctx.f")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)

	// A folder that does not exist is refused before the run starts.
	code, stdout, stderr = cli("run", "testdata/guard.lua", "--ticks", "1", "--save", filepath.Join(dir, "no", "such", "dir.json"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "dir.json: folder")
	require.Contains(t, stderr, "does not exist")
	require.NotContains(t, stdout, "tick")
}

func TestRunPrint(t *testing.T) {
	// print() is in order with the text output on stdout; in --json mode it
	// goes to stderr so that stdout stays JSON.
	code, stdout, stderr := cli("run", "testdata/print.lua", "--ticks", "2")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	require.Equal(t, []string{"n is\t1", "tick 2 agent 1 a -> b"}, lines(stdout))

	code, stdout, stderr = cli("run", "testdata/print.lua", "--ticks", "2", "--json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{"n is\t1"}, lines(stderr))
	require.Len(t, jsonLines(t, stdout), 1)
}

func TestRunJSONLoadErrorOnStdout(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"run", "testdata/check/errors.lua", "--json"}, &out, &errOut)
	require.Equal(t, exitFail, code)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.NotEmpty(t, lines)
	for _, l := range lines {
		var v struct {
			Tick  int    `json:"tick"`
			Error string `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &v), l)
		require.Contains(t, v.Error, "errors.lua:")
	}
	require.Contains(t, errOut.String(), "errors.lua:")
}

// Text a script chooses (ai.log, error messages) cannot forge output lines:
// line breaks are escaped in text mode.
func TestRunEscapesScriptText(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "forge.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function()
  ai.log("hi\ntick 9 agent 9 a -> b") error("bad\ntick 9 agent 9 x -> y\r\0")
end } } }`), 0o644))
	code, stdout, stderr := cli("run", script, "--ticks", "1")
	require.Equal(t, 1, code)
	require.Equal(t, []string{`tick 1 agent 1 log: hi\ntick 9 agent 9 a -> b`}, lines(stdout))
	require.Equal(t, []string{`tick 1 error: ` + script + `:3: bad\ntick 9 agent 9 x -> y\r\x00 (agent 1, state s, update)`, "1 error, 1 distinct, 1 agent"}, lines(stderr))
}

// A typo in a field name is legal Lua: every load says what luaai check
// says, with a suggestion; --strict refuses to run.
func TestRunPrintsWarnings(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "typo.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "walk",
  states = {
    walk = { udpate = function(ctx) end, transitions = { { to = "walk", whne = true } } },
  },
}`), 0o644))
	want := []string{
		script + `:5: warning: state "walk": transition 1: unknown field "whne" (did you mean "when"?)`,
		script + `:5: warning: state "walk": unknown field "udpate" (did you mean "update"?)`,
	}
	code, _, stderr := cli("run", script, "--ticks", "1")
	require.Equal(t, 0, code, stderr)
	require.ElementsMatch(t, want, lines(stderr))

	code, _, stderr = cli("run", script, "--ticks", "1", "--strict")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, want[1])
	require.Contains(t, stderr, "luaai run: --strict: 2 warnings in "+script)
}

// --trace shows the whole stack: the states paused under the active one.
func TestRunTraceShowsStack(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "stack.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm { initial = "patrol", states = {
  patrol = { transitions = { { push = "look", when = function() return true end } } },
  look = ai.fsm { initial = "near", states = {
    near = { transitions = { { push = "far", when = function() return true end } } },
    far = {},
  } },
} }`), 0o644))
	code, stdout, stderr := cli("run", script, "--ticks", "2", "--trace")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "tick 2 agent 1 state look.far paused patrol,look.near ctx {}")
	code, stdout, _ = cli("run", script, "--ticks", "2", "--trace", "--json")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, `{"tick":2,"agent":1,"state":"look.far","paused":["patrol","look.near"],"ctx":{}}`)
}

// luaai version names luaai's, Go's and gopher-lua's versions; it takes no
// arguments.
func TestVersion(t *testing.T) {
	code, stdout, _ := cli("version")
	require.Equal(t, exitOK, code)
	require.Regexp(t, `^luaai \S+ \(go1\.\d+\S*, gopher-lua \S+, gopher-luar \S+\)\n$`, stdout)
	code, _, stderr := cli("version", "x")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "version takes no arguments")
	code, stdout, _ = cli("help", "version")
	require.Equal(t, exitOK, code)
	require.Contains(t, stdout, "Usage: luaai version")
}

// --trace says when an event was dropped: no transition took it.
func TestTraceDroppedEvents(t *testing.T) {
	script := writeTemp(t, "drop.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", states = {
  a = { enter = function() ai.send("noise") end, transitions = { { to = "b", on = "go" } } }, b = {} } }`)
	code, stdout, stderr := cli("run", script, "--ticks", "2", "--trace")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{
		"tick 1 agent 1 event noise from agent 1 dropped: no transition took it (state a)",
		"tick 1 agent 1 state a ctx {}",
		"tick 2 agent 1 state a ctx {}",
	}, lines(stdout))
	_, stdout, _ = cli("run", script, "--ticks", "1", "--trace", "--json")
	require.Contains(t, stdout, `{"tick":1,"agent":1,"dropped":"noise","state":"a","sender":1}`)
	_, stdout, _ = cli("run", script, "--ticks", "1")
	require.NotContains(t, stdout, "dropped", "only with --trace")
}

// A tree's finish is one line with --trace (no "dropped" line for the
// event it sends), and none in the terminal with --inspect alone: the page
// shows it.
func TestTraceTreeFinishOnce(t *testing.T) {
	script := writeTemp(t, "tree.lua", `local ai = require("luaai")
return ai.fsm { initial = "work", context = { n = 0 }, states = {
  work = ai.tree { root = ai.action(function(ctx) ctx.n = ctx.n + 1 return "success" end) } } }`)
	code, stdout, stderr := cli("run", script, "--ticks", "3", "--trace")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 3, strings.Count(stdout, "the tree finished: tree:success sent"), stdout)
	require.NotContains(t, stdout, "dropped")
	r, _ := startInspected(t, script, "--hz", "50", "--ticks", "5")
	r.waitFor(t, "5 ticks", func(_, stderr string) bool { return strings.Contains(stderr, "paused after 5 ticks") })
	r.stop(t)
	require.NotContains(t, r.stdout.String(), "the tree finished")
}

// --trace-changes prints an agent's line only when its state or context
// changed, with the keys that changed.
func TestTraceChanges(t *testing.T) {
	script := writeTemp(t, "count.lua", `local ai = require("luaai")
return ai.fsm { initial = "a", context = { n = 0, still = 1 }, states = {
  a = { update = function(ctx) if ai.time() < 0.25 then ctx.n = ctx.n + 1 end end, transitions = { { to = "b", after = 0.4 } } },
  b = { enter = function(ctx) ctx.still = nil end } } }`)
	code, stdout, stderr := cli("run", script, "--ticks", "7", "--trace-changes")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{
		`tick 1 agent 1 state a ctx {"n":1,"still":1}`,
		`tick 2 agent 1 state a ctx {"n":2}`, // ticks 3 and 4 change nothing: no line
		"tick 4 agent 1 a -> b",
		`tick 4 agent 1 state b ctx {"still":null}`,
	}, lines(stdout))
}

// --trace 1,5 traces those agents only.
func TestTraceSomeAgents(t *testing.T) {
	for _, args := range [][]string{{"--trace", "2,3"}, {"--trace=2,3"}} {
		code, stdout, stderr := cli(append([]string{"run", "testdata/guard.lua", "--agents", "3", "--ticks", "1"}, args...)...)
		require.Equal(t, 0, code, stderr)
		var traced []string
		for _, l := range lines(stdout) {
			if strings.Contains(l, " state ") {
				traced = append(traced, strings.Fields(l)[3])
			}
		}
		require.Equal(t, []string{"2", "3"}, traced, args)
	}
	code, _, stderr := cli("run", "testdata/guard.lua", "--trace=0")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `want agent ids (--trace 1,5), got "0"`)
}

// Several scripts in one host: ids in the order given, a count of agents
// for each, --set reaching the scripts whose context has the key, messages
// between them, and a save that loads back with both.
func TestRunSeveralScripts(t *testing.T) {
	dir := t.TempDir()
	leader := filepath.Join(dir, "leader.lua")
	guard := filepath.Join(dir, "guard.lua")
	require.NoError(t, os.WriteFile(leader, []byte(`local ai = require("luaai")
return ai.fsm { initial = "lead", context = { orders = 0 }, states = {
  lead = { update = function(ctx) ctx.orders = ctx.orders + 1 ai.send_to(3, "advance") end },
} }`), 0o644))
	require.NoError(t, os.WriteFile(guard, []byte(`local ai = require("luaai")
return ai.fsm { initial = "hold", context = { hp = 3 }, states = {
  hold = { transitions = { { to = "advance", on = "advance" } } },
  advance = {},
} }`), 0o644))
	save := filepath.Join(dir, "save.json")
	code, stdout, stderr := cli("run", leader, guard, "--agents", "1,2", "--ticks", "2", "--set", "hp=5", "--trace", "--save", save)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{
		`tick 1 agent 1 state lead ctx {"orders":1}`,
		`tick 1 agent 2 state hold ctx {"hp":5}`,
		`tick 1 agent 3 state hold ctx {"hp":5}`,
		"tick 2 agent 3 hold -> advance on advance from agent 1",
		`tick 2 agent 1 state lead ctx {"orders":2}`,
		`tick 2 agent 2 state hold ctx {"hp":5}`,
		`tick 2 agent 3 state advance ctx {"hp":5}`,
	}, lines(stdout))

	code, stdout, stderr = cli("run", leader, guard, "--ticks", "1", "--load", save, "--trace")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, `tick 3 agent 1 state lead ctx {"orders":3}`)
	require.Contains(t, stdout, `tick 3 agent 3 state advance ctx {"hp":5}`)

	code, _, stderr = cli("run", leader, guard, "--agents", "2", "--ticks", "1", "--set", "hpp=1")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `--set hpp: "hpp" is not a key of any script's context`)
	code, stdout, _ = cli("run", leader, guard, "--agents", "2", "--ticks", "1", "--trace")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "agent 4 state hold", "one count for all: two of each")
}

// --profile prints the callbacks by time after the run (a JSON line with
// --json).
func TestRunProfile(t *testing.T) {
	code, _, stderr := cli("run", "../../scripts/hunter.lua", "--agents", "20", "--ticks", "20", "--set", "prey_x=3", "--profile")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^profile: 20 ticks, [0-9.]+ ms in them: Lua callbacks [0-9.]+ ms \(\d+%\), natives [0-9.]+ ms \(\d+%\), the engine [0-9.]+ ms \(-?\d+%\)$`, stderr)
	require.Regexp(t, `(?m)^ +\d+ +[0-9.]+ +[0-9.]+  action +\.\./\.\./scripts/hunter\.lua:\d+ \(combat\)$`, stderr)

	code, stdout, stderr := cli("run", "../../scripts/hunter.lua", "--agents", "2", "--ticks", "5", "--profile", "--json")
	require.Equal(t, 0, code, stderr)
	last := lines(stdout)[len(lines(stdout))-1]
	require.Contains(t, last, `{"profile":{"ticks":5,`)
	require.Contains(t, last, `"callback":"steps","state":"roam"`)
}

// The profile's top row is the one slow callback of a script whose other
// callbacks are cheap.
func TestRunProfileNamesTheSlowCallback(t *testing.T) {
	script := filepath.Join(t.TempDir(), "slow.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "work",
  context = { n = 0, total = 0 },
  states = {
    work = {
      enter = function(ctx) ctx.n = 0 end,
      update = function(ctx)
        local s = 0
        for i = 1, 20000 do s = s + i % 7 end
        ctx.total = s
      end,
      exit = function(ctx) ctx.n = ctx.n + 1 end,
      transitions = { { to = "rest", on = "tired", run = function(ctx) ctx.n = 1 end } },
    },
    rest = { update = function(ctx) ctx.n = ctx.n + 1 end },
  },
}`), 0o644))
	// No budget: under the race detector on a busy machine the loop can
	// cost more than 50ms of CPU, and a stopped call is not what this reads.
	code, _, stderr := cli("run", script, "--agents", "5", "--ticks", "10", "--profile", "--budget", "off")
	require.Equal(t, 0, code, stderr)
	rows := lines(stderr[strings.Index(stderr, "callback  where (state)"):])
	require.Regexp(t, `^ +50 +[0-9.]+ +[0-9.]+  update +`+regexp.QuoteMeta(script)+`:8 \(work\)$`, rows[1])
}
