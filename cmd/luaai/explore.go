package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/luaai/luaai/explore"
	"github.com/luaai/luaai/host/hosttool"
)

const exploreUsage = `Usage: luaai explore SCRIPT... [--seconds N] [--runs N] [--agents K] [--seed S] [--workers N] [--out DIR] [--json] [--coverage FILE]

Searches for inputs that make the behaviour SCRIPT fail, as a game could
give them: it sends the events the behaviour names (with payloads shaped
like what its handlers read), writes the context fields it reads (with
values around the constants it compares them with, of the default's type),
and ticks with varied dt and idle time. Input sequences that reach a part
of the behaviour not reached before (a state, a transition, a tree node, a
step, a utility winner) are kept and changed further, as a
coverage-guided fuzzer does.

It reports every distinct failure (a script error, a callback past its
budget, a memory stop) by file:line, state and callback, with the fewest
inputs found that cause it; the dead ends it reached (states nothing leads
out of: no transition, after, ai.pop or ai.replace, and not final = true);
and the parts it never reached. Each failure becomes a test in
DIR/<script>_explore_test.lua that luaai test runs, and that fails until
the script is fixed. It is never written through a symbolic link or into
anything but a regular file.

Several scripts are explored together (a whole mod: a guard that alarms
villagers): each sequence spawns the agents of each script in order, each
script's events and fields go to its own agents, and any agent's id may be
written or sent to any of them, so the messages between them are explored.
Failures name each agent's script; the test file (DIR/<a>_<b>_explore_test.lua)
spawns the same agents.

Flags:
  --seconds N     stop after N seconds (default 30), however costly one input
                  is; shortening the failures and checking their tests take
                  at most a second more
  --runs N        stop after N input sequences (the same on every machine)
  --agents K      agents per sequence; they may message each other (default 1);
                  with several scripts, one count for each (--agents 1,2,1)
                  or one for all
  --seed S        the search's seed: the same seed (and workers) tries the same inputs (default 0)
  --workers N     searchers at once, one per core at most (default 1)
  --out DIR       where the test file goes, made if missing (default: the
                  first script's folder)
  --json          print the report as JSON
  --coverage FILE also write what the search reached as JSON (luaai graph --coverage)

The search also stops once 20,000 sequences in a row found nothing new.

Exit codes: 0 nothing failed; 1 a failure was found, or the script does not
load; 2 a usage error.
`

// exploreArgs is a checked explore command line.
type exploreArgs struct {
	script, dir, covFile string
	cast                 []explore.Cast
	mkdir                bool // --out names a folder that is not there yet: made when a test is written
	asJSON               bool
	opts                 explore.Options
}

// parseExplore reads explore's command line; nil and the exit code on a
// usage error.
func parseExplore(args []string, stdout, stderr io.Writer) (*exploreArgs, int) {
	fs := flag.NewFlagSet("luaai explore", flag.ContinueOnError)
	seconds := fs.Float64("seconds", 30, "")
	runs := fs.Int("runs", 0, "")
	agents := fs.String("agents", "1", "")
	seed := fs.Uint64("seed", 0, "")
	workers := fs.Int("workers", 1, "")
	out := fs.String("out", "", "")
	asJSON := fs.Bool("json", false, "")
	covFile := fs.String("coverage", "", "")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, parseFailed(err, stdout, stderr, exploreUsage)
	}
	bad := func(format string, args ...any) (*exploreArgs, int) {
		return nil, usageError(stderr, "explore", exploreUsage, format, args...)
	}
	counts, err := agentCounts(*agents)
	switch {
	case len(pos) == 0:
		return bad("missing SCRIPT")
	case err != nil:
		return bad("--agents %v", err)
	case len(counts) > 1 && len(counts) != len(pos):
		return bad("--agents gives %d counts for %d scripts: one count for each script, in order", len(counts), len(pos))
	case !(*seconds > 0) || *seconds > 7*24*3600:
		return bad("--seconds must be a number of seconds above 0, got %v", *seconds)
	case *runs < 0:
		return bad("--runs must be 0 or more, got %d", *runs)
	case *workers < 1 || *workers > 64:
		return bad("--workers must be from 1 to 64, got %d", *workers)
	}
	total := 0
	a := &exploreArgs{script: pos[0], dir: *out, covFile: *covFile, asJSON: *asJSON}
	for i, script := range pos {
		n := counts[0] // one count: that many of each script, as luaai run --agents
		if len(counts) > 1 {
			n = counts[i]
		}
		a.cast = append(a.cast, explore.Cast{Script: script, Agents: n})
		total += n
	}
	if total > 64 {
		return bad("--agents must give 64 agents at most in all, got %d", total)
	}
	if a.dir == "" {
		a.dir = filepath.Dir(a.script)
	} else if _, err := os.Lstat(filepath.Clean(a.dir)); errors.Is(err, os.ErrNotExist) {
		a.mkdir = true
	} else if fi, err := os.Lstat(filepath.Clean(a.dir)); err != nil || !fi.IsDir() {
		// A link is refused as explore.WriteTest refuses it: the test
		// file would land wherever it leads.
		what := "not a folder"
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			what = "a symbolic link: give the folder itself"
		}
		return bad("--out %s: %s", oneLine(a.dir), what)
	}
	a.opts = explore.Options{
		Duration: time.Duration(*seconds * float64(time.Second)),
		Runs:     *runs, Agents: total, SearchSeed: *seed, Searchers: *workers,
	}
	return a, exitOK
}

// agentCounts reads --agents: one count, or one for each script
// ("1,2,1"), each from 1 to 64.
func agentCounts(s string) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > 64 {
			return nil, fmt.Errorf("must be from 1 to 64 (or one such count for each script: 1,2,1), got %q", oneLine(s))
		}
		out = append(out, n)
	}
	return out, nil
}

func exploreCmd(args []string, stdout, stderr io.Writer) int {
	a, code := parseExplore(args, stdout, stderr)
	if a == nil {
		return code
	}
	script, opts := a.script, a.opts
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if isTerminal(stderr) && !a.asJSON {
		opts.Progress = func(p explore.Progress) {
			fmt.Fprintf(stderr, "\r\x1b[Kexplore: %d sequences, %d/%d parts reached, %d failures, %.1fs",
				p.Runs, p.Covered, p.Parts, p.Findings, p.Elapsed.Seconds())
		}
	}
	rep, err := explore.RunCast(ctx, a.cast, opts)
	if opts.Progress != nil {
		fmt.Fprint(stderr, "\r\x1b[K")
	}
	if err != nil {
		for _, e := range loadErrors(script, err) {
			fmt.Fprintln(stderr, oneLine(e))
		}
		return exitFail
	}
	if a.mkdir && rep.Failed() {
		if err := os.MkdirAll(a.dir, 0o755); err != nil {
			fmt.Fprintf(stderr, "luaai explore: %s\n", oneLine(writeTestError(a.dir, err)))
			return exitFail
		}
	}
	testFile, err := rep.WriteTestContext(ctx, a.dir)
	if err != nil {
		fmt.Fprintf(stderr, "luaai explore: %s\n", oneLine(writeTestError(a.dir, err)))
		return exitFail
	}
	if a.covFile != "" {
		cs := &coverageSum{}
		cs.add(partsByFile(rep))
		if err := cs.write(a.covFile); err != nil {
			fmt.Fprintf(stderr, "luaai explore: --coverage %s\n", oneLine(fmt.Sprintf("%s: %v", a.covFile, err)))
			return exitFail
		}
	}
	if a.asJSON {
		if err := writeExploreJSON(stdout, rep, testFile); err != nil {
			fmt.Fprintf(stderr, "luaai explore: %s\n", oneLine(err.Error()))
			return exitFail
		}
	} else {
		printExplore(stdout, rep, testFile)
	}
	if rep.Failed() {
		return exitFail
	}
	return exitOK
}

// writeTestError says why the test file could not be written: "--out DIR:
// …" when the folder was given, else the error (which names the path).
func writeTestError(dir string, err error) string {
	if errors.Is(err, explore.ErrNotRegular) {
		return fmt.Sprintf("%v: the test file is not written through it (give another --out DIR)", err)
	}
	return fmt.Sprintf("--out %s: %v", dir, err)
}

// printExplore prints the report as text. Every name in it came from the
// script (states, events, fields, messages) or its folder (file names):
// each is printed through oneLine, so none can forge a line.
func printExplore(w io.Writer, rep *explore.Report, testFile string) {
	stopped := rep.Stopped
	if stopped == "time" {
		stopped = "time limit"
	}
	fmt.Fprintf(w, "explored %s: %d input sequences in %.1fs with %d agent%s, seed %d (stopped: %s)\n",
		oneLine(castNames(rep)), rep.Runs, rep.Elapsed.Seconds(), rep.Agents, plural(rep.Agents), rep.SearchSeed, stopped)
	if len(rep.Cast) > 1 {
		fmt.Fprintf(w, "agents: %s\n", oneLine(castAgents(rep.Cast)))
	}
	cs := &coverageSum{}
	cs.add(partsByFile(rep))
	for _, bc := range cs.sorted() {
		fmt.Fprintf(w, "reached: %s\n", coverSummary(bc))
	}
	if len(rep.Findings) == 0 {
		fmt.Fprintln(w, "no failures found")
	} else {
		fmt.Fprintf(w, "\n%d failure%s:\n", len(rep.Findings), plural(len(rep.Findings)))
	}
	for i, f := range rep.Findings {
		agent := fmt.Sprintf("agent %d", f.Agent)
		if len(rep.Cast) > 1 {
			agent += " of " + filepath.Base(f.Script)
		}
		fmt.Fprintf(w, "%d. %s (state %s, %s; %s)\n", i+1, oneLine(f.Message), oneLine(f.State), oneLine(f.Callback), oneLine(agent))
		fmt.Fprintf(w, "   inputs: %s\n", oneLine(f.Words))
		fmt.Fprintf(w, "   found after %d sequences (%.2fs)", f.FoundAfter+1, f.FoundIn.Seconds())
		switch {
		case f.CutShort && !f.Fresh:
			fmt.Fprint(w, "; the time limit came before these inputs could be shortened or replayed on a fresh agent")
		case f.CutShort:
			fmt.Fprint(w, "; the time limit came before these inputs were fully shortened")
		case !f.Fresh:
			fmt.Fprint(w, "; it needs what earlier sequences left behind (state a module keeps?), so its test may pass")
		case f.Unchecked:
			fmt.Fprint(w, "; the time limit came before its test was run")
		case !f.Verified:
			fmt.Fprint(w, "; its test does not fail by itself (the failure depends on the explorer's instruction budget)")
		}
		fmt.Fprintln(w)
	}
	if testFile != "" {
		fmt.Fprintf(w, "tests: %s (luaai test %s)\n", oneLine(testFile), oneLine(testFile))
	}
	if len(rep.DeadEnds) > 0 {
		fmt.Fprintln(w, "\ndead ends (reached, and nothing leads out; mark a state final = true if it is meant to be an end):")
		for _, d := range rep.DeadEnds {
			fmt.Fprintf(w, "  %s:%d: %s\n", oneLine(d.File), d.Line, oneLine(d.Path))
		}
	}
	if un := rep.Unreached(); len(un) > 0 {
		t := rep.Tried
		tried := []string{fmt.Sprintf("%d ticks", t.Ticks)}
		if t.Sends > 0 {
			tried = append(tried, fmt.Sprintf("%d sends of %s", t.Sends, listOrNone(t.Events)))
		}
		if t.Sets > 0 {
			tried = append(tried, fmt.Sprintf("%d writes of %s", t.Sets, listOrNone(t.Fields)))
		}
		fmt.Fprintf(w, "\nnever reached (after %s):\n", strings.Join(tried, ", "))
		for _, it := range un {
			fmt.Fprintf(w, "  %s:%d: %s %s\n", oneLine(it.File), it.Line, oneLine(it.Kind.String()), oneLine(it.Name))
		}
	}
}

func coverSummary(bc hosttool.BehaviourCoverage) string {
	var parts []string
	for _, k := range coverKinds {
		hit, all := 0, 0
		for _, it := range bc.Items {
			if it.Kind == k.kind {
				all++
				if it.Hits > 0 {
					hit++
				}
			}
		}
		if all > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", k.plural, hit, all))
		}
	}
	return strings.Join(parts, ", ")
}

// listOrNone lists names the script chose (events, fields), each escaped
// and quoted as explore.Words writes them when it is not one word.
func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "nothing"
	}
	more := ""
	if len(xs) > 8 {
		xs, more = xs[:8], fmt.Sprintf(" and %d more", len(xs)-8)
	}
	shown := make([]string, len(xs))
	for i, x := range xs {
		shown[i] = oneLine(explore.Name(x))
	}
	return strings.Join(shown, ", ") + more
}

type exploreJSON struct {
	Script   string             `json:"script"`
	Seed     uint64             `json:"seed"`
	Agents   int                `json:"agents"`
	Cast     []explore.Cast     `json:"cast"`
	Runs     int                `json:"runs"`
	Seconds  float64            `json:"seconds"`
	Stopped  string             `json:"stopped"`
	Findings []findingJSON      `json:"findings"`
	DeadEnds []explore.DeadEnd  `json:"dead_ends"`
	Never    []coverageItemJSON `json:"never_reached"`
	TestFile string             `json:"test_file,omitempty"`
}

type findingJSON struct {
	Kind       string           `json:"kind"`
	Message    string           `json:"message"`
	File       string           `json:"file"`
	Line       int              `json:"line"`
	State      string           `json:"state"`
	Callback   string           `json:"callback"`
	Agent      int              `json:"agent"`
	Script     string           `json:"script"`
	Inputs     string           `json:"inputs"`
	Steps      []map[string]any `json:"steps"`
	FoundAfter int              `json:"found_after"`
	Seconds    float64          `json:"found_in_seconds"`
	Test       string           `json:"test,omitempty"`
	Verified   bool             `json:"verified"`
	CutShort   bool             `json:"cut_short,omitempty"`
	Unchecked  bool             `json:"unchecked,omitempty"`
}

func plainSteps(seq []explore.Step) []map[string]any {
	out := make([]map[string]any, len(seq))
	for i, s := range seq {
		out[i] = s.Plain()
	}
	return out
}

func writeExploreJSON(w io.Writer, rep *explore.Report, testFile string) error {
	out := exploreJSON{
		Script: rep.Script, Seed: rep.SearchSeed, Agents: rep.Agents, Cast: rep.Cast, Runs: rep.Runs,
		Seconds: rep.Elapsed.Seconds(), Stopped: rep.Stopped, TestFile: testFile,
		Findings: []findingJSON{}, DeadEnds: rep.DeadEnds, Never: []coverageItemJSON{},
	}
	if out.DeadEnds == nil {
		out.DeadEnds = []explore.DeadEnd{}
	}
	for _, f := range rep.Findings {
		out.Findings = append(out.Findings, findingJSON{
			Kind: string(f.Kind), Message: f.Message, File: f.File, Line: f.Line, State: f.State,
			Callback: f.Callback, Agent: f.Agent, Script: f.Script, Inputs: f.Words, Steps: plainSteps(f.Inputs),
			FoundAfter: f.FoundAfter + 1, Seconds: f.FoundIn.Seconds(), Test: f.Test, Verified: f.Verified,
			CutShort: f.CutShort, Unchecked: f.Unchecked,
		})
	}
	for _, it := range rep.Unreached() {
		out.Never = append(out.Never, coverageItemJSON{it.Kind.String(), it.Name, it.Line, it.Hits})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// partsByFile is the report's parts, a behaviour coverage for each file,
// in the order the files come.
func partsByFile(rep *explore.Report) []hosttool.BehaviourCoverage {
	var out []hosttool.BehaviourCoverage
	at := map[string]int{}
	for _, it := range rep.Parts {
		i, ok := at[it.File]
		if !ok {
			i = len(out)
			at[it.File] = i
			out = append(out, hosttool.BehaviourCoverage{File: it.File})
		}
		out[i].Items = append(out[i].Items, it)
	}
	return out
}

// castNames is the scripts explored: "guard.lua, villager.lua".
func castNames(rep *explore.Report) string {
	if len(rep.Cast) < 2 {
		return rep.Script
	}
	names := make([]string, len(rep.Cast))
	for i, c := range rep.Cast {
		names[i] = c.Script
	}
	return strings.Join(names, ", ")
}

// castAgents tells which agents run which script: "1 guard.lua, 2-3
// villager.lua".
func castAgents(cast []explore.Cast) string {
	var parts []string
	first := 1
	for _, c := range cast {
		span := strconv.Itoa(first)
		if c.Agents > 1 {
			span += "-" + strconv.Itoa(first+c.Agents-1)
		}
		parts = append(parts, span+" "+filepath.Base(c.Script))
		first += c.Agents
	}
	return strings.Join(parts, ", ")
}
