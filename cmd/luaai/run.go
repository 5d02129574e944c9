package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/inspector"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/inspect"
)

const runUsage = `Usage: luaai run SCRIPT [SCRIPT...] [flags]

Loads the behaviour SCRIPT, spawns agents from it and ticks them, printing
every state change ("tick 3 agent 1 patrol -> combat"). Modules are required
from the script's folder and from ./scripts when it exists. With several
scripts, one host runs them all: agents get ids in the order the scripts are
given (luaai run leader.lua guard.lua --agents 1,3: agent 1 leads, agents 2
to 4 guard).

Flags (before or after SCRIPT):
  --ticks N     ticks to run (default 10; with --watch: until interrupted)
  --dt S        seconds per tick (default 0.1, or 1/N with --hz N)
  --hz N        pace the ticks in real time, N per second (default: as fast as
                possible; with --watch and no --ticks: 10)
  --agents N    agents to spawn (default 1); with several scripts one count
                for each (--agents 1,3) or one for all
  --workers N   worker goroutines, each with its own Lua state and its own
                copy of the script's top-level locals (default 1)
  --seed N      seed of the agents' random numbers (default 0)
  --budget D    how long one callback may run before it is stopped and
                reported, e.g. 50ms, 200ms, 1s; "off" turns it off (default
                50ms)
  --memory N    the memory the scripts may hold and allocate, e.g. 64MiB,
                1GiB; "off" turns it off (default 256MiB)
  --set k=v     override a context default (repeatable): k is a key of the
                context, or a dotted path into a table of it (target.range);
                v is read as JSON, or a Lua number, and must have the
                default's type; for a string default, unquoted text is the
                string. An unknown key or another type is a usage error
  --trace [IDS] after each tick print every agent's state and context, every
                utility decision with each candidate's score, and the events
                no transition took; --trace 1,5: only those agents'.
  --trace-changes
                --trace, with an agent's state line only in the ticks its
                state or context changed, showing the context keys that
                changed (null: a key gone)
  --profile     after the run, print where the ticks' time went: the Lua
                callbacks by total time (calls, time, callback, file:line,
                state) and the engine's share beside them
  --json        print one JSON object a line instead of text (what scripts
                print() then goes to stderr)
  --watch       reload the behaviour between ticks whenever SCRIPT or a module
                it requires changes on disk; each reload prints "reload ok:
                SCRIPT" or "reload failed: file:line: message" on stderr (with
                --json also {"tick":N,"reload":"ok"|"<errors>"} on stdout). A
                failed reload keeps the old behaviour running and does not by
                itself change the exit code. A SCRIPT that does not load at
                start is reported and watched until a version loads. In a
                terminal it takes commands as it runs (help lists them):
                send A EVENT [json], set A key=value, pause, step [N],
                resume, reset A, respawn A, show A; the arrows recall earlier
                lines (with stdout piped, the terminal's lines are read as
                they are typed)
  --input FILE  drive the run: JSON lines {"tick":N,"agent":A,"send":E,
                "payload":P}, {"tick":N,"agent":A,"set":{...}},
                {"tick":N,"agent":A,"reset":true} or "respawn":true ("agent":"*"
                for every agent), each applied before tick N; a line that
                cannot be applied is reported and makes the run exit 1; "-"
                reads them from stdin as they come ("tick" may then be left
                out: the next tick), and the commands of --watch too
  --strict      treat the warnings every load prints (luaai check's:
                unknown fields, unreachable states, ...) as errors: the run
                does not start, a --watch reload keeps the old version
  --save FILE   after the last tick, write a snapshot of every agent to FILE
                (also when interrupted)
  --load FILE   restore the agents from a snapshot FILE instead of spawning
                them (not with --agents or --set); tick numbers continue from it
  --inspect [ADDR]
                serve the inspector, a web page showing every agent (state,
                stack, context, scores, timers, errors, a history slider)
                that can pause, step, resume, send events and set context, on
                ADDR (default 127.0.0.1:7070; :0 picks a free port). The run
                goes on until Ctrl-C; with --ticks N it pauses after tick N
  --inspect-token T
                a secret every request to the inspector must carry (the
                printed address has it); required to listen beyond this
                machine
  --inspect-history N
                ticks of history the slider keeps per agent (default 600)
  --inspect-history-bytes SIZE
                the most the histories of every followed agent hold
                together (default 32MiB; off: no bound but N ticks each); past
                it the oldest frames of the agents picked least recently go
                first
  --record FILE write the seed, the script's content hash, every input and
                every agent's state and context changes to FILE (gzip when it
                ends in .gz), for luaai replay; with several scripts, every
                script with its agents and its digest

Ctrl-C (SIGINT or SIGTERM) stops the run cleanly after the current tick: the
output is flushed, --save is written, and the exit code is as if it had ended.

Exit codes: 0 success; 1 the script does not load, a callback raised an error
during the run (the run still goes to its end), a line of --input FILE could
not be applied, or --load / --save failed; 2 a usage error.
`

// The range of --hz: slower than one tick in 1000 s or faster than a
// million a second is a typo (and would overflow the pacing timer).
const (
	minHz = 0.001
	maxHz = 1e6
)

// defaultWatchHz paces a --watch run without --ticks.
const defaultWatchHz = 10

// runConfig is a parsed "luaai run" command line.
type runConfig struct {
	input string // --input FILE, or - for stdin

	// With --watch in a terminal: where commands are typed, and what ends
	// the run when it is closed (Ctrl-C, Ctrl-D).
	console     *console
	lineConsole bool // commands typed are read from stdin as plain lines (stdout is not the terminal)
	stopConsole context.CancelFunc

	strict  bool // warnings refuse a load or a reload
	script  string
	ticks   int
	workers int
	forever bool // --watch without --ticks: until interrupted
	dt      float64
	hz      float64 // 0: no pacing
	agents  int
	seed    uint64
	// traceIDs, from --trace 1,5: the agents traced; nil for all.
	traceIDs []int
	// traceChanges, from --trace-changes: trace lines only of what changed.
	traceChanges bool
	// scripts are every SCRIPT given (script is the first); agentsEach,
	// from --agents 1,3, the agents of each (nil: agents for each).
	scripts    []string
	agentsEach []int
	profile    bool          // --profile
	budget     time.Duration // 0: the host's default; < 0: off
	memory     int64         // 0: the host's default; < 0: off
	set        []setting
	trace      bool
	json       bool
	watch      bool
	save       string
	load       string

	inspect        string // --inspect: the address, "" without
	inspectToken   string
	inspectHistory int
	pauseAt        int    // with --inspect and --ticks: pause after this tick
	record         string // --record FILE

	inspectHistoryBytes int64 // --inspect-history-bytes: 0 the inspector's default, < 0 off
}

// runCmd runs "luaai run": args are the arguments after "run". SIGINT and
// SIGTERM end the run cleanly; a second one kills the process.
//
// A tick that does not end (a game's Go function that blocks, a budget
// turned off) cannot hold the process: interruptGrace after the signal the
// command returns anyway, saying so, and main exits.
func runCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // after the first signal, the default behaviour again
	cfg, code := parseRun(args, stdout, stderr)
	if cfg == nil {
		return code
	}
	if f, ok := stdout.(*os.File); ok && f == os.Stdout && cfg.watch && cfg.input == "" {
		// In a terminal, --watch takes commands (docs/cli.md: The CLI, Commands).
		// With stdout piped (luaai run … | tee log) the terminal still
		// types them: read as plain lines, without the line editor.
		cfg.lineConsole = consoleMode(term.IsTerminal(int(os.Stdin.Fd())), term.IsTerminal(int(os.Stdout.Fd()))) == consoleLines
		if c := openConsole(); c != nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(ctx)
			defer cancel()
			defer c.Close() // before the process exits, even after interruptGrace
			cfg.console, cfg.stopConsole = c, cancel
			stdout = c
			if isTerminal(stderr) {
				stderr = c
			}
			fmt.Fprintln(stderr, "luaai run: type help for the commands (send, set, pause, step, resume); Ctrl-C stops")
		} else if cfg.lineConsole {
			fmt.Fprintln(stderr, "luaai run: type help and Enter for the commands (send, set, pause, step, resume, reset, show); Ctrl-C stops")
		}
	}
	return runInterruptible(ctx, func() int { return runScript(ctx, cfg, stdout, stderr) }, stderr)
}

// interruptGrace is how long a run may take to end after an interrupt.
const interruptGrace = time.Second

// runInterruptible runs fn, returning its code, or exitFail interruptGrace
// after ctx is done if fn has not returned by then.
func runInterruptible(ctx context.Context, fn func() int, stderr io.Writer) int {
	done := make(chan int, 1)
	go func() { done <- fn() }()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
	}
	select {
	case code := <-done:
		return code
	case <-time.After(interruptGrace):
		fmt.Fprintf(stderr, "luaai run: interrupted, but the tick in progress did not end within %v; stopping without finishing it (--save not written)\n", interruptGrace)
		return exitFail
	}
}

// runCmdContext is runCmd ending cleanly when ctx is done (what an interrupt
// does).
func runCmdContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, code := parseRun(args, stdout, stderr)
	if cfg == nil {
		return code
	}
	return runScript(ctx, cfg, stdout, stderr)
}

func scriptRoots(script string) []string {
	roots := []string{filepath.Dir(script)}
	if fi, err := os.Stat("scripts"); err == nil && fi.IsDir() {
		roots = append(roots, "scripts")
	}
	return roots
}

// runScript is luaai run: load, spawn or restore, run the loop (with its
// watcher, recorder and inspector), save.
//
// It is long because it is the run from start to end, each step a call; the
// steps share the output and the exit code.
func runScript(ctx context.Context, cfg *runConfig, stdout, stderr io.Writer) int {
	out := newRunOutput(stdout, stderr, cfg.json)
	defer out.flush()
	fail := func(format string, args ...any) int {
		out.flush()
		fmt.Fprintf(stderr, "luaai run: "+format+"\n", args...)
		return exitFail
	}
	if cfg.save != "" {
		if fi, err := os.Stat(filepath.Dir(cfg.save)); err != nil || !fi.IsDir() {
			return fail("--save %s: folder %s does not exist", cfg.save, filepath.Dir(cfg.save))
		}
	}
	in, err := openInput(cfg)
	if err != nil {
		return fail("--input: %v", err)
	}
	opts := engineOptions(cfg.script, cfg.seed, cfg.workers)
	opts.Roots = scriptRootsAll(cfg.scripts)
	opts.Budget, opts.MemoryLimit, opts.Stdout = cfg.budget, cfg.memory, out.printer()
	opts.OnReload = func(r host.ReloadResult) {
		out.added, out.resumed, out.vanished, out.moved = r.Added, r.Resumed, r.Vanished, r.Moved
	}
	opts.OnTransition, opts.OnError, opts.OnLog = out.transition, out.scriptError, out.log
	opts.ReportAllErrors = true // counted by the output, which prints 1, 10, 100… of each
	opts.Profile = cfg.profile
	if cfg.trace {
		out.trace, out.changes = true, cfg.traceChanges
		opts.OnDecision, opts.OnEventDropped = out.decision, out.dropped
		if cfg.traceIDs != nil {
			out.traceOnly = map[int]bool{}
			for _, id := range cfg.traceIDs {
				out.traceOnly[id] = true
			}
		}
	}
	h, err := host.New(opts)
	if err != nil {
		return fail("%v", err)
	}
	defer h.Close()
	softMemoryLimit(cfg.memory)

	var bs []*host.Behaviour
	for _, script := range cfg.scripts {
		b, code := loadForRun(ctx, h, cfg, script, out, stderr)
		if b == nil {
			return code
		}
		bs = append(bs, b)
	}
	var agents []*host.Agent
	var snapshot []byte // --load's, for --record
	if cfg.load != "" {
		if agents, snapshot, err = restore(h, cfg.load, bs...); err != nil {
			return fail("%v", err)
		}
	} else {
		if err := checkSettings(cfg.set, bs); err != nil {
			return usageError(stderr, "run", runUsage, "%v", err)
		}
		for i, b := range bs {
			over, err := overrides(settingsFor(cfg.set, b, len(bs)), b)
			if err != nil {
				return usageError(stderr, "run", runUsage, "%v", err)
			}
			n := cfg.agents
			if cfg.agentsEach != nil {
				n = cfg.agentsEach[i]
			}
			for range n {
				a, err := h.Spawn(b, over)
				if err != nil {
					return fail("%v", err)
				}
				agents = append(agents, a)
			}
		}
	}
	out.flush()
	if err := in.checkAgents(h); err != nil {
		return fail("--input: %v", err)
	}

	over := func(b *host.Behaviour) map[string]any {
		o, _ := overrides(settingsFor(cfg.set, b, len(bs)), b)
		return o
	}
	if in != nil {
		in.over = over
	}
	l := &runLoop{cfg: cfg, out: out, h: h, b: bs[0], more: bs[1:], in: in, over: over}
	if len(bs) > 1 {
		for _, b := range bs {
			l.changed(b) // their files as loaded
		}
	}
	stop, err := l.attach(ctx, snapshot, stderr)
	defer stop()
	if err != nil {
		return fail("%v", err)
	}
	// The ticks done so far: a run from a snapshot continues its numbering.
	runErr := l.run(ctx, lastTick(agents), agents)
	if l.rec != nil {
		if err := l.rec.close(lastTick(h.Agents())); err != nil && runErr == nil {
			runErr = fmt.Errorf("--record %s: %w", cfg.record, err)
		}
	}
	out.endTick()
	out.summary()
	if cfg.profile {
		out.profile(hosttool.ProfileOf(h), h.Workers())
	}
	if runErr != nil {
		return fail("%v", runErr)
	}
	if cfg.save != "" {
		if err := save(h, cfg.save); err != nil {
			return fail("--save %s: %v", cfg.save, err)
		}
	}
	if in != nil && in.refused > 0 {
		fmt.Fprintf(stderr, "luaai run: --input: %d line%s refused\n", in.refused, plural(in.refused))
		return exitFail
	}
	if out.failed {
		return exitFail
	}
	return exitOK
}

// lastTick is the most ticks any of agents has run.
func lastTick(agents []*host.Agent) int {
	last := 0
	for _, a := range agents {
		last = max(last, a.Ticks())
	}
	return last
}

// openInput opens what --input names (or the console of --watch).
func openInput(cfg *runConfig) (*runInput, error) {
	switch cfg.input {
	case "":
		if cfg.console != nil {
			return cfg.console.input(cfg.stopConsole), nil
		}
		if cfg.lineConsole {
			return liveInput(stdin), nil // typos are reported, and do not fail the run
		}
		return nil, nil
	case "-":
		return liveInput(stdin), nil // a line refused is reported; the commands come as typed
	}
	return loadInput(cfg.input)
}

// loadForRun loads a script, printing its errors (also as JSON lines with
// --json) and its lint warnings; with --watch the script of a single-script
// run that does not load is waited for. A nil behaviour comes with the exit
// code.
func loadForRun(ctx context.Context, h *host.Host, cfg *runConfig, script string, out *runOutput, stderr io.Writer) (*host.Behaviour, int) {
	b, err := h.LoadFile(script)
	if err != nil {
		if cfg.json { // errors also as JSON lines on stdout (docs/cli.md: The CLI)
			for _, l := range strings.Split(err.Error(), "\n") {
				out.line(loadErrorLine{0, l})
			}
			out.flush()
		}
		printLoadError(stderr, err)
		if !cfg.watch || len(cfg.scripts) > 1 {
			return nil, exitFail
		}
		// --watch starts anyway: it reports, and waits for a version that
		// loads (the modder is fixing it in the editor).
		if b, err = waitForLoad(ctx, h, cfg, scriptRoots(cfg.script), err, stderr); err != nil {
			out.flush()
			fmt.Fprintf(stderr, "luaai run: %v\n", err)
			return nil, exitFail
		}
	}
	// The warnings luaai check gives, at every load: a typo in a field name
	// is legal Lua and would pass silently.
	if warns := inspect.Lint(hosttool.Definition(b)); len(warns) > 0 {
		for _, w := range warns {
			fmt.Fprintln(stderr, formatWarning(w))
		}
		if cfg.strict {
			fmt.Fprintf(stderr, "luaai run: --strict: %d warnings in %s\n", len(warns), script)
			return nil, exitFail
		}
	}
	return b, exitOK
}

// attach gives the loop what the flags ask for: a progress line, the
// watcher (--watch), the recorder (--record) and the inspector
// (--inspect). stop undoes them, whatever the error.
func (l *runLoop) attach(ctx context.Context, snapshot []byte, stderr io.Writer) (stop func(), err error) {
	cfg := l.cfg
	var undo []func()
	stop = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	if !cfg.forever {
		l.prog = newProgress(stderr, cfg.ticks)
		l.out.prog = l.prog
	}
	if cfg.watch {
		var files []string
		for _, b := range append([]*host.Behaviour{l.b}, l.more...) {
			files = append(files, b.Files()...)
		}
		if l.w, err = newWatcher(files, scriptRootsAll(cfg.scripts)); err != nil {
			return stop, fmt.Errorf("--watch: %w", err)
		}
		undo = append(undo, func() { l.w.Close() })
	}
	if cfg.record != "" {
		if l.rec, err = newRecorder(cfg, append([]*host.Behaviour{l.b}, l.more...), l.h, snapshot); err != nil {
			return stop, fmt.Errorf("--record %s: %w", cfg.record, err)
		}
	}
	if cfg.inspect != "" {
		closeIt, err := l.startInspector(ctx, cfg.inspect, inspector.Options{History: cfg.inspectHistory, HistoryBytes: cfg.inspectHistoryBytes, Token: cfg.inspectToken})
		if err != nil {
			return stop, fmt.Errorf("--inspect %s: %w", cfg.inspect, err)
		}
		undo = append(undo, closeIt)
	}
	return stop, nil
}

// errorFiles lists the files named by a load error.
func errorFiles(err error) []string {
	var list host.ErrorList
	if !errors.As(err, &list) {
		return nil
	}
	var files []string
	for _, e := range list {
		if fi, err := os.Stat(filepath.Dir(e.Pos.File)); err == nil && fi.IsDir() {
			files = append(files, e.Pos.File)
		}
		// A module that failed to load is named inside the message
		// (`squad.lua:2: require "guard": guard.lua:2: …`): watch it too,
		// so that fixing it is seen.
		for _, m := range luaPosInText.FindAllStringSubmatch(e.Msg, -1) {
			if fi, err := os.Stat(m[1]); err == nil && fi.Mode().IsRegular() {
				files = append(files, m[1])
			}
		}
	}
	return files
}

// luaPosInText finds "file.lua:12:" positions inside a message.
var luaPosInText = regexp.MustCompile(`([^\s"'():]+\.lua):\d+:`)

// printLoadError prints why a script did not load, one "file:line: message"
// a line, each through oneLine: a message the script raised cannot forge
// lines.
func printLoadError(w io.Writer, err error) {
	var list host.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		for _, e := range list {
			fmt.Fprintln(w, oneLine(e.Error()))
		}
		return
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		fmt.Fprintln(w, oneLine(fmt.Sprintf("%s: %v", pe.Path, pe.Err)))
		return
	}
	fmt.Fprintln(w, oneLine(err.Error()))
}

// softMemoryLimit asks the Go runtime to collect garbage harder as the
// process nears the scripts' memory limit plus room for the runtime and the
// command itself, so the process's size follows what the scripts hold
// rather than twice that (Go's default GOGC). GOMEMLIMIT, when set, wins.
func softMemoryLimit(limit int64) {
	if os.Getenv("GOMEMLIMIT") != "" || limit < 0 {
		return
	}
	if limit == 0 {
		limit = host.DefaultMemoryLimit
	}
	debug.SetMemoryLimit(limit + 96<<20)
}

// waitForLoad watches the script (and the files its load error names) and
// loads it again at every change, printing each failure, until it loads or
// ctx ends.
func waitForLoad(ctx context.Context, h *host.Host, cfg *runConfig, roots []string, loadErr error, stderr io.Writer) (*host.Behaviour, error) {
	files := append([]string{cfg.script}, errorFiles(loadErr)...)
	w, err := newWatcher(files, roots)
	if err != nil {
		return nil, fmt.Errorf("--watch: %w", err)
	}
	defer w.Close()
	fmt.Fprintf(stderr, "luaai run: waiting for a version of %s that loads (Ctrl-C to stop)\n", cfg.script)
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s never loaded", cfg.script)
		case err := <-w.Errors():
			fmt.Fprintf(stderr, "luaai run: --watch: %v\n", err)
		case <-w.Changed():
			b, err := h.LoadFile(cfg.script)
			if err == nil {
				fmt.Fprintf(stderr, "reload ok: %s\n", cfg.script)
				return b, nil
			}
			for _, l := range errorLines(err) {
				fmt.Fprintf(stderr, "reload failed: %s\n", l)
			}
			if err := w.set(append([]string{cfg.script}, errorFiles(err)...), true); err != nil {
				fmt.Fprintf(stderr, "luaai run: --watch: %v\n", err)
			}
		}
	}
}

// stdin is what --input - reads (a test replaces it).
var stdin io.Reader = os.Stdin
