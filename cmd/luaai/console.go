package main

// The terminal of a --watch run (docs/cli.md: The CLI, Commands): commands typed with
// line editing and history (up and down arrows), the run's output written
// above the prompt.

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"
)

// console is a terminal taking commands while the run writes above them.
type console struct {
	t       *term.Terminal
	restore func() // puts the terminal back as it was; nil when not raw

	mu      sync.Mutex
	partial []byte // output written since the last newline
}

// newConsole makes a console over rw (the terminal, in raw mode).
func newConsole(rw io.ReadWriter) *console {
	return &console{t: term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{&keyReader{r: rw}, rw}, "> ")}
}

// keyReader passes a terminal's keys on, spelling the Home and End keys
// the way the line editor knows them: terminals send ESC [1~, ESC [7~ and
// ESC O H for Home (ESC [4~, ESC [8~ and ESC O F for End) as well as
// ESC [H and ESC [F.
type keyReader struct{ r io.Reader }

var keySpellings = strings.NewReplacer(
	"\x1b[1~", "\x1b[H", "\x1b[7~", "\x1b[H", "\x1bOH", "\x1b[H",
	"\x1b[4~", "\x1b[F", "\x1b[8~", "\x1b[F", "\x1bOF", "\x1b[F",
)

func (k *keyReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 && bytes.IndexByte(p[:n], 0x1b) >= 0 {
		// Each replacement is no longer than what it replaces.
		n = copy(p, keySpellings.Replace(string(p[:n])))
	}
	return n, err
}

// openConsole opens the process's terminal as a console, or returns nil
// when stdin or stdout is not a terminal.
func openConsole() *console {
	if !term.IsTerminal(int(os.Stdin.Fd())) || !term.IsTerminal(int(os.Stdout.Fd())) {
		return nil
	}
	st, err := term.MakeRaw(int(os.Stdin.Fd()))
	if err != nil {
		return nil
	}
	c := newConsole(struct {
		io.Reader
		io.Writer
	}{os.Stdin, os.Stdout})
	c.restore = func() { _ = term.Restore(int(os.Stdin.Fd()), st) }
	return c
}

// Close puts the terminal back in the mode it had.
func (c *console) Close() {
	c.mu.Lock()
	if len(c.partial) > 0 {
		c.t.Write(append(c.partial, '\n'))
		c.partial = nil
	}
	c.mu.Unlock()
	c.t.SetPrompt("")
	c.t.Write([]byte("\n"))
	if c.restore != nil {
		c.restore()
	}
}

// Write writes whole lines above the prompt (the prompt and what is being
// typed are redrawn under them); a partial line waits for its end.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.partial = append(c.partial, p...)
	end := bytes.LastIndexByte(c.partial, '\n')
	if end < 0 {
		return len(p), nil
	}
	if _, err := c.t.Write(c.partial[:end+1]); err != nil {
		return 0, err
	}
	c.partial = append(c.partial[:0], c.partial[end+1:]...)
	return len(p), nil
}

// input reads the typed lines as commands (or JSON input lines); Ctrl-C
// or Ctrl-D on an empty line calls stop, which ends the run as an
// interrupt does.
func (c *console) input(stop context.CancelFunc) *runInput {
	return readInput(func() (string, error) {
		line, err := c.t.ReadLine()
		if err != nil {
			stop()
		}
		return line, err
	})
}

// How a --watch run takes the commands typed.
const (
	consoleNone   = ""       // no terminal types them
	consoleEditor = "editor" // the line editor, the run's output above the prompt
	consoleLines  = "lines"  // plain lines from the terminal, the output going elsewhere
)

// consoleMode is how a --watch run without --input takes commands, given
// whether stdin and stdout are terminals: a terminal typing commands while
// stdout goes to a pipe or a file (luaai run … | tee log) still has them
// read.
func consoleMode(stdinTTY, stdoutTTY bool) string {
	switch {
	case stdinTTY && stdoutTTY:
		return consoleEditor
	case stdinTTY:
		return consoleLines
	}
	return consoleNone
}
