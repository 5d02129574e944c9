package main

// luaai version: what a bug report needs.

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

const versionUsage = `Usage: luaai version

Prints luaai's version (the module version it was built at, or "(devel)"
for a build from a clone), the Go version it was built with, and the
versions of gopher-lua and gopher-luar it embeds.
`

func versionCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usageError(stderr, "version", versionUsage, "version takes no arguments, got %q", args[0])
	}
	main, deps := "(devel)", map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			main = bi.Main.Version
		}
		for _, d := range bi.Deps {
			deps[d.Path] = d.Version
		}
	}
	fmt.Fprintf(stdout, "luaai %s (%s, gopher-lua %s, gopher-luar %s)\n", main, runtime.Version(),
		orUnknown(deps["github.com/yuin/gopher-lua"]), orUnknown(deps["layeh.com/gopher-luar"]))
	return exitOK
}

func orUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}
