package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

const runUsage = `Usage: luaai run SCRIPT [flags]

Loads the behaviour SCRIPT, spawns agents from it and ticks them, printing
every state change ("tick 3 agent 1 patrol -> combat"). Modules are required
from the script's folder and from ./scripts when it exists.

Flags (before or after SCRIPT):
  --ticks N     ticks to run (default 10; with --watch: until interrupted)
  --dt S        seconds per tick (default 0.1, or 1/N with --hz N)
  --hz N        pace the ticks in real time, N per second (default: as fast as
                possible; with --watch and no --ticks: 10)
  --agents N    agents to spawn (default 1)
  --workers N   worker goroutines, each with its own Lua state and its own
                copy of the script's top-level locals (default 1)
  --seed N      seed of the agents' random numbers (default 0)
  --budget D    how long one callback may run before it is stopped and
                reported, e.g. 50ms, 200ms, 1s; "off" turns it off (default
                50ms)
  --memory N    the memory the scripts may hold and allocate, e.g. 64MiB,
                1GiB; "off" turns it off (default 256MiB)
  --set k=v     override a context default; v is read as a number, true or
                false where it can be, else as a string (repeatable)
  --trace       after each tick print every agent's state and context, and
                print every utility decision with each candidate's score
  --json        print one JSON object a line instead of text (what scripts
                print() then goes to stderr)
  --watch       reload the behaviour between ticks whenever SCRIPT or a module
                it requires changes on disk; each reload prints "reload ok:
                SCRIPT" or "reload failed: file:line: message" on stderr (with
                --json also {"tick":N,"reload":"ok"|"<errors>"} on stdout). A
                failed reload keeps the old behaviour running and does not by
                itself change the exit code
  --save FILE   after the last tick, write a snapshot of every agent to FILE
                (also when interrupted)
  --load FILE   restore the agents from a snapshot FILE instead of spawning
                them (not with --agents or --set); tick numbers continue from it

Ctrl-C (SIGINT or SIGTERM) stops the run cleanly after the current tick: the
output is flushed, --save is written, and the exit code is as if it had ended.

Exit codes: 0 success; 1 the script does not load, a callback raised an error
during the run (the run still goes to its end), or --load / --save failed;
2 a usage error.
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
	script  string
	ticks   int
	workers int
	forever bool // --watch without --ticks: until interrupted
	dt      float64
	hz      float64 // 0: no pacing
	agents  int
	seed    uint64
	budget  time.Duration // 0: the host's default; < 0: off
	memory  int64         // 0: the host's default; < 0: off
	set     map[string]any
	trace   bool
	json    bool
	watch   bool
	save    string
	load    string
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
	return runInterruptible(ctx, func() int { return runCmdContext(ctx, args, stdout, stderr) }, stderr)
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

// parseRun parses and validates the flags; a nil config comes with the exit
// code to return.
func parseRun(args []string, stdout, stderr io.Writer) (*runConfig, int) {
	cfg := &runConfig{set: map[string]any{}}
	fs := flag.NewFlagSet("luaai run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.ticks, "ticks", 10, "")
	fs.Float64Var(&cfg.dt, "dt", 0.1, "")
	fs.Float64Var(&cfg.hz, "hz", 0, "")
	fs.IntVar(&cfg.agents, "agents", 1, "")
	fs.IntVar(&cfg.workers, "workers", 1, "")
	fs.Uint64Var(&cfg.seed, "seed", 0, "")
	budgetFlag(fs, &cfg.budget)
	memoryFlag(fs, &cfg.memory)
	setFlag(fs, cfg.set)
	fs.BoolVar(&cfg.trace, "trace", false, "")
	fs.BoolVar(&cfg.json, "json", false, "")
	fs.BoolVar(&cfg.watch, "watch", false, "")
	fs.StringVar(&cfg.save, "save", "", "")
	fs.StringVar(&cfg.load, "load", "", "")

	pos, err := parseArgs(fs, args)
	if err != nil {
		return nil, parseFailed(err, stdout, stderr, runUsage)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	bad := func(format string, args ...any) (*runConfig, int) {
		return nil, usageError(stderr, "run", runUsage, format, args...)
	}
	switch {
	case len(pos) == 0:
		return bad("missing SCRIPT")
	case len(pos) > 1:
		return bad("one SCRIPT at a time, got %q", pos)
	case cfg.ticks < 0:
		return bad("--ticks must be ≥ 0, got %d", cfg.ticks)
	case cfg.agents < 1:
		return bad("--agents must be ≥ 1, got %d", cfg.agents)
	case given["hz"] && !(cfg.hz > 0 && !math.IsInf(cfg.hz, 0)):
		return bad("--hz must be a number > 0, got %v", cfg.hz)
	case given["hz"] && (cfg.hz < minHz || cfg.hz > maxHz):
		return bad("--hz must be between 0.001 and 1000000 ticks a second, got %v", cfg.hz)
	case cfg.dt < 0 || math.IsNaN(cfg.dt) || math.IsInf(cfg.dt, 0):
		return bad("--dt must be a finite number ≥ 0, got %v", cfg.dt)
	case cfg.workers < 1:
		return bad("--workers must be ≥ 1, got %d", cfg.workers)
	case given["save"] && cfg.save == "":
		return bad("--save needs a file name")
	case given["load"] && cfg.load == "":
		return bad("--load needs a file name")
	case cfg.load != "" && given["agents"]:
		return bad("--agents cannot be used with --load: the agents come from the snapshot")
	case cfg.load != "" && given["set"]:
		return bad("--set cannot be used with --load: the contexts come from the snapshot")
	}
	if cfg.watch && !given["ticks"] {
		cfg.forever = true
		if !given["hz"] {
			cfg.hz = defaultWatchHz
		}
	}
	if cfg.hz > 0 && !given["dt"] {
		cfg.dt = 1 / cfg.hz
	}
	cfg.script = pos[0]
	return cfg, exitOK
}

// budgetFlag defines --budget: a Go duration ("50ms", "2s"), or "off".
func budgetFlag(fs *flag.FlagSet, d *time.Duration) {
	fs.Func("budget", "", func(s string) error {
		if s == "off" {
			*d = -1
			return nil
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("want a duration such as 50ms or 1s, or off")
		}
		if v <= 0 {
			return fmt.Errorf("must be more than 0 (or off), got %v", s)
		}
		*d = v
		return nil
	})
}

// memoryFlag defines --memory: a size ("256MiB", "1GiB", "500MB",
// "65536"), or "off".
func memoryFlag(fs *flag.FlagSet, n *int64) {
	fs.Func("memory", "", func(s string) error {
		if s == "off" {
			*n = -1
			return nil
		}
		v, err := parseSize(s)
		if err != nil {
			return err
		}
		if v < 1<<20 {
			return fmt.Errorf("must be at least 1MiB (or off), got %s", s)
		}
		*n = v
		return nil
	})
}

// parseSize reads a byte count with an optional unit: B, KB/MB/GB (powers
// of 1000) or KiB/MiB/GiB (powers of 1024).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mul    float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mul := s, 1.0
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mul = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mul
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || f*mul > 1<<62 {
		return 0, fmt.Errorf("want a size such as 256MiB or 1GiB, or off")
	}
	return int64(f * mul), nil
}

// parseValue reads a --set value: a number (decimal, or hex with 0x), true or
// false where it can, else the string itself.
// setFlag defines the repeatable --set k=v flag, collecting into set.
func setFlag(fs *flag.FlagSet, set map[string]any) {
	fs.Func("set", "", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return errors.New("want key=value")
		}
		set[k] = parseValue(v)
		return nil
	})
}

func parseValue(s string) any {
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	if strings.Contains(s, "_") { // Go digit separators are not Lua numbers
		return s
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f
	}
	hex := strings.TrimPrefix(s, "-")
	if len(hex) > 2 && (hex[:2] == "0x" || hex[:2] == "0X") {
		if n, err := strconv.ParseUint(hex[2:], 16, 64); err == nil {
			if hex != s {
				return -float64(n)
			}
			return float64(n)
		}
	}
	return s
}

// scriptRoots are the folders the script may require from: its own, and
// ./scripts when it exists.
func scriptRoots(script string) []string {
	roots := []string{filepath.Dir(script)}
	if fi, err := os.Stat("scripts"); err == nil && fi.IsDir() {
		roots = append(roots, "scripts")
	}
	return roots
}

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
	opts := host.Options{
		Seed:         cfg.seed,
		Budget:       cfg.budget,
		MemoryLimit:  cfg.memory,
		Workers:      cfg.workers,
		Roots:        scriptRoots(cfg.script),
		Stdout:       out.printer(),
		OnTransition: out.transition,
		OnError:      out.scriptError,
		OnLog:        out.log,
	}
	if cfg.trace {
		opts.OnDecision = out.decision
	}
	h, err := host.New(opts)
	if err != nil {
		return fail("%v", err)
	}
	defer h.Close()
	softMemoryLimit(cfg.memory)

	b, err := h.LoadFile(cfg.script)
	if err != nil {
		if cfg.json { // SPEC §12: errors also as JSON lines on stdout
			for _, l := range strings.Split(err.Error(), "\n") {
				out.line(loadErrorLine{0, l})
			}
			out.flush()
		}
		printLoadError(stderr, err)
		return exitFail
	}
	var agents []*host.Agent
	if cfg.load != "" {
		if agents, err = restore(h, b, cfg.load); err != nil {
			return fail("%v", err)
		}
	} else {
		for range cfg.agents {
			a, err := h.Spawn(b, cfg.set)
			if err != nil {
				return fail("%v", err)
			}
			agents = append(agents, a)
		}
	}
	out.flush()

	// The ticks done so far: a run from a snapshot continues its numbering.
	done := 0
	for _, a := range agents {
		done = max(done, a.Ticks())
	}
	l := &runLoop{cfg: cfg, out: out, h: h, b: b}
	if !cfg.forever {
		l.prog = newProgress(stderr, cfg.ticks)
		out.prog = l.prog
	}
	if cfg.watch {
		if l.w, err = newWatcher(b.Files(), opts.Roots); err != nil {
			return fail("--watch: %v", err)
		}
		defer l.w.Close()
	}
	if err := l.run(ctx, done, agents); err != nil {
		return fail("%v", err)
	}
	if cfg.save != "" {
		if err := save(h, cfg.save); err != nil {
			return fail("--save %s: %v", cfg.save, err)
		}
	}
	if out.failed {
		return exitFail
	}
	return exitOK
}

// maxSnapshotFile bounds what --load reads.
const maxSnapshotFile = 1 << 30

// restore adds the agents of the snapshot file to h, running b.
func restore(h *host.Host, b *host.Behaviour, file string) ([]*host.Agent, error) {
	data, err := luabind.ReadRegular(file, maxSnapshotFile)
	if err != nil {
		return nil, fmt.Errorf("--load: %w", err) // names the file
	}
	agents, err := h.Restore(data, b)
	if err != nil {
		return nil, fmt.Errorf("--load %s: %w", file, err)
	}
	return agents, nil
}

// save writes a snapshot of every agent of h to file, atomically: a
// temporary file in the same folder renamed over it, so an interrupted save
// never leaves half a snapshot.
func save(h *host.Host, file string) error {
	data, err := h.Snapshot()
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// runLoop ticks the host, paced or not, and reloads the behaviour between
// ticks when the watcher (if any) says its files changed. It owns the host:
// nothing else touches it while it runs.
type runLoop struct {
	cfg  *runConfig
	out  *runOutput
	h    *host.Host
	b    *host.Behaviour
	w    *watcher  // nil without --watch
	prog *progress // nil unless stderr is a terminal
}

// run ticks until cfg.ticks more ticks are done (or forever) or ctx is done.
// done is the number of ticks the agents had before.
func (l *runLoop) run(ctx context.Context, done int, agents []*host.Agent) error {
	var timer *time.Timer
	var period time.Duration
	if l.cfg.hz > 0 {
		period = time.Duration(float64(time.Second) / l.cfg.hz)
		timer = time.NewTimer(0)
		defer timer.Stop()
	}
	start := time.Now()
	defer l.prog.clear()
	for i := 1; l.cfg.forever || i <= l.cfg.ticks; i++ {
		var due <-chan time.Time
		if timer != nil {
			timer.Reset(time.Until(start.Add(time.Duration(i) * period)))
			due = timer.C
		}
		if !l.between(ctx, done, due) {
			return nil // interrupted
		}
		if err := l.h.Tick(l.cfg.dt); err != nil {
			return err
		}
		done++
		if l.cfg.trace {
			for _, a := range agents {
				l.out.traceAgent(a.Ticks(), a)
			}
		}
		l.out.flush()
		l.prog.update(i)
	}
	return nil
}

// between serves what comes in before the next tick — reloads, watcher
// errors — until due fires (at once when due is nil). It reports false when
// ctx is done.
func (l *runLoop) between(ctx context.Context, done int, due <-chan time.Time) bool {
	var changed <-chan struct{}
	var errs <-chan error
	if l.w != nil {
		changed, errs = l.w.Changed(), l.w.Errors()
	}
	for {
		// What is pending first, so that an unpaced run sees it too.
		select {
		case <-ctx.Done():
			return false
		case <-changed:
			l.reload(done)
			continue
		case err := <-errs:
			l.out.watchError(err)
			continue
		default:
		}
		if due == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
			l.reload(done)
		case err := <-errs:
			l.out.watchError(err)
		case <-due:
			return true
		}
	}
}

// reload reloads the behaviour from its file and watches what it now
// requires. done is the number of ticks done.
func (l *runLoop) reload(done int) {
	err := l.out.reload(done, l.cfg.script, l.b.Reload)
	files := l.b.Files()
	if err != nil {
		// A module that broke the reload is not among b.Files() when it is
		// newly required: watch the files the error names too, so that
		// fixing them reloads.
		files = append(files, errorFiles(err)...)
	}
	if err := l.w.set(files, err != nil); err != nil {
		l.out.watchError(err)
	}
}

// errorFiles lists the files named by a load error.
func errorFiles(err error) []string {
	var list luabind.ErrorList
	if !errors.As(err, &list) {
		return nil
	}
	var files []string
	for _, e := range list {
		if fi, err := os.Stat(filepath.Dir(e.Pos.File)); err == nil && fi.IsDir() {
			files = append(files, e.Pos.File)
		}
	}
	return files
}

// printLoadError prints why a script did not load, one "file:line: message"
// a line.
func printLoadError(w io.Writer, err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		fmt.Fprintf(w, "%s: %v\n", pe.Path, pe.Err)
		return
	}
	fmt.Fprintln(w, err.Error())
}

// runOutput prints what a run reports: text or JSON lines on stdout,
// buffered and flushed at least once a tick; script errors and reloads on
// stderr.
type runOutput struct {
	stdout io.Writer
	w      *bufio.Writer // over stdout, or over a held buffer during a reload
	enc    *json.Encoder
	stderr io.Writer // the real one, or a held buffer during a reload
	prog   *progress // the progress line on stderr, nil when not a terminal
	json   bool
	failed bool // a callback raised an error

	printMu sync.Mutex // print() runs on every worker's goroutine
}

func newRunOutput(stdout, stderr io.Writer, jsonLines bool) *runOutput {
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &runOutput{stdout: stdout, w: w, enc: enc, stderr: stderr, json: jsonLines}
}

// flush writes the buffered lines, first erasing the progress line (if one
// is drawn) so they do not land on it.
func (o *runOutput) flush() {
	if o.w.Buffered() > 0 {
		o.prog.clear()
	}
	o.w.Flush()
}

// printer is where scripts' print() goes: the buffered stdout, in order with
// the ticks' lines, or stderr in --json mode so that stdout stays one JSON
// object a line.
func (o *runOutput) printer() io.Writer { return printWriter{o} }

type printWriter struct{ o *runOutput }

// Write is called from the workers' goroutines during a tick, when the
// run loop writes nothing else, and from the run loop between ticks.
func (p printWriter) Write(b []byte) (int, error) {
	p.o.printMu.Lock()
	defer p.o.printMu.Unlock()
	if p.o.json {
		return p.o.stderr.Write(b)
	}
	return p.o.w.Write(b)
}

type reloadLine struct {
	Tick   int    `json:"tick"`
	Reload string `json:"reload"`
}

// reload runs reload (a Behaviour.Reload) and reports its result: "reload
// ok: SCRIPT" or "reload failed: file:line: message" lines on stderr, and a
// reload line on stdout in JSON mode. What the reload itself reports
// (transitions of kind "reload", on_reload errors and logs) is held back and
// printed after it. tick is the number of ticks done.
func (o *runOutput) reload(tick int, script string, reload func() error) error {
	o.flush()
	var held, heldErr bytes.Buffer
	stderr := o.stderr
	o.w.Reset(&held)
	o.stderr = &heldErr
	err := reload()
	o.flush()
	o.w.Reset(o.stdout)
	o.stderr = stderr

	o.prog.clear()
	if err == nil {
		fmt.Fprintf(stderr, "reload ok: %s\n", script)
		if o.json {
			o.line(reloadLine{tick, "ok"})
		}
	} else {
		msg := err.Error()
		for _, l := range strings.Split(msg, "\n") {
			fmt.Fprintf(stderr, "reload failed: %s\n", l)
		}
		if o.json {
			o.line(reloadLine{tick, msg})
		}
	}
	stderr.Write(heldErr.Bytes())
	o.w.Write(held.Bytes())
	o.flush()
	return err
}

// watchError reports a problem of the file watcher; the run goes on.
func (o *runOutput) watchError(err error) {
	o.flush()
	fmt.Fprintf(o.stderr, "luaai run: --watch: %v\n", err)
}

// line writes v as one JSON line.
func (o *runOutput) line(v any) {
	if err := o.enc.Encode(v); err != nil {
		// Only unencodable values fail, and jsonValue makes every value
		// encodable; say so rather than drop the line silently.
		fmt.Fprintf(o.w, "{\"error\":%q}\n", err.Error())
	}
}

// optString is a JSON string, or null when empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

type transitionLine struct {
	Tick  int     `json:"tick"`
	Agent int     `json:"agent"`
	From  *string `json:"from"`
	To    string  `json:"to"`
	Kind  string  `json:"kind"`
}

// transition prints "tick 3 agent 1 patrol -> combat", with the kind
// appended when it is not "to": " (push)".
func (o *runOutput) transition(t host.Transition) {
	if o.json {
		o.line(transitionLine{t.Tick, t.Agent, optString(t.From), t.To, t.Kind})
		return
	}
	fmt.Fprintf(o.w, "tick %d agent %d %s -> %s", t.Tick, t.Agent, orNone(t.From), orNone(t.To))
	if t.Kind != "to" {
		fmt.Fprintf(o.w, " (%s)", t.Kind)
	}
	o.w.WriteByte('\n')
}

type errorLine struct {
	Tick     int    `json:"tick"`
	Agent    int    `json:"agent"`
	Error    string `json:"error"`
	State    string `json:"state"`
	Callback string `json:"callback"`
}

// scriptError prints "error: file:line: msg (agent N, state S, callback)" on
// stderr, and in JSON mode an error line on stdout too.
func (o *runOutput) scriptError(e *host.ScriptError) {
	o.failed = true
	if o.json {
		o.line(errorLine{e.Tick, e.Agent, e.Message(), e.State, e.Callback})
	}
	o.flush() // keep stdout and stderr in order on a terminal
	o.prog.clear()
	fmt.Fprintf(o.stderr, "error: %s\n", oneLine(e.Error()))
}

// oneLine escapes line breaks (and other control characters) in text a
// script chose, so that one record stays one line: a script cannot forge
// "tick 3 agent 1 …" lines in the output. JSON mode needs none of this.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 && r != '\t' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

type logLine struct {
	Tick  int    `json:"tick"`
	Agent int    `json:"agent"`
	Log   string `json:"log"`
	State string `json:"state"`
}

// log prints an ai.log line: "tick 2 agent 1 log: msg".
func (o *runOutput) log(l host.Log) {
	if o.json {
		o.line(logLine{l.Tick, l.Agent, l.Msg, l.State})
		return
	}
	fmt.Fprintf(o.w, "tick %d agent %d log: %s\n", l.Tick, l.Agent, oneLine(l.Msg))
}

// loadErrorLine is a script that does not load, in --json mode.
type loadErrorLine struct {
	Tick  int    `json:"tick"`
	Error string `json:"error"`
}

type decisionLine struct {
	Tick   int                   `json:"tick"`
	Agent  int                   `json:"agent"`
	Decide string                `json:"decide"`
	Scores map[string]any        `json:"scores"`
	Parts  map[string][]partJSON `json:"parts,omitempty"`
	Winner *string               `json:"winner"`
	Kept   bool                  `json:"kept,omitempty"`
}

// partJSON is one factor of a native scorer, for the "why" trace.
type partJSON struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// decision prints a utility decision:
// "tick 2 agent 1 decide needs: needs.eat=0.7 needs.idle=0.1 -> needs.eat".
func (o *runOutput) decision(d host.Decision) {
	if o.json {
		scores := make(map[string]any, len(d.Candidates))
		var parts map[string][]partJSON
		for _, c := range d.Candidates {
			scores[c.State] = jsonNumber(c.Score)
			if len(c.Parts) > 0 {
				if parts == nil {
					parts = map[string][]partJSON{}
				}
				for _, p := range c.Parts {
					parts[c.State] = append(parts[c.State], partJSON{p.Name, jsonNumber(p.Value)})
				}
			}
		}
		o.line(decisionLine{d.Tick, d.Agent, d.Machine, scores, parts, optString(d.Winner), d.Kept})
		return
	}
	machine := d.Machine
	if machine == "" {
		machine = "(root)"
	}
	fmt.Fprintf(o.w, "tick %d agent %d decide %s:", d.Tick, d.Agent, machine)
	for _, c := range d.Candidates {
		fmt.Fprintf(o.w, " %s=%s", c.State, strconv.FormatFloat(c.Score, 'g', 6, 64))
		if len(c.Parts) > 0 {
			o.w.WriteString(" [")
			for i, p := range c.Parts {
				if i > 0 {
					o.w.WriteByte(' ')
				}
				fmt.Fprintf(o.w, "%s=%s", p.Name, strconv.FormatFloat(p.Value, 'g', 6, 64))
			}
			o.w.WriteByte(']')
		}
	}
	fmt.Fprintf(o.w, " -> %s", orNone(d.Winner))
	if d.Kept {
		o.w.WriteString(" (kept)")
	}
	o.w.WriteByte('\n')
}

type traceLine struct {
	Tick  int     `json:"tick"`
	Agent int     `json:"agent"`
	State *string `json:"state"`
	Ctx   any     `json:"ctx"`
}

// traceAgent prints an agent's state and context after a tick:
// "tick 3 agent 1 state patrol.walk ctx {"n":3}".
func (o *runOutput) traceAgent(tick int, a *host.Agent) {
	state, _ := a.State()
	ctx := jsonValue(a.Ctx(), map[*lua.LTable]bool{}, 0)
	if o.json {
		o.line(traceLine{tick, a.ID(), optString(state), ctx})
		return
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ctx); err != nil {
		b.WriteString(strconv.Quote(err.Error()))
	}
	fmt.Fprintf(o.w, "tick %d agent %d state %s ctx %s\n", tick, a.ID(), orNone(state), strings.TrimSuffix(b.String(), "\n"))
}

// maxDepth bounds how deep a context is printed.
const maxDepth = 64

// jsonValue converts a Lua value to data encoding/json can print: tables
// whose keys are exactly 1..n become arrays, other tables objects (keys
// sorted by encoding/json); bound Go values print as their %v string,
// functions as "function", a table inside itself as "<cycle>", numbers
// that JSON cannot hold (NaN, ±Inf) as strings.
func jsonValue(v lua.LValue, open map[*lua.LTable]bool, depth int) any {
	switch v := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		return bool(v)
	case lua.LNumber:
		return jsonNumber(float64(v))
	case lua.LString:
		return string(v)
	case *lua.LUserData:
		return fmt.Sprintf("%v", v.Value)
	case *lua.LFunction:
		return "function"
	case *lua.LTable:
		if open[v] {
			return "<cycle>"
		}
		if depth >= maxDepth {
			return "<too deep>"
		}
		open[v] = true
		defer delete(open, v)
		if n, ok := arrayLen(v); ok {
			out := make([]any, n)
			for i := range n {
				out[i] = jsonValue(v.RawGetInt(i+1), open, depth+1)
			}
			return out
		}
		out := map[string]any{}
		v.ForEach(func(k, val lua.LValue) {
			out[jsonKey(k)] = jsonValue(val, open, depth+1)
		})
		return out
	}
	return v.Type().String()
}

// arrayLen reports whether t's keys are exactly 1..n, n ≥ 1.
func arrayLen(t *lua.LTable) (int, bool) {
	count, max, ok := 0, 0, true
	t.ForEach(func(k, _ lua.LValue) {
		count++
		n, isNum := k.(lua.LNumber)
		if !isNum || n < 1 || float64(n) != math.Trunc(float64(n)) || float64(n) > math.MaxInt32 {
			ok = false
			return
		}
		if int(n) > max {
			max = int(n)
		}
	})
	return max, ok && count > 0 && count == max
}

func jsonKey(k lua.LValue) string {
	switch k := k.(type) {
	case lua.LString:
		return string(k)
	case lua.LNumber:
		return strconv.FormatFloat(float64(k), 'g', -1, 64)
	case lua.LBool:
		return strconv.FormatBool(bool(k))
	}
	return k.String() // a table or function key: "table: 0x…"
}

func jsonNumber(f float64) any {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return f
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
