package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/luatest"
)

const testUsage = `Usage: luaai test [flags] [PATH...]

Runs every *_test.lua and busted *_spec.lua file below each PATH (default
.), sorted, each in a fresh host. require and ai.spawn resolve against the
test file's folder, then, as busted's default paths do, the folder the run
started in and its src folder (./?.lua, ./src/?.lua, ?/init.lua), so a
library's spec folder runs unmodified. A PATH may also name one test file.
Below a PATH, folders named testdata or starting with "." or "_" are skipped
(name them to run them).

Test files use busted's globals: describe/context, insulate, expose, it
(spec, test), pending, before_each, after_each, setup/teardown, finally;
assert with luassert's words (assert.are.same, assert.is_not.equal,
assert.has_no.errors, ...); spy, stub, mock and match; and busted's own
modules for spec helpers: require("luassert") (assert:register with say
messages), require("say"). package.path and package.cpath are strings a
helper may change; the script roots above still decide what loads. Other
busted globals (file, randomize) say they are not supported. Spies made in
a test are reverted, and the agents it spawned removed, when it ends.

reload(script or agent [, source | {file = path} | {source = text}])
reloads what the test's agents were spawned from, as luaai run --watch
does (without a second argument, the script's file again), and returns
{ok, added, resumed, vanished, moved} or {ok = false, error}; agent:state()
then says where each agent is. A reload ends with its test.

Flags:
  --filter PATTERN      run only the tests whose full name (describe names
                        and the it name) matches the Lua pattern
  --filter-out PATTERN  skip the tests whose full name matches
  --tags a,b            run only the tests tagged #a or #b (in their name or
                        a describe's); repeatable
  --exclude-tags a,b    skip the tests tagged #a or #b
  -v                    print a line for each passing test
  --coverage[=FILE]     after the run, say which states, transitions, tree
                        nodes, steps and utility choices of the behaviours
                        the tests ran were never reached (FILE: also as JSON)
  -o, --output NAME     a report for CI on stdout, by busted's output handler
                        names: junit (JUnit XML), TAP, json; the text report
                        then goes to stderr (utfTerminal, plainTerminal: the
                        text report on stdout, the default)

Prints each failure with file:line, expected and actual (and, for an error
raised in a library, the test line that called it), and the ai.log lines
the test's agents wrote; a test file that does not load is a FAIL named
after it; a passing test whose agents raised errors it never read
(agent:errors()) is named with the count; then "N passed, N failed" (and
", N pending"). Exit codes: 0 all passed; 1 a failure, no test
file found, or a filter that matched no test; 2 a usage error.
`

// testBudget is how long one it/before_each/after_each body may run.
var testBudget = 10 * time.Second

func testCmd(args []string, stdout, stderr io.Writer) int {
	reportOut := stdout
	fs := flag.NewFlagSet("luaai test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var opts luatest.Options
	fs.StringVar(&opts.Filter, "filter", "", "")
	fs.StringVar(&opts.FilterOut, "filter-out", "", "")
	fs.BoolVar(&opts.Verbose, "v", false, "")
	var coverage coverageFlag
	fs.Var(&coverage, "coverage", "")
	tagsFlag(fs, "tags", &opts.Tags)
	tagsFlag(fs, "exclude-tags", &opts.ExcludeTags)
	var output string
	fs.StringVar(&output, "o", "", "")
	fs.StringVar(&output, "output", "", "")
	paths, err := parseArgs(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr, testUsage)
	}
	writeReport, known := testOutputs[strings.ToLower(output)]
	if output != "" && !known {
		return usageError(stderr, "test", testUsage, "--output %q: the outputs are junit, TAP, json, utfTerminal and plainTerminal", output)
	}
	var report *testReport
	if writeReport != nil {
		// The report is stdout's; what a person reads goes to stderr.
		report = &testReport{began: time.Now()}
		opts.OnCase = report.add
		stdout = stderr
	}
	if err := opts.Check(); err != nil {
		return usageError(stderr, "test", testUsage, "--%v", err)
	}
	if report != nil {
		defer func() {
			if err := writeReport(reportOut, report); err != nil {
				fmt.Fprintf(stderr, "luaai test: --output %s: %v\n", output, err)
			}
		}()
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	files, err := findTests(paths)
	if err != nil {
		fmt.Fprintf(stderr, "luaai test: %v\n", err)
		return exitFail
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "luaai test: no *_test.lua or *_spec.lua files in %s\n", strings.Join(paths, " "))
		fmt.Fprintln(stdout, "0 passed, 0 failed")
		return exitFail
	}
	return runTests(files, stdout, stderr, opts, coverage)
}

// runTests runs the test files, prints the total (and the coverage), and
// returns the exit code.
func runTests(files []string, stdout, stderr io.Writer, opts luatest.Options, coverage coverageFlag) int {
	var total luatest.Result
	var cov *coverageSum
	if coverage.on {
		cov = &coverageSum{}
	}
	for _, f := range files {
		r, err := runTestFile(f, stdout, opts, cov)
		if err != nil {
			fmt.Fprintf(stdout, "%s: %v\n", f, err)
			r.Failed++
		}
		total.Add(r)
	}
	fmt.Fprintln(stdout, total)
	if cov != nil {
		cov.print(stdout)
		if coverage.file != "" {
			if err := cov.write(coverage.file); err != nil {
				fmt.Fprintf(stderr, "luaai test: --coverage=%s: %v\n", coverage.file, err)
				return exitFail
			}
		}
	}
	selecting := opts.Filter != "" || opts.FilterOut != "" || len(opts.Tags) > 0 || len(opts.ExcludeTags) > 0
	if selecting && total.Passed+total.Failed+total.Pending == 0 {
		fmt.Fprintf(stderr, "luaai test: no test matched the --filter, --filter-out, --tags and --exclude-tags given\n")
		return exitFail
	}
	if total.Failed > 0 {
		return exitFail
	}
	return exitOK
}

// runTestFile runs one test file in a fresh host rooted at its folder;
// with cov, what the file's agents ran is added to it.
func runTestFile(path string, w io.Writer, opts luatest.Options, cov *coverageSum) (luatest.Result, error) {
	// A test body may tick agents for a long while: it gets a generous
	// budget, which still stops a test that loops forever (the agents it
	// ticks count against it).
	opts.Log = &luatest.Log{}
	h, err := host.New(host.Options{Roots: testRoots(path), Budget: testBudget, OnLog: opts.Log.Add, Coverage: cov != nil})
	if err != nil {
		return luatest.Result{}, err
	}
	defer h.Close()
	r, err := luatest.RunFile(h, path, w, opts)
	if err != nil && !errors.Is(err, luatest.ErrFileNotRun) {
		return r, err
	}
	// A file that did not run is written to w and counted in r already.
	cov.add(hosttool.Coverage(h))
	return r, nil
}

// tagsFlag is a repeatable flag of comma-separated tags.
func tagsFlag(fs *flag.FlagSet, name string, tags *[]string) {
	fs.Func(name, "", func(s string) error {
		for _, t := range strings.Split(s, ",") {
			if t = strings.TrimPrefix(strings.TrimSpace(t), "#"); t != "" {
				*tags = append(*tags, t)
			}
		}
		return nil
	})
}

// testRoots are where a test file's require and ai.spawn look: its own
// folder, then, as busted's default paths do, the folder the run started
// in and its src folder (so a library's spec folder runs unmodified).
func testRoots(path string) []string {
	roots := []string{filepath.Dir(path), "."}
	if fi, err := os.Stat("src"); err == nil && fi.IsDir() {
		roots = append(roots, "src")
	}
	return roots
}

// findTests lists the *_test.lua files below each path (a path naming a
// file is taken as it is), sorted and without duplicates. Below a path,
// folders skipDir names are not searched.
func findTests(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var files []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, root := range paths {
		fi, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			add(filepath.Clean(root))
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && skipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if isTestFile(d.Name()) {
				add(p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	return files, nil
}

// isTestFile: our *_test.lua files, and busted's *_spec.lua.
func isTestFile(name string) bool {
	return strings.HasSuffix(name, "_test.lua") || strings.HasSuffix(name, "_spec.lua")
}

// skipDir: as the go tool does, folders named testdata (fixtures, often
// failing on purpose) or starting with "." or "_" are not searched unless
// given on the command line.
func skipDir(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}
