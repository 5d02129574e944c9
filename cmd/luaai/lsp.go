package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/luaai/luaai/lsp"
)

const lspUsage = `Usage: luaai lsp [--stdio]

Runs luaai's language server on stdin and stdout, for an editor to start
beside lua-language-server (docs/editors.md says how): diagnostics as you
type (what luaai check says, at the name or string concerned), completion
of state names in to/push/initial/ai.push/ai.replace strings, of events in
on/ai.send strings and of context fields after ctx., go to a state's
definition or a required module, hover on a state, the outline of the
machines, and rename of a state (with the renamed entry that keeps agents
in place on reload). --stdio is accepted, and is the only transport.

It reports on stderr what it skipped (input that is not a message) and
what failed. Modules are required from each script's folder and from the
scripts/ folder of the workspace, as luaai run does.

Exit codes: 0 after the editor's shutdown; 1 an exit without shutdown, or
the input ended first; 2 a usage error.
`

// lspCmd serves the language server on stdin and stdout.
func lspCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("luaai lsp", flag.ContinueOnError)
	fs.Bool("stdio", true, "serve on stdin and stdout (the default, and the only transport)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr, lspUsage)
	}
	if len(pos) != 0 {
		return usageError(stderr, "lsp", lspUsage, "takes no arguments, got %q", pos)
	}
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	rw := stdio{Reader: os.Stdin, Writer: stdout}
	err = lsp.Serve(context.Background(), rw, lsp.Options{Log: stderr, Version: version})
	if err != nil {
		if !errors.Is(err, io.EOF) {
			fmt.Fprintln(stderr, err)
		}
		return exitFail
	}
	return exitOK
}

// stdio is the server's connection: stdin, and the command's stdout.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
