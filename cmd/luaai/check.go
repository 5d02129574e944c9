package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/inspect"
)

const checkUsage = `Usage: luaai check SCRIPT...

Loads and validates each behaviour SCRIPT without running it, and prints on
stdout every problem, one a line, sorted by file and line:

  file:line: message            an error: the script does not load
  file:line: warning: message   suspicious but legal

Warnings: unknown fields in a definition; a state of an fsm that no
transition reaches (only ai.push/ai.replace could); a transition that can
never fire because an earlier one always fires, or whose when is false; a
native condition or scorer (ai.field, ai.gt, ...) reading a context field
that is in no context defaults. Lua functions are not looked into.

A *_test.lua file is only compiled (it runs under luaai test). Prints
nothing for a clean script. Modules are required from the script's
folder and from ./scripts when it exists.

Exit codes: 0 no errors (warnings allowed); 1 a script with an error;
2 a usage error.
`

func checkCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("luaai check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scripts, err := parseArgs(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr, checkUsage)
	}
	if len(scripts) == 0 {
		return usageError(stderr, "check", checkUsage, "missing SCRIPT")
	}
	code := exitOK
	for _, script := range scripts {
		errs, warns := checkScript(script)
		for _, e := range errs {
			fmt.Fprintln(stdout, e)
		}
		for _, w := range warns {
			fmt.Fprintln(stdout, formatWarning(w))
		}
		if len(errs) > 0 {
			code = exitFail
		}
	}
	return code
}

// checkScript loads one script in a fresh host, as `luaai run` would, and
// returns its errors ("file:line: message") or, when it loads, its warnings.
func checkScript(script string) (errs []string, warns host.ErrorList) {
	if strings.HasSuffix(script, "_test.lua") {
		// A test file runs under `luaai test`, with describe/it/assert: here
		// it is only compiled, so "luaai check scripts/*.lua" checks it too.
		if err := inspect.Compile(script); err != nil {
			return loadErrors(script, err), nil
		}
		return nil, nil
	}
	err := withBehaviour(script, func(b *host.Behaviour) error {
		warns = inspect.Lint(inspect.Definition(b))
		return nil
	})
	if err != nil {
		return loadErrors(script, err), nil
	}
	return nil, warns
}

// withBehaviour loads and validates a behaviour script the way `luaai run`
// does (host.LoadFile: the same compile step, sandbox, roots and checks)
// and calls fn with it. The host runs one worker and discards what the
// script prints while it loads.
func withBehaviour(script string, fn func(*host.Behaviour) error) error {
	h, err := host.New(host.Options{Workers: 1, Roots: scriptRoots(script), Stdout: io.Discard})
	if err != nil {
		return err
	}
	defer h.Close()
	b, err := h.LoadFile(script)
	if err != nil {
		return err
	}
	return fn(b)
}

// loadErrors formats why a script did not load, one "file:line: message"
// a line (the error is a host.ErrorList, or a file that cannot be read).
func loadErrors(script string, err error) []string {
	var list host.ErrorList
	if errors.As(err, &list) {
		out := make([]string, len(list))
		for i, e := range list {
			if e.Pos.File == "" {
				e = &host.Problem{Pos: host.Pos{File: script}, Msg: e.Msg}
			}
			out[i] = e.Error()
		}
		return out
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return []string{fmt.Sprintf("%s: %v", pe.Path, pe.Err)}
	}
	return []string{fmt.Sprintf("%s: %v", script, err)}
}

// formatWarning is "file:line: warning: message".
func formatWarning(w *host.Problem) string {
	if w.Pos.File == "" {
		return "warning: " + w.Msg
	}
	return w.Pos.String() + ": warning: " + w.Msg
}
