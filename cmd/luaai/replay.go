package main

// luaai replay FILE [SCRIPT]: the recorded inputs run again against the
// current code, every tick compared with the recorded rows.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/luaai/luaai/inspector"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/safefile"
)

const replayUsage = `Usage: luaai replay FILE [SCRIPT...] [flags]

Runs the inputs a "luaai run --record FILE" recorded (its seed, agents,
--set values, events and context writes, at their ticks) against the
current code of SCRIPT (default: the script the recording names), and
compares every agent's state and context with the recording after each
tick. It prints "identical for N ticks", or the first tick, agent and
field that differ with the recorded and the current value (exit 1): what
did my edit change?

A recording of several scripts (luaai run a.lua b.lua --agents 1,2
--record FILE) replays them all, each agent with its script; the
difference names the agent's script, and the scripts whose files changed
since the recording are named first. Give all the scripts, in the
recorded order, or none.

Flags (before or after FILE):
  --inspect [ADDR]     after the replay, serve the inspector (default
                       127.0.0.1:7070) with its history slider over the
                       whole run; Ctrl-C ends it
  --inspect-token T    required with an --inspect address beyond this
                       machine

Exit codes: 0 identical; 1 a difference, or a recording or script that
cannot be read; 2 a usage error.
`

// maxRecording bounds what a recording may hold once decompressed.
const maxRecording = 1 << 30

// recording is a recording read whole: its lines kept as they were
// written (checked as they are read, decoded again tick by tick), so a
// recording costs about its decompressed size in memory, not the many
// times that decoded values take.
type recording struct {
	file     string
	header   recHeader
	inputs   map[int][][]byte // input lines by tick
	rows     map[int][][]byte // agent rows by tick
	reloadAt int              // the first tick a reload came before; 0: none
	last     int              // the last tick seen
	end      int              // the end line's tick; -1 when missing (truncated)
}

// readRecording reads a recording, gzipped or not; errors name the file
// and the line.
//
// It is long because it reads the header and checks each of its fields
// against the limits, in the order the file gives them.
func readRecording(file string) (*recording, error) {
	f, err := safefile.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		r = gz
	}
	rec := &recording{file: file, inputs: map[int][][]byte{}, rows: map[int][][]byte{}, end: -1}
	agents0 := map[int]bool{} // agents with a row at tick 0
	sc := bufio.NewScanner(io.LimitReader(r, maxRecording))
	sc.Buffer(make([]byte, 64<<10), maxSnapshotFile+1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if n == 1 {
			if err := rec.readHeader(line); err != nil {
				return nil, err
			}
			continue
		}
		if rec.end >= 0 {
			return nil, fmt.Errorf("%s:%d: a line after the end line", file, n)
		}
		var l recLine
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s:%d: not a recording line (%w)", file, n, err)
		}
		if l.End == nil {
			if l.Tick < rec.last {
				return nil, fmt.Errorf("%s:%d: tick %d comes after tick %d", file, n, l.Tick, rec.last)
			}
			rec.last = l.Tick
		}
		switch {
		case l.End != nil:
			rec.end = *l.End
		case l.Input != nil:
			rec.inputs[l.Tick] = append(rec.inputs[l.Tick], bytes.Clone(line))
		case l.Reload != "":
			if rec.reloadAt == 0 {
				rec.reloadAt = l.Tick
			}
		case l.Agent > 0:
			rec.rows[l.Tick] = append(rec.rows[l.Tick], bytes.Clone(line))
			if l.Tick == 0 && len(agents0) <= maxAgents {
				agents0[l.Agent] = true
			}
		default:
			return nil, fmt.Errorf("%s:%d: a line that is neither an input, a row, a reload nor the end", file, n)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return rec, fmt.Errorf("%s: truncated after tick %d (%w)", file, rec.last, err)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: empty: not a luaai recording", file)
	}
	if len(rec.header.Snapshot) == 0 && len(agents0) < rec.header.Agents {
		// The recorder writes every agent's row at tick 0: a header that
		// claims more agents than that would spawn them for nothing.
		return nil, fmt.Errorf("%s:1: the header claims %d agents, and tick 0 has rows for %d", file, rec.header.Agents, len(agents0))
	}
	if rec.end >= 0 && rec.end < rec.last {
		return nil, fmt.Errorf("%s: the end line's tick %d comes before tick %d", file, rec.end, rec.last)
	}
	if rec.end > rec.last+maxQuietTicks {
		return nil, fmt.Errorf("%s: the end line's tick %d is more than %d ticks after the last line (tick %d): not a recording luaai wrote", file, rec.end, maxQuietTicks, rec.last)
	}
	if rec.end < 0 {
		return rec, fmt.Errorf("%s: truncated after tick %d: it has no end line (was the run that wrote it killed?)", file, rec.last)
	}
	return rec, nil
}

// maxQuietTicks bounds the ticks a recording may end after its last line:
// a run in which no agent changed for that long (over four hours at 60
// ticks a second) is taken for a forged end.
const maxQuietTicks = 1 << 20

// decodeLine decodes a line readRecording has already checked.
func decodeLine(raw []byte) recLine {
	var l recLine
	_ = json.Unmarshal(raw, &l)
	return l
}

func (rec *recording) readHeader(line []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil || probe["luaai_recording"] == nil {
		return fmt.Errorf("%s:1: not a luaai recording (luaai run --record writes them)", rec.file)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec.header); err != nil {
		return fmt.Errorf("%s:1: a recording header this luaai cannot read (%w)", rec.file, err)
	}
	h := rec.header
	switch {
	case h.Format != recordingFormat:
		return fmt.Errorf("%s:1: a recording of format %d; this luaai reads format %d", rec.file, h.Format, recordingFormat)
	case h.Script == "":
		return fmt.Errorf("%s:1: the header names no script", rec.file)
	case h.Workers < 1 || h.Workers > 1024:
		return fmt.Errorf("%s:1: workers %d is out of range", rec.file, h.Workers)
	case h.Agents < 1 || h.Agents > maxAgents:
		return fmt.Errorf("%s:1: agents %d is out of range", rec.file, h.Agents)
	case !(h.Dt >= 0 && h.Dt <= 1e6):
		return fmt.Errorf("%s:1: dt %v is out of range", rec.file, h.Dt)
	case len(h.Scripts) > maxAgents:
		return fmt.Errorf("%s:1: %d scripts is out of range", rec.file, len(h.Scripts))
	}
	if len(h.Scripts) > 0 {
		total := 0
		for i, s := range h.Scripts {
			if s.Script == "" || s.Agents < 1 || s.Agents > maxAgents {
				return fmt.Errorf("%s:1: script %d of the header names no script, or agents out of range", rec.file, i+1)
			}
			total += s.Agents
		}
		if total != h.Agents {
			return fmt.Errorf("%s:1: the scripts' agents add up to %d, the header says %d", rec.file, total, h.Agents)
		}
	}
	return nil
}

// underFolderOf refuses a recorded script that is not in the recording's
// folder or below it: a recording from elsewhere must not make replay run
// any file of the machine (name the script on the command line instead).
func underFolderOf(script, recording string) error {
	dir, err1 := filepath.Abs(filepath.Dir(recording))
	abs, err2 := filepath.Abs(script)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(dir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil
		}
	}
	return fmt.Errorf("%s names the script %s, outside the recording's folder: replay runs it only when named: luaai replay %s %s", recording, script, recording, script)
}

func replayCmd(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return replayContext(ctx, args, stdout, stderr)
}

// It is long because it is the replay loop itself: tick, compare every agent
// with the recorded row, report the first difference; the steps share the
// comparison state.
func replayContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var inspect, token string
	fs := flag.NewFlagSet("luaai replay", flag.ContinueOnError)
	fs.Var(&inspectFlag{&inspect}, "inspect", "")
	fs.StringVar(&token, "inspect-token", "", "")
	pos, err := parseArgs(fs, joinInspectAddr(args))
	if err != nil {
		return parseFailed(err, stdout, stderr, replayUsage)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if len(pos) == 0 {
		return usageError(stderr, "replay", replayUsage, "want FILE [SCRIPT...], got no arguments")
	}
	icfg := &runConfig{inspect: inspect, inspectToken: token, inspectHistory: 1}
	if msg := checkInspect(icfg, given); msg != "" {
		return usageError(stderr, "replay", replayUsage, "%s", msg)
	}
	// A recording's file names, script, states and keys are anyone's:
	// every line printed from it goes through oneLine.
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "luaai replay: %s\n", oneLine(fmt.Sprintf(format, args...)))
		return exitFail
	}
	rec, readErr := readRecording(pos[0])
	if rec == nil {
		return fail("%v", readErr)
	}
	hd := rec.header
	cast := rec.cast()
	if given := pos[1:]; len(given) > 0 {
		if len(given) != len(cast) {
			return usageError(stderr, "replay", replayUsage, "%s recorded %d script%s: give all of them, in order, or none (got %d)", pos[0], len(cast), plural(len(cast)), len(given))
		}
		for i := range cast {
			cast[i].Script = given[i]
		}
	} else {
		for _, c := range cast {
			if err := underFolderOf(c.Script, pos[0]); err != nil {
				return fail("%v", err)
			} else if _, err := os.Stat(c.Script); err != nil {
				return fail("the recorded script %s is not there (%v): give the scripts to replay with, luaai replay %s SCRIPT...", c.Script, errors.Unwrap(err), pos[0])
			}
		}
	}
	script := cast[0].Script
	scripts := make([]string, len(cast))
	for i, c := range cast {
		scripts[i] = c.Script
	}
	// Results do not depend on the workers: more than the cores gain
	// nothing, and a forged header must not make a thousand Lua states.
	workers := min(hd.Workers, runtime.GOMAXPROCS(0))
	opts := engineOptions(script, hd.Seed, workers)
	opts.Roots = scriptRootsAll(scripts)
	opts.Stdout = io.Discard
	h, err := host.New(opts)
	if err != nil {
		return fail("%v", err)
	}
	defer h.Close()
	var bs []*host.Behaviour
	for _, c := range cast {
		b, err := h.LoadFile(c.Script)
		if err != nil {
			for _, e := range loadErrors(c.Script, err) {
				fmt.Fprintln(stderr, oneLine(e))
			}
			return exitFail
		}
		if sum, err := scriptHash(b.Files()); err == nil && sum != c.SHA256 {
			what := c.Script
			if changed := changedFiles(c.Files, filesOf(c.Script, b.Files())); len(c.Files) > 0 && len(changed) > 0 {
				what = strings.Join(changed, ", ")
				if len(cast) > 1 && what != filepath.Base(c.Script) {
					what = filepath.Base(c.Script) + ": " + what // a module it requires
				}
			}
			fmt.Fprintf(stderr, "luaai replay: %s differs from the recorded version: comparing\n", oneLine(what))
		}
		bs = append(bs, b)
	}
	b := bs[0]
	var viewer *runLoop
	var stopInspect func()
	if inspect != "" {
		// Attached before the first tick, so the slider covers the run.
		viewer = &runLoop{cfg: &runConfig{forever: true, dt: hd.Dt, script: script, scripts: scripts}, out: newRunOutput(stdout, stderr, false), h: h, b: b, more: bs[1:]}
		n := hd.Agents
		stopInspect, err = viewer.startInspector(ctx, inspect, inspector.Options{History: max(rec.last+1, 1), Token: token, AutoWatch: min(max(n, 16), 64)})
		if err != nil {
			return fail("--inspect %s: %v", inspect, err)
		}
		defer stopInspect()
	}

	start, err := rec.spawn(h, bs, cast)
	if err != nil {
		return fail("%v", err)
	}
	over := func(b *host.Behaviour) map[string]any {
		o, _ := overrides(settingsFor(rec.settings(), b, len(bs)), b)
		return o
	}
	if viewer != nil {
		viewer.insp.Refresh() // the agents as spawned: the slider starts at their first tick
	}
	want := map[int]agentRow{}
	compared := 0 // ticks run and compared
	_, diff := rec.compare(h, start, want)
	last := rec.last
	if rec.end >= 0 {
		last = rec.end
	} else {
		last-- // the last tick seen may be cut short
	}
	if rec.reloadAt > 0 {
		last = min(last, rec.reloadAt-1)
	}
	for tick := start + 1; diff == "" && tick <= last; tick++ {
		for i, raw := range rec.inputs[tick] {
			in := decodeLine(raw).Input
			l := in.line(fmt.Sprintf("%s: input %d of tick %d", rec.file, i+1, tick))
			l.applyTo(h, oneLineWriter{stderr}, over)
		}
		if err := h.TickContext(ctx, hd.Dt); err != nil {
			return fail("tick %d: %v", tick, err)
		}
		compared++
		_, diff = rec.compare(h, tick, want)
	}
	code := exitOK
	switch {
	case diff != "":
		fmt.Fprintf(stdout, "differs at %s\n", oneLine(diff))
		code = exitFail
	default:
		fmt.Fprintf(stdout, "identical for %d ticks\n", compared)
		if rec.reloadAt > 0 {
			fmt.Fprintf(stdout, "(the recorded run reloaded its script before tick %d: the replay stops there)\n", rec.reloadAt)
		}
	}
	if readErr != nil {
		fmt.Fprintf(stderr, "luaai replay: %s\n", oneLine(readErr.Error()))
		code = exitFail
	}
	if viewer != nil {
		viewer.paused = true
		fmt.Fprintf(stderr, "luaai replay: the inspector at %s shows the run; Ctrl-C ends\n", viewer.url)
		viewer.insp.Refresh()
		viewer.run(ctx, last, h.Agents())
	}
	return code
}

// cast is the recorded scripts with their agents and digests, in order:
// the one script of a single-script recording.
func (rec *recording) cast() []recScript {
	hd := rec.header
	if len(hd.Scripts) > 0 {
		return slices.Clone(hd.Scripts)
	}
	return []recScript{{Script: hd.Script, Agents: hd.Agents, SHA256: hd.SHA256, Files: hd.Files}}
}

// settings are the recorded --set values.
func (rec *recording) settings() []setting {
	var set []setting
	for _, s := range rec.header.Set {
		set = append(set, setting{path: strings.Split(s.Path, "."), raw: s.Raw})
	}
	return set
}

// spawn starts the recorded agents: from the snapshot, or spawned with the
// recorded --set values, those of each script of cast in order. It
// returns the tick they start from.
func (rec *recording) spawn(h *host.Host, bs []*host.Behaviour, cast []recScript) (int, error) {
	hd := rec.header
	if len(hd.Snapshot) > 0 {
		agents, err := h.Restore(hd.Snapshot, bs...)
		if err != nil {
			return 0, fmt.Errorf("%s: the recorded snapshot: %w", rec.file, err)
		}
		start := 0
		for _, a := range agents {
			start = max(start, a.Ticks())
		}
		return start, nil
	}
	for i, b := range bs {
		over, err := overrides(settingsFor(rec.settings(), b, len(bs)), b)
		if err != nil {
			return 0, fmt.Errorf("%s: the recorded --set: %w", rec.file, err)
		}
		for range cast[i].Agents {
			if _, err := h.Spawn(b, over); err != nil {
				return 0, err
			}
		}
	}
	return 0, nil
}
