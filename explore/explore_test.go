package explore_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/explore"
	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/luatest"
	"github.com/stretchr/testify/require"
)

// opts are a search bounded by runs, so a test is the same on every
// machine, busy or not (the duration is only a safety net: an hour, past
// go test's own timeout; two minutes cut the shortening of a finding on a
// busy machine).
func opts(agents int, seed uint64) explore.Options {
	return explore.Options{Duration: time.Hour, Runs: 5_000, Stale: 20_000, Agents: agents, SearchSeed: seed}
}

// Each planted fault is found, shortened, written as a test, and that
// test fails when luaai test's runner runs it.
func TestFindsPlantedFaults(t *testing.T) {
	cases := []struct {
		script string
		agents int
		line   int
		state  string
		inputs string // the shortest inputs
		msg    string
	}{
		{"timing.lua", 1, 18, "sprung", "send arm; 20 ticks of 0.1 s; send trigger; 1 tick of 0.1 s", "attempt to index a non-table object(boolean) with key 'hits'"},
		{"threshold.lua", 1, 17, "venting", "set heat = 75.01; 1 tick of 0.1 s", "(ctx.pressure is nil)"},
		{"message.lua", 2, 33, "answered", "", "(ctx.log is nil)"},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, c.script)
			copyFile(t, filepath.Join("testdata", c.script), script)
			rep, err := explore.Run(context.Background(), script, opts(c.agents, 1))
			require.NoError(t, err)
			f := findingAt(rep, c.line)
			require.NotNil(t, f, "no failure at line %d: %+v", c.line, rep.Findings)
			require.Equal(t, explore.KindError, f.Kind)
			require.Equal(t, c.state, f.State)
			require.Equal(t, "enter", f.Callback)
			require.Contains(t, f.Message, c.msg)
			require.True(t, f.Fresh)
			if c.inputs != "" {
				require.Equal(t, c.inputs, f.Words)
			}
			path, err := rep.WriteTest(dir)
			require.NoError(t, err)
			require.Equal(t, filepath.Join(dir, strings.TrimSuffix(c.script, ".lua")+"_explore_test.lua"), path)
			for _, g := range rep.Findings {
				require.True(t, g.Verified, "the test of %s does not fail by itself", g.Message)
			}
			// The whole file, as luaai test runs it: every test fails,
			// with the failure's message.
			var out strings.Builder
			res := runTests(t, path, &out)
			require.Equal(t, luatest.Result{Failed: len(rep.Findings)}, res, out.String())
			require.Contains(t, out.String(), c.msg)
			// Fixed, the tests pass.
			fixed := strings.NewReplacer(
				"ctx.report.hits = 1", "ctx.report = { hits = 1 }",
				"* ctx.pressure", "* (ctx.pressure or 1)",
				"ctx.log[#ctx.log + 1]", "ctx.log = ctx.log or {}; ctx.log[#ctx.log + 1]",
			).Replace(readFile(t, script))
			require.NoError(t, os.WriteFile(script, []byte(fixed), 0o644))
			out.Reset()
			res = runTests(t, path, &out)
			require.Zero(t, res.Failed-countOther(rep, c.line), out.String())
		})
	}
}

// countOther is how many findings are not the planted one (message.lua's
// buddy may be set to something that is no id: a failure of its own).
func countOther(rep *explore.Report, line int) int {
	n := 0
	for _, f := range rep.Findings {
		if f.Line != line {
			n++
		}
	}
	return n
}

func findingAt(rep *explore.Report, line int) *explore.Finding {
	for _, f := range rep.Findings {
		if f.Line == line {
			return f
		}
	}
	return nil
}

func runTests(t *testing.T, path string, w io.Writer) luatest.Result {
	t.Helper()
	h, err := host.New(host.Options{Roots: []string{filepath.Dir(path), "."}, Budget: 5 * time.Second})
	require.NoError(t, err)
	defer h.Close()
	res, err := luatest.RunFile(h, path, w, luatest.Options{})
	require.NoError(t, err)
	res.Cases = nil // the counts are compared
	return res
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, os.WriteFile(to, []byte(readFile(t, from)), 0o644))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// A reached state nothing leads out of is a dead end unless it is final;
// a transition never taken, a state never entered and a tree node never
// ticked are listed as never reached.
func TestDeadEndsAndUnreached(t *testing.T) {
	rep, err := explore.Run(context.Background(), "testdata/deadend.lua", opts(1, 1))
	require.NoError(t, err)
	require.Empty(t, rep.Findings)
	require.Equal(t, []explore.DeadEnd{{Path: "jammed", File: "testdata/deadend.lua", Line: 18}}, rep.DeadEnds)
	var never []string
	for _, it := range rep.Unreached() {
		never = append(never, it.Kind.String()+" "+it.Name)
	}
	require.Equal(t, []string{
		"transition shut: to broken when fn@testdata/deadend.lua:13",
		"state broken",
		"tree node alarm[selector.action#2]",
	}, never)
	require.Contains(t, rep.Tried.Events, "push")
	require.Contains(t, rep.Tried.Events, "alarm")
	require.Equal(t, []string{"force"}, rep.Tried.Fields)
}

// A runaway is an overrun at its line, shortened to the input that
// causes it; the suspension that follows three of them is not a second
// finding.
func TestFindsARunaway(t *testing.T) {
	o := opts(1, 1)
	o.Runs = 200
	o.Host.BudgetSteps = 100_000
	rep, err := explore.Run(context.Background(), "testdata/runaway.lua", o)
	require.NoError(t, err)
	require.Len(t, rep.Findings, 1, "%+v", rep.Findings)
	f := rep.Findings[0]
	require.Equal(t, explore.KindOverrun, f.Kind)
	require.Equal(t, 11, f.Line)
	require.Contains(t, f.Message, "100000-instruction budget")
	require.Len(t, f.Inputs, 2) // set target below 0; 1 tick
	require.True(t, strings.HasPrefix(f.Words, "set target = -"), f.Words)
}

// The same seed tries the same sequences: two searches bounded by runs
// report the same.
func TestSameSeedSameReport(t *testing.T) {
	o := opts(2, 7)
	o.Runs = 1000 // finds the planted fault and tells two seeds apart; more only lengthen the -race run
	a, err := explore.Run(context.Background(), "testdata/message.lua", o)
	require.NoError(t, err)
	b, err := explore.Run(context.Background(), "testdata/message.lua", o)
	require.NoError(t, err)
	require.NotEmpty(t, a.Findings, "the search meets the planted fault")
	require.Equal(t, a.Runs, b.Runs)
	require.Equal(t, a.Parts, b.Parts)
	require.Equal(t, a.Tried, b.Tried)
	require.Equal(t, len(a.Findings), len(b.Findings))
	for i := range a.Findings {
		require.Equal(t, a.Findings[i].Words, b.Findings[i].Words)
		require.Equal(t, a.Findings[i].FoundAfter, b.Findings[i].FoundAfter)
	}
	o.SearchSeed = 8
	c, err := explore.Run(context.Background(), "testdata/message.lua", o)
	require.NoError(t, err)
	require.NotEqual(t, a.Tried, c.Tried, "another seed tries other inputs")
}

// The shipped scripts' behaviours run clean under the search, with no
// dead end (the soldier's death is final = true).
func TestShippedScriptsRunClean(t *testing.T) {
	for _, s := range []string{"guard.lua", "hunter.lua", "sentry.lua", "gatherer.lua", "wanderer.lua", "soldier.lua"} {
		t.Run(s, func(t *testing.T) {
			o := opts(1, 1)
			o.Runs = 3000
			rep, err := explore.Run(context.Background(), filepath.Join("..", "scripts", s), o)
			require.NoError(t, err)
			for _, f := range rep.Findings {
				t.Errorf("%s: %s", f.Message, f.Words)
			}
			require.Empty(t, rep.DeadEnds)
		})
	}
}

// A script that does not load is an error naming it.
func TestScriptThatDoesNotLoad(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.lua")
	require.NoError(t, os.WriteFile(bad, []byte("return ai.fsm {"), 0o644))
	_, err := explore.Run(context.Background(), bad, explore.Options{Runs: 10})
	require.ErrorIs(t, err, explore.ErrNoScript)
	require.Contains(t, err.Error(), "bad.lua:1")
}

// A cancelled context ends the search with what it found so far.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := explore.Run(ctx, "testdata/timing.lua", explore.Options{})
	require.NoError(t, err)
	require.Equal(t, "interrupted", rep.Stopped)
	require.Zero(t, rep.Runs)
}

// BenchmarkTimeToFind measures how long the search takes to first meet
// each planted fault, as medians over nine seeds: the sequences tried
// and the milliseconds.
func BenchmarkTimeToFind(b *testing.B) {
	cases := []struct {
		script string
		agents int
		line   int
	}{{"timing.lua", 1, 18}, {"threshold.lua", 1, 17}, {"message.lua", 2, 33}}
	for _, c := range cases {
		b.Run(strings.TrimSuffix(c.script, ".lua"), func(b *testing.B) {
			var runs, ms []float64
			for range b.N {
				for seed := range uint64(9) {
					o := opts(c.agents, seed+1)
					o.Stale, o.Runs = -1, 20000
					rep, err := explore.Run(context.Background(), filepath.Join("testdata", c.script), o)
					require.NoError(b, err)
					f := findingAt(rep, c.line)
					require.NotNil(b, f, "seed %d found nothing at line %d", seed+1, c.line)
					runs = append(runs, float64(f.FoundAfter+1))
					ms = append(ms, float64(f.FoundIn.Microseconds())/1000)
				}
			}
			b.ReportMetric(median(runs), "sequences-to-find")
			b.ReportMetric(median(ms), "ms-to-find")
		})
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// Two workers find the planted fault, and the same seed with the same
// workers reports the same.
func TestWorkers(t *testing.T) {
	o := opts(2, 3)
	o.Searchers, o.Runs = 2, 4000
	a, err := explore.Run(context.Background(), "testdata/message.lua", o)
	require.NoError(t, err)
	require.NotNil(t, findingAt(a, 33), "%+v", a.Findings)
	require.Equal(t, 4000, a.Runs)
	b, err := explore.Run(context.Background(), "testdata/message.lua", o)
	require.NoError(t, err)
	require.Equal(t, a.Parts, b.Parts)
	require.Equal(t, a.Tried, b.Tried)
	require.Equal(t, len(a.Findings), len(b.Findings))
	for i := range a.Findings {
		require.Equal(t, a.Findings[i].Words, b.Findings[i].Words)
		require.Equal(t, a.Findings[i].FoundAfter, b.Findings[i].FoundAfter)
	}
}

// A callback that outgrows the memory limit is a memory finding, at its
// line, with the input that leads there.
func TestFindsAMemoryStop(t *testing.T) {
	o := opts(1, 1)
	o.Runs, o.Host.MemoryLimit, o.Host.BudgetSteps = 30, 32<<20, 1<<40
	rep, err := explore.Run(context.Background(), "testdata/hoard.lua", o)
	require.NoError(t, err)
	require.Len(t, rep.Findings, 1, "%+v", rep.Findings)
	f := rep.Findings[0]
	require.Equal(t, explore.KindMemory, f.Kind, f.Message)
	require.Contains(t, f.Message, "memory limit")
	require.Equal(t, 11, f.Line)
	require.Equal(t, "send gold; 1 tick of 0.1 s", f.Words)
}

// A behaviour that requires the game's Go functions is explored in a host
// that has them (Options.Host); the game's hooks do not hear the search.
func TestGameFunctions(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "scout.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
local game = require("game")
return ai.fsm {
  initial = "look",
  context = { x = 0 },
  states = {
    look = { transitions = { { to = "found", when = function(ctx) return game.spot(ctx.x) > 0 end } } },
    found = { enter = function(ctx) ctx.seen.count = 1 end }, -- seen is never made: the fault
  },
}`), 0o644))
	_, err := explore.Run(context.Background(), script, explore.Options{Runs: 10})
	require.ErrorIs(t, err, explore.ErrNoScript, "without the game's functions the script does not load")
	heard := 0
	o := opts(1, 1)
	o.Runs = 2000
	o.Host = host.Options{
		Funcs:   map[string]map[string]any{"game": {"spot": func(x float64) float64 { return x - 41 }}},
		OnError: func(*host.ScriptError) { heard++ },
	}
	rep, err := explore.Run(context.Background(), script, o)
	require.NoError(t, err)
	require.Len(t, rep.Findings, 1, "%+v", rep.Findings)
	require.Equal(t, 8, rep.Findings[0].Line)
	require.Equal(t, "set x = 42; 1 tick of 0.1 s", rep.Findings[0].Words)
	require.Zero(t, heard)
	_, err = rep.WriteTest(dir)
	require.NoError(t, err)
	require.True(t, rep.Findings[0].Verified, "the written test fails in a host with the game's functions")
}
