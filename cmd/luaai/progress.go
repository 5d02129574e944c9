package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// isTerminal reports whether w is a terminal; a variable so tests can
// pretend. Only terminals get a progress line: piped output stays clean.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress draws "tick 1200/5000 (24%) 3.1s" on stderr, redrawn in place at
// most five times a second, once a run has taken more than a second.
type progress struct {
	w           io.Writer
	total       int
	start, last time.Time
	shown       bool
	now         func() time.Time
}

// newProgress returns nil (a no-op) unless w is a terminal and the run has
// a known length.
func newProgress(w io.Writer, total int) *progress {
	if total <= 0 || !isTerminal(w) {
		return nil
	}
	p := &progress{w: w, total: total, now: time.Now}
	p.start = p.now()
	return p
}

func (p *progress) update(done int) {
	if p == nil {
		return
	}
	now := p.now()
	if now.Sub(p.start) < time.Second || now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last, p.shown = now, true
	fmt.Fprintf(p.w, "\r\033[Ktick %d/%d (%d%%) %.1fs", done, p.total, done*100/p.total, now.Sub(p.start).Seconds())
}

// clear erases the progress line, if one was drawn.
func (p *progress) clear() {
	if p != nil && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
