package main

// The run loop: ticks, pacing, and reloads between ticks.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/inspector"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/inspect"
)

// runLoop ticks the host, paced or not, and reloads the behaviour between
// ticks when the watcher (if any) says its files changed. It owns the host:
// nothing else touches it while it runs.
type runLoop struct {
	in   *runInput // --input, nil without
	cfg  *runConfig
	out  *runOutput
	h    *host.Host
	b    *host.Behaviour   // the first script's
	more []*host.Behaviour // the other scripts', in the order given
	w    *watcher          // nil without --watch
	// sums: the content of each behaviour's files at its last load or
	// reload, so that with several scripts a change reloads only those it
	// touches.
	sums map[*host.Behaviour]string
	prog *progress // nil unless stderr is a terminal

	// pause, step and resume (commands on --input -, the terminal or the
	// inspector).
	paused  bool
	steps   int  // ticks left to run while paused
	stepped bool // the tick about to run is the last of a step

	hz   float64 // the pace: cfg.hz, or what the inspector set
	insp *inspector.Handler
	cmds <-chan inspector.Command // from the inspector's page
	url  string                   // the inspector's address, for messages
	rec  *recorder                // --record, nil without
	over spawnOverrides           // what respawn gives a new context (--set)
}

// run ticks until cfg.ticks more ticks are done (or forever) or ctx is done.
// done is the number of ticks the agents had before.
func (l *runLoop) run(ctx context.Context, done int, agents []*host.Agent) error {
	l.hz = l.cfg.hz
	timer := time.NewTimer(0)
	defer timer.Stop()
	next := time.Now()
	defer l.prog.clear()
	l.syncStatus()
	for i := 1; l.cfg.forever || i <= l.cfg.ticks; i++ {
		var due <-chan time.Time
		if l.hz > 0 {
			next = next.Add(l.period())
			timer.Reset(time.Until(next))
			due = timer.C
		}
		if !l.between(ctx, done, due) {
			return nil // interrupted
		}
		if now := time.Now(); l.hz > 0 && now.Sub(next) > l.period() {
			// Late by more than a tick (a pause, a slow tick, a new
			// rate): the pace starts again from now rather than catching
			// up in a burst.
			next = now
		}
		l.in.apply(l.h, done+1, l.out.stderr, l.rec)
		if err := l.h.Tick(l.cfg.dt); err != nil {
			return err
		}
		l.out.endTick()
		done++
		if err := l.rec.tick(done, l.h); err != nil {
			return fmt.Errorf("--record %s: %w", l.cfg.record, err)
		}
		if l.cfg.trace {
			for _, a := range agents {
				l.out.traceAgent(done, a) // the run's tick: a suspended agent's own count stands still
			}
		}
		l.out.flush()
		l.prog.update(i)
		if l.stepped {
			l.stepped = false
			fmt.Fprintf(l.out.stderr, "paused at tick %d\n", done)
			l.syncStatus()
		}
		if l.cfg.pauseAt > 0 && done == l.cfg.pauseAt && !l.paused {
			l.paused = true
			fmt.Fprintf(l.out.stderr, "luaai run: paused after %d ticks (--ticks); %s steps and resumes, Ctrl-C ends the run\n", done, l.url)
			l.syncStatus()
		}
	}
	return nil
}

// period is the time between two ticks at the current pace.
func (l *runLoop) period() time.Duration { return time.Duration(float64(time.Second) / l.hz) }

// syncStatus tells the inspector's page whether the run is paused and at
// what pace it runs.
func (l *runLoop) syncStatus() {
	if l.insp != nil {
		l.insp.SetStatus(l.paused && l.steps == 0, l.hz)
	}
}

// command takes a command from the inspector's page, between ticks.
func (l *runLoop) command(c inspector.Command, done int) {
	op := c.Op
	if c.Op == "resume" && c.ForAgents() {
		op = "resume agents"
	}
	switch op {
	case "resume agents", "reset", "respawn":
		in := inputLine{where: "inspector", resume: op == "resume agents", reset: op == "reset", respawn: op == "respawn", all: c.All}
		var errs []error
		if c.All {
			errs = append(errs, l.take(in, done))
		}
		for _, id := range c.Agents {
			in.agent = id
			errs = append(errs, l.take(in, done))
		}
		l.insp.Done(c.Seq, errors.Join(errs...))
	case "pause", "resume", "step":
		l.take(inputLine{control: string(c.Op), steps: c.Steps}, done)
	case "rate":
		l.hz = c.Hz
		fmt.Fprintf(l.out.stderr, "luaai run: %g ticks a second (from the inspector)\n", c.Hz)
	case "send", "set":
		targets := []inputLine{{all: true}}
		if !c.All {
			targets = targets[:0]
			for _, id := range c.Agents {
				targets = append(targets, inputLine{agent: id})
			}
		}
		var errs []error
		for _, in := range targets {
			in.where = "inspector"
			if c.Op == "send" {
				in.send, in.payload = c.Event, c.Payload
			} else {
				in.set = map[string]any{strings.Join(c.Path, "."): c.Value}
			}
			if err := l.take(in, done); err != nil {
				errs = append(errs, err)
			}
		}
		l.insp.Done(c.Seq, errors.Join(errs...))
	}
	l.syncStatus()
	if l.paused {
		l.insp.Refresh() // the page sees what it changed before the next tick
	}
}

// between serves what comes in before the next tick — reloads, watcher
// errors — until due fires (at once when due is nil). It reports false when
// ctx is done.
//
// It is long because it is everything the loop does between two ticks
// (input, console, reloads, pacing, the inspector's commands), in the order
// it does them.
func (l *runLoop) between(ctx context.Context, done int, due <-chan time.Time) bool {
	var changed <-chan struct{}
	var errs <-chan error
	if l.w != nil {
		changed, errs = l.w.Changed(), l.w.Errors()
	}
	var live <-chan inputLine
	var bad <-chan error
	if l.in != nil {
		live, bad = l.in.live, l.in.errs
	}
	var refresh <-chan time.Time
	if l.insp != nil {
		// A page that picks an agent while the run is paused gets its
		// frame at the next refresh.
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		refresh = t.C
	}
	for {
		if l.paused && l.steps > 0 {
			// A step runs its ticks at once, whatever the pace, and before
			// the lines after it are read: lines apply in their order.
			if ctx.Err() != nil {
				return false
			}
			l.steps--
			l.stepped = l.steps == 0
			return true
		}
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
		case in := <-live:
			l.take(in, done)
			continue
		case err := <-bad:
			fmt.Fprintln(l.out.stderr, err)
			if l.in.counts {
				l.in.refused++
			}
			continue
		case c := <-l.cmds:
			l.command(c, done)
			if c.Op == "rate" && due != nil {
				due = time.After(l.period())
			}
			continue
		default:
		}
		if l.paused {
			due = nil // waits for a command
		} else if due == nil {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-changed:
			l.reload(done)
		case err := <-errs:
			l.out.watchError(err)
		case in := <-live:
			l.take(in, done)
		case err := <-bad:
			fmt.Fprintln(l.out.stderr, err)
			if l.in.counts {
				l.in.refused++
			}
		case c := <-l.cmds:
			l.command(c, done)
			if c.Op == "rate" && due != nil {
				due = time.After(l.period())
			}
		case <-refresh:
			l.insp.Refresh()
		case <-due:
			return true
		}
	}
}

// take takes a line from --input - or the terminal between ticks: a
// line for a later tick waits for it, anything else applies at once.
// done is the number of ticks done.
func (l *runLoop) take(in inputLine, done int) error {
	say := func(format string, args ...any) { fmt.Fprintf(l.out.stderr, format+"\n", args...) }
	switch in.control {
	case "":
		if in.tick == 0 || in.tick <= done+1 {
			// Due before the next tick: applied now, which is between
			// ticks too, so that a paused run reports a bad set at once.
			err := in.applyTo(l.h, l.out.stderr, l.over)
			if err != nil && l.in != nil && l.in.counts && in.where != "inspector" {
				l.in.refused++
			}
			if !in.show {
				l.rec.input(done+1, in)
			}
			return err
		}
		l.in.pending = append(l.in.pending, in)
	case "pause":
		if !l.paused || l.steps > 0 {
			say("paused at tick %d (step [N] runs ticks, resume goes on)", done)
		}
		l.paused, l.steps, l.stepped = true, 0, false
	case "resume":
		if l.paused {
			say("resumed at tick %d", done)
		}
		l.paused, l.steps, l.stepped = false, 0, false
	case "step":
		l.paused, l.steps = true, in.steps
	case "help":
		say("%s", commandHelp)
	}
	l.syncStatus()
	return nil
}

// reload reloads the behaviours whose files changed (the one behaviour of
// a single-script run whenever its watcher fires) and watches what they
// now require. done is the number of ticks done.
func (l *runLoop) reload(done int) {
	var files []string
	failed := false
	for i, b := range append([]*host.Behaviour{l.b}, l.more...) {
		script := l.cfg.scripts[i]
		if len(l.more) == 0 || l.changed(b) {
			f, err := l.reloadOne(done, b, script)
			files, failed = append(files, f...), failed || err != nil
		} else {
			files = append(files, b.Files()...)
		}
	}
	if err := l.w.set(files, failed); err != nil {
		l.out.watchError(err)
	}
}

// changed reports whether b's files changed since its last load or
// reload, and remembers them as they are now.
func (l *runLoop) changed(b *host.Behaviour) bool {
	sum := filesSum(b.Files())
	if l.sums == nil {
		l.sums = map[*host.Behaviour]string{}
	}
	old, ok := l.sums[b]
	l.sums[b] = sum
	return !ok || old != sum
}

// filesSum is a digest of the files' contents (a missing file counts as
// empty).
func filesSum(files []string) string {
	h := sha256.New()
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(h, "%s %d\n", f, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// reloadOne reloads b from script and returns the files to watch for it,
// and the reload's error.
func (l *runLoop) reloadOne(done int, b *host.Behaviour, script string) ([]string, error) {
	err := l.out.reload(done, script, func() error {
		if l.cfg.strict {
			// Looked at in a scratch host first: with warnings, the old
			// version keeps running.
			var warns host.ErrorList
			err := withBehaviour(script, func(b *host.Behaviour) error {
				warns = inspect.Lint(hosttool.Definition(b))
				return nil
			})
			if err != nil {
				return err
			}
			if len(warns) > 0 {
				lines := make([]string, len(warns))
				for i, w := range warns {
					lines[i] = formatWarning(w)
				}
				return fmt.Errorf("--strict: %s", strings.Join(lines, "\n--strict: "))
			}
		}
		return b.Reload()
	})
	if err == nil {
		for _, w := range inspect.Lint(hosttool.Definition(b)) {
			fmt.Fprintln(l.out.stderr, formatWarning(w))
		}
	}
	l.rec.reload(done+1, err)
	files := b.Files()
	if err != nil {
		// A module that broke the reload is not among b.Files() when it is
		// newly required: watch the files the error names too, so that
		// fixing them reloads.
		files = append(files, errorFiles(err)...)
	}
	return files, err
}
