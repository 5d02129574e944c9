package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/internal/inspect"
)

const graphUsage = `Usage: luaai graph SCRIPT [--format dot|mermaid] [--coverage FILE]

Prints the behaviour SCRIPT's whole hierarchy as a diagram on stdout:
Graphviz DOT (the default; render it with "dot -Tsvg") or a Mermaid state
diagram (paste it into Markdown as a mermaid block).

Nested machines are clusters (DOT) or composite states (Mermaid); each
machine's initial state has an edge from a point (DOT) or from [*]
(Mermaid). Transitions are edges labelled with push/pop, "on <event>",
"after <s>s" and "when <condition>" (a Lua function shows as fn@file:line);
in DOT, to is solid, push dashed and pop dotted. A pop goes to the
machine's "(previous)" pseudo-state: the state below on the stack, which
depends on how the state was reached. Children of a utility machine show
their score.

Flags:
  --format F       dot or mermaid (default dot)
  --coverage FILE  mark the parts that never ran (grey and dashed) from the
                   JSON of luaai test --coverage=FILE or luaai explore --coverage

Exit codes: 0 success; 1 the script does not load; 2 a usage error.
`

func graphCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("luaai graph", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", inspect.GraphDOT, "")
	covFile := fs.String("coverage", "", "")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr, graphUsage)
	}
	switch {
	case len(pos) == 0:
		return usageError(stderr, "graph", graphUsage, "missing SCRIPT")
	case len(pos) > 1:
		return usageError(stderr, "graph", graphUsage, "one SCRIPT at a time, got %q", pos)
	case *format != inspect.GraphDOT && *format != inspect.GraphMermaid:
		return usageError(stderr, "graph", graphUsage, "--format must be dot or mermaid, got %q", *format)
	}
	script := pos[0]
	opts := inspect.GraphOptions{Format: *format}
	if *covFile != "" {
		never, err := readNever(*covFile, script)
		if err != nil {
			fmt.Fprintf(stderr, "luaai graph: --coverage %s: %v\n", *covFile, err)
			return exitFail
		}
		opts.Never = never
	}
	w := bufio.NewWriter(stdout)
	var drawErr error
	err = withBehaviour(script, func(b *host.Behaviour) error {
		drawErr = inspect.WriteGraphWith(w, hosttool.Definition(b), script, opts)
		return nil
	})
	if err != nil {
		for _, e := range loadErrors(script, err) {
			fmt.Fprintln(stderr, oneLine(e))
		}
		return exitFail
	}
	if drawErr != nil {
		fmt.Fprintf(stderr, "luaai graph: %v\n", drawErr)
		return exitFail
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "luaai graph: %v\n", err)
		return exitFail
	}
	return exitOK
}
