package main

// luaai test --coverage: what the tests' agents ran of each behaviour,
// summed over the test files.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/internal/safefile"
)

// coverageFlag is --coverage (a summary) or --coverage=FILE (and JSON in
// FILE).
type coverageFlag struct {
	on   bool
	file string
}

func (f *coverageFlag) String() string   { return f.file }
func (f *coverageFlag) IsBoolFlag() bool { return true }

func (f *coverageFlag) Set(s string) error {
	switch s {
	case "true":
		f.on, f.file = true, ""
	case "false":
		f.on, f.file = false, ""
	default:
		f.on, f.file = true, s
	}
	return nil
}

// coverageSum adds up the coverage of several hosts (one per test file):
// by behaviour file, by part.
type coverageSum struct {
	files map[string]map[string]*hosttool.CoverageItem
}

func (c *coverageSum) add(bcs []hosttool.BehaviourCoverage) {
	if c == nil {
		return
	}
	if c.files == nil {
		c.files = map[string]map[string]*hosttool.CoverageItem{}
	}
	for _, bc := range bcs {
		items := c.files[bc.File]
		if items == nil {
			items = map[string]*hosttool.CoverageItem{}
			c.files[bc.File] = items
		}
		for _, it := range bc.Items {
			k := it.Kind.String() + "\x00" + it.Name
			if got := items[k]; got != nil {
				got.Hits += it.Hits
			} else {
				copied := it
				items[k] = &copied
			}
		}
	}
}

// sorted is every behaviour's parts, files in order, parts by line.
func (c *coverageSum) sorted() []hosttool.BehaviourCoverage {
	var out []hosttool.BehaviourCoverage
	for file, items := range c.files {
		bc := hosttool.BehaviourCoverage{File: file}
		for _, it := range items {
			bc.Items = append(bc.Items, *it)
		}
		slices.SortFunc(bc.Items, func(a, b hosttool.CoverageItem) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return strings.Compare(a.Kind.String()+a.Name, b.Kind.String()+b.Name)
		})
		out = append(out, bc)
	}
	slices.SortFunc(out, func(a, b hosttool.BehaviourCoverage) int { return strings.Compare(a.File, b.File) })
	return out
}

// coverKinds are the kinds of part, in the order the summary names them.
var coverKinds = []struct {
	kind   hosttool.CoverKind
	plural string
}{
	{hosttool.CoverState, "states"}, {hosttool.CoverTransition, "transitions"}, {hosttool.CoverTreeNode, "tree nodes"},
	{hosttool.CoverStep, "steps"}, {hosttool.CoverChoice, "utility choices"},
}

// print writes a line per behaviour ("guard.lua: states 9/11, transitions
// 14/19") and the parts never reached, by line.
func (c *coverageSum) print(w io.Writer) {
	fmt.Fprintln(w, "coverage:")
	for _, bc := range c.sorted() {
		fmt.Fprintf(w, "  %s: %s\n", oneLine(bc.File), coverSummary(bc))
		for _, it := range bc.Items {
			if it.Hits == 0 {
				fmt.Fprintf(w, "    never: %s %s (%s:%d)\n", it.Kind, oneLine(it.Name), oneLine(it.File), it.Line)
			}
		}
	}
}

type coverageJSON struct {
	File  string             `json:"file"`
	Items []coverageItemJSON `json:"items"`
}

type coverageItemJSON struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Line int    `json:"line"`
	Hits int    `json:"hits"`
}

// write saves the coverage as JSON, for tools.
func (c *coverageSum) write(file string) error {
	var out []coverageJSON
	for _, bc := range c.sorted() {
		cj := coverageJSON{File: bc.File, Items: []coverageItemJSON{}}
		for _, it := range bc.Items {
			cj.Items = append(cj.Items, coverageItemJSON{it.Kind.String(), it.Name, it.Line, it.Hits})
		}
		out = append(out, cj)
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// maxCoverageFile bounds a coverage file graph reads.
const maxCoverageFile = 64 << 20

// readNever reads a coverage file (luaai test --coverage=FILE, luaai
// explore --coverage FILE) and returns the parts of script's behaviour
// that never ran, for luaai graph --coverage. The file's entry for script
// is the one whose file is the same file; a file with a single entry is
// taken as it is.
func readNever(file, script string) (map[[2]string]bool, error) {
	data, err := safefile.ReadRegular(file, maxCoverageFile)
	if err != nil {
		return nil, err
	}
	var entries []coverageJSON
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("not a coverage file (%w)", err)
	}
	var entry *coverageJSON
	for i := range entries {
		if sameFile(entries[i].File, script) {
			entry = &entries[i]
		}
	}
	if entry == nil && len(entries) == 1 {
		entry = &entries[0]
	}
	if entry == nil {
		var files []string
		for _, e := range entries {
			files = append(files, e.File)
		}
		return nil, fmt.Errorf("no coverage of %s in it (it covers %s)", script, strings.Join(files, ", "))
	}
	never := map[[2]string]bool{}
	for _, it := range entry.Items {
		if it.Hits == 0 {
			never[[2]string{it.Kind, it.Name}] = true
		}
	}
	return never, nil
}

// sameFile tells whether two paths name the same file.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}
