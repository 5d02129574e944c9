package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
)

// CheckOptions configure CheckScript. The zero value checks the file on
// disk with the engine's default budgets and no roots besides the
// script's folder.
type CheckOptions struct {
	// Roots are the folders modules are required from besides the
	// script's own (host.Options.Roots).
	Roots []string
	// Text, when not nil, is checked in place of the file's content: an
	// editor's unsaved buffer. Positions and messages still name the path.
	Text []byte
	// Module accepts a script that returns no machine: it is then only
	// compiled, as luaai check does with a module found in a folder.
	Module bool
	// LoadBudget bounds the run of the script's main chunk
	// (host.Options.LoadBudget): a script that never stops loading is
	// stopped and reported. Zero: the engine's default.
	LoadBudget time.Duration
}

// Result is what CheckScript found in one script.
type Result struct {
	// Errors: the script does not load (or, for a test file or a module,
	// does not compile). Each names file:line where it is known.
	Errors scripterr.ErrorList
	// Warnings: what Lint says about a script that loads.
	Warnings scripterr.ErrorList
	// Module: the script returned no machine and Module was set, so it was
	// only compiled.
	Module bool
	// Definition is the loaded root machine (nil when it did not load, or
	// for a test file or a module).
	Definition *defs.State
}

// CheckScript checks one script as `luaai check` does: a test file
// (*_test.lua, *_spec.lua) is only compiled; any other is loaded and
// validated in a fresh host, as `luaai run` loads it (the same compile
// step, sandbox, roots and budgets, what it prints discarded), and its
// definition linted. ctx stops a load that runs too long, as the load
// budget does.
func CheckScript(ctx context.Context, path string, opts CheckOptions) Result {
	if isTestFile(filepath.Base(path)) {
		return Result{Errors: compileErrors(path, opts.Text)}
	}
	loadPath := path
	if opts.Text != nil {
		tmp, cleanup, err := scratchCopy(path, opts.Text)
		if err != nil {
			return Result{Errors: asList(path, err)}
		}
		defer cleanup()
		loadPath = tmp
	}
	res := load(ctx, path, loadPath, opts)
	if loadPath != path {
		renameFile(res.Errors, loadPath, path)
		renameFile(res.Warnings, loadPath, path)
	}
	if opts.Module && isNotAMachine(res.Errors) {
		return Result{Errors: compileErrors(path, opts.Text), Module: true}
	}
	return res
}

func load(ctx context.Context, path, loadPath string, opts CheckOptions) Result {
	roots := opts.Roots
	if loadPath != path {
		// The copy's folder is not the script's: modules still resolve
		// from the script's own folder first.
		roots = append([]string{filepath.Dir(path)}, roots...)
	}
	h, err := host.New(host.Options{Workers: 1, Roots: roots, Stdout: io.Discard, LoadBudget: opts.LoadBudget})
	if err != nil {
		return Result{Errors: asList(path, err)}
	}
	defer h.Close()
	b, err := h.LoadFileContext(ctx, loadPath)
	if err != nil {
		return Result{Errors: asList(loadPath, err)}
	}
	def := hosttool.Definition(b)
	return Result{Warnings: Lint(def), Definition: def}
}

// isTestFile reports whether a file name is a test file that luaai test
// runs (and luaai check only compiles).
func isTestFile(name string) bool {
	return strings.HasSuffix(name, "_test.lua") || strings.HasSuffix(name, "_spec.lua")
}

// isNotAMachine: the only problem is that the file returns no machine.
func isNotAMachine(errs scripterr.ErrorList) bool {
	return len(errs) == 1 && strings.Contains(errs[0].Msg, "the script must return a machine")
}

func compileErrors(path string, text []byte) scripterr.ErrorList {
	var err error
	if text != nil {
		_, err = luabind.Compile(strings.NewReader(string(text)), filepath.ToSlash(path))
	} else {
		_, err = luabind.CompileFile(path)
	}
	if err == nil {
		return nil
	}
	return asList(path, err)
}

// asList turns a load error into problems, each with a file: an
// ErrorList as it is, a file that cannot be read at its path, anything
// else at script.
func asList(script string, err error) scripterr.ErrorList {
	var list scripterr.ErrorList
	if errors.As(err, &list) {
		out := make(scripterr.ErrorList, len(list))
		for i, e := range list {
			if e.Pos.File == "" {
				e = &scripterr.Error{Pos: scripterr.Pos{File: script}, Msg: e.Msg}
			}
			out[i] = e
		}
		return out
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return scripterr.ErrorList{{Pos: scripterr.Pos{File: pe.Path}, Msg: pe.Err.Error()}}
	}
	return scripterr.ErrorList{{Pos: scripterr.Pos{File: script}, Msg: err.Error()}}
}

// scratchCopy writes text to a file of the same name in a new temporary
// folder, so that the load reads the buffer and the source lookups of
// the decoder and the linter find the lines it has.
func scratchCopy(path string, text []byte) (string, func(), error) {
	dir, err := os.MkdirTemp("", "luaai-check-")
	if err != nil {
		return "", nil, fmt.Errorf("a scratch folder for the unsaved text: %w", err)
	}
	tmp := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(tmp, text, 0o600); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("a scratch copy of the unsaved text: %w", err)
	}
	return tmp, func() { os.RemoveAll(dir) }, nil
}

// renameFile makes every problem that names the scratch copy name the
// script instead, in its position and in its message.
func renameFile(list scripterr.ErrorList, from, to string) {
	slashFrom, slashTo := filepath.ToSlash(from), filepath.ToSlash(to)
	for i, e := range list {
		c := *e
		if c.Pos.File == from || c.Pos.File == slashFrom {
			c.Pos.File = to
		}
		c.Msg = strings.ReplaceAll(strings.ReplaceAll(c.Msg, slashFrom, slashTo), from, to)
		list[i] = &c
	}
}
