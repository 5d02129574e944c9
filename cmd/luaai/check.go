package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/inspect"
)

const checkUsage = `Usage: luaai check SCRIPT|DIR... [--explain]

Loads and validates each behaviour SCRIPT without running it, and prints on
stdout every problem, one a line, sorted by file and line:

  file:line: message            an error: the script does not load
  file:line: warning: message   suspicious but legal

Warnings: unknown fields in a definition; a state of an fsm that no
transition reaches (only ai.push/ai.replace could); a transition that can
never fire because an earlier one always fires, or whose when is false; a
native condition or scorer (ai.field, ai.gt, ...) reading a context field
that is in no context defaults. Lua functions are not looked into.

A .lua file that is a symbolic link leading out of its DIR (or, for a
SCRIPT, out of its folder), or that is not a regular file, is refused, as
require refuses it.

A DIR is every .lua file below it in name order (folders named testdata,
or starting with "." or "_", are skipped, as luaai test skips them). A *_test.lua or *_spec.lua file is only compiled (it runs under
luaai test), and so is a file found in a DIR that returns something
other than a machine (a module). When no file has an error, the last line
is "ok: N files" (with ", W warnings" when there are some). Modules are
required from the script's folder and from ./scripts when it exists.

--explain also lists every function a script defines, one a line:
"file:line: compiled" when it runs compiled to Go as a callback (a short
condition, scorer or update: see docs/performance-compiled.md), or
"file:line: VM: why" with the first construct that keeps it in the VM.

Exit codes: 0 no errors (warnings allowed); 1 a script with an error;
2 a usage error.
`

func checkCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("luaai check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	explain := fs.Bool("explain", false, "")
	scripts, err := parseArgs(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr, checkUsage)
	}
	if len(scripts) == 0 {
		return usageError(stderr, "check", checkUsage, "missing SCRIPT")
	}
	code := exitOK
	var files []checkFile
	for _, arg := range scripts {
		found, err := expandCheckArg(arg)
		if err != nil {
			fmt.Fprintln(stdout, oneLine(err.Error()))
			code = exitFail
			continue
		}
		files = append(files, found...)
	}
	// Each line names a file or a state the script chose: printed through
	// oneLine, no name can forge a line.
	warnings := 0
	for _, f := range files {
		if err := inspect.CheckFile(f.root, f.path); err != nil {
			fmt.Fprintln(stdout, oneLine(f.path+": "+err.Error()))
			code = exitFail
			continue
		}
		errs, warns := checkScript(f.path, f.inDir)
		for _, e := range errs {
			fmt.Fprintln(stdout, oneLine(e))
		}
		for _, w := range warns {
			fmt.Fprintln(stdout, formatWarning(w))
		}
		warnings += len(warns)
		if len(errs) > 0 {
			code = exitFail
		} else if *explain {
			explainCompiled(stdout, f.path) // explain.go
		}
	}
	if code == exitOK {
		fmt.Fprintf(stdout, "ok: %d file%s", len(files), plural(len(files)))
		if warnings > 0 {
			fmt.Fprintf(stdout, ", %d warning%s", warnings, plural(warnings))
		}
		fmt.Fprintln(stdout)
	}
	return code
}

// checkFile is a file to check, whether a folder argument found it, and
// the folder its links must not lead out of: that folder argument, or
// the script's own folder.
type checkFile struct {
	path  string
	inDir bool
	root  string
}

// expandCheckArg is a SCRIPT as given, or the .lua files below a DIR in
// name order (the folders luaai test skips are skipped).
func expandCheckArg(arg string) ([]checkFile, error) {
	st, err := os.Stat(arg)
	if err != nil || !st.IsDir() {
		return []checkFile{{path: arg, root: filepath.Dir(arg)}}, nil // a file, or an error checkScript reports
	}
	var out []checkFile
	err = filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != arg && skipDir(d.Name()) { // as luaai test walks folders
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".lua") {
			out = append(out, checkFile{path: p, inDir: true, root: arg})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no .lua files in this folder", arg)
	}
	return out, nil
}

// checkScript checks one script with inspect.CheckScript (what luaai lsp
// checks too) and returns its errors ("file:line: message") or, when it
// loads, its warnings. A file found in a DIR may be a module: then it is
// only compiled.
func checkScript(script string, inDir bool) (errs []string, warns host.ErrorList) {
	res := inspect.CheckScript(context.Background(), script, inspect.CheckOptions{Roots: scriptRoots(script), Module: inDir})
	if len(res.Errors) > 0 {
		return loadErrors(script, res.Errors), nil
	}
	return nil, res.Warnings
}

// withBehaviour loads and validates a behaviour script the way `luaai run`
// does (host.LoadFile: the same compile step, sandbox, roots and checks)
// and calls fn with it. The host runs one worker and discards what the
// script prints while it loads.
func withBehaviour(script string, fn func(*host.Behaviour) error) error {
	opts := engineOptions(script, 0, 1)
	opts.Stdout = io.Discard
	h, err := host.New(opts)
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

// formatWarning is "file:line: warning: message", through oneLine (the
// message may quote a name the script chose).
func formatWarning(w *host.Problem) string {
	if w.Pos.File == "" {
		return oneLine("warning: " + w.Msg)
	}
	return oneLine(w.Pos.String() + ": warning: " + w.Msg)
}
