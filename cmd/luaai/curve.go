package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/luaai/luaai/internal/inspect"
)

const curveUsage = `Usage: luaai curve KIND [m=N] [k=N] [b=N] [c=N] [--svg FILE]

Draws the response curve ai.curve(x, {kind = KIND, m = …, k = …, b = …,
c = …}) builds, as a text plot of the score (0..1) against x (0..1), or
as an SVG image with --svg. KIND is linear, polynomial, logistic, logit,
normal, sine or step; m and k default to 1, b and c to 0.

  luaai curve logistic k=2
  luaai curve normal k=0.5 c=0.2 --svg normal.svg

Exit codes: 0 drawn; 1 the SVG file could not be written; 2 a usage error.
`

// curveCmd draws a response curve.
func curveCmd(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("luaai curve", flag.ContinueOnError)
	svg := flags.String("svg", "", "")
	pos, err := parseArgs(flags, args)
	if err != nil {
		return parseFailed(err, stdout, stderr, curveUsage)
	}
	if len(pos) == 0 {
		return usageError(stderr, "curve", curveUsage, "missing KIND")
	}
	params := map[string]float64{"m": 1, "k": 1, "b": 0, "c": 0}
	for _, p := range pos[1:] {
		name, value, ok := strings.Cut(p, "=")
		if _, known := params[name]; !ok || !known {
			return usageError(stderr, "curve", curveUsage, "%q: want m=N, k=N, b=N or c=N", p)
		}
		n, ok := luaNumber(value)
		if !ok {
			return usageError(stderr, "curve", curveUsage, "%s=%s: not a number", name, value)
		}
		params[name] = n
	}
	c, err := inspect.NewCurve(pos[0], params["m"], params["k"], params["b"], params["c"])
	if err != nil {
		return usageError(stderr, "curve", curveUsage, "%v", err)
	}
	if *svg != "" {
		f, err := os.Create(*svg)
		if err == nil {
			err = inspect.CurveSVG(f, c)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "luaai curve: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stdout, "wrote %s\n", *svg)
		return exitOK
	}
	if err := inspect.PlotCurve(stdout, c, 61, 16); err != nil {
		fmt.Fprintf(stderr, "luaai curve: %v\n", err)
		return exitFail
	}
	return exitOK
}
