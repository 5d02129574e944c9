package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/luaai/luaai/internal/suggest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

const usage = `luaai runs game AI behaviours written in Lua.

Usage:
  luaai run SCRIPT [flags]   spawn agents from a behaviour script and tick them,
                             printing every state change
  luaai replay FILE [SCRIPT] run a --record recording again against the
                             current code and say where it first differs
  luaai test [PATH...]       run the *_test.lua files below each PATH (default .)
  luaai bench SCRIPT [flags] measure a behaviour: agent-ticks/s, tick time
                             p50/p99/max, allocations and memory per agent
  luaai check SCRIPT|DIR...  load and validate scripts without running them,
                             printing errors and warnings as file:line
  luaai graph SCRIPT [--format dot|mermaid]
                             print the behaviour as a diagram
  luaai explore SCRIPT [flags]
                             search for inputs that make it fail, and write
                             each failure as a test
  luaai init DIR             write a mod project: a behaviour, its tests, and
                             the editor set-up (.luarc.json, types/luaai.lua,
                             luaai lsp for VS Code, Neovim and Helix)
  luaai types                print the editor definitions of require("luaai")
  luaai lsp                  serve the editor: diagnostics, completion, go to
                             definition, rename of states (beside LuaLS)
  luaai curve KIND [m=N k=N b=N c=N] [--svg FILE]
                             draw a utility response curve
  luaai version              print luaai's, Go's and gopher-lua's versions
  luaai help [COMMAND]       show this help, or a command's flags

Exit codes: 0 success; 1 a script that does not load, a failed test, or a run
during which a callback raised an error; 2 a usage error.
`

// command is one of luaai's commands: its name, its help text (whose
// first line is its usage) and what runs it.
type command struct {
	name  string
	usage string
	run   func(args []string, stdout, stderr io.Writer) int
}

// commands lists every command once: the dispatcher, help and the tests
// (each flag in its help, each command in the overview) read it.
var commands = []command{
	{"run", runUsage, runCmd},
	{"replay", replayUsage, replayCmd},
	{"test", testUsage, testCmd},
	{"bench", benchUsage, benchCmd},
	{"check", checkUsage, checkCmd},
	{"graph", graphUsage, graphCmd},
	{"explore", exploreUsage, exploreCmd},
	{"init", initUsage, initCmd},
	{"types", typesUsage, typesCmd},
	{"lsp", lspUsage, lspCmd},
	{"curve", curveUsage, curveCmd},
	{"version", versionUsage, versionCmd},
}

func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// run is the whole command line: args without the program name. It returns
// the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "help", "-h", "-help", "--help":
		return helpCmd(rest, stdout, stderr)
	case "--version":
		cmd = "version"
	}
	c, ok := findCommand(cmd)
	if !ok {
		fmt.Fprintf(stderr, "luaai: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
	return c.run(rest, stdout, stderr)
}

func helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	c, ok := findCommand(args[0])
	if !ok {
		fmt.Fprintf(stderr, "luaai help: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	fmt.Fprint(stdout, c.usage)
	return exitOK
}

// errUsage marks a command line that cannot be run; the message has been
// printed, and the caller prints the command's usage.
var errUsage = errors.New("usage error")

// parseArgs parses flags that may come before, between or after the
// positional arguments ("luaai run script.lua --ticks 5"), and returns the
// positional ones. A "--" ends the flags: everything after it is positional.
// A -h or --help returns flag.ErrHelp.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.Usage = func() {} // the caller prints its usage where it belongs
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %s", errUsage, flagMessage(fs, err))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usageError prints "luaai CMD: message" and where the usage is, on
// stderr: one line of what is wrong, not the whole help.
func usageError(stderr io.Writer, cmd, cmdUsage, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	if msg == "" {
		fmt.Fprint(stderr, cmdUsage)
		return exitUsage
	}
	fmt.Fprintf(stderr, "luaai %s: %s\n", cmd, strings.TrimSuffix(msg, "\n"))
	fmt.Fprintf(stderr, "Run 'luaai %s --help' for the usage.\n", cmd)
	return exitUsage
}

// parseFailed turns a parseArgs error into an exit code: help on stdout
// (exit 0), or what is wrong on stderr (exit 2).
func parseFailed(err error, stdout, stderr io.Writer, cmdUsage string) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, cmdUsage)
		return exitOK
	}
	cmd := strings.Fields(strings.TrimPrefix(cmdUsage, "Usage: luaai "))[0]
	return usageError(stderr, cmd, cmdUsage, "%s", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
}

// flagMessage rewrites the flag package's error for a person: the flag as
// it is written (--ticks), and for an unknown one the flag meant.
func flagMessage(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = "unknown flag --" + name
		if best := suggest.Closest(name, names); best != "" {
			msg += " (did you mean --" + best + "?)"
		}
		return msg
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "--" + name + " needs a value"
	}
	// invalid value "x" for flag -ticks: parse error
	return strings.Replace(msg, " for flag -", " for --", 1)
}
