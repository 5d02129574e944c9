package main

// The flags of luaai run, parsed and checked.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/inspector"
)

// parseRun parses and validates the flags; a nil config comes with the exit
// code to return.
//
// It is long because it lists every flag of luaai run and the checks between
// them, in the order the help gives them.
func parseRun(args []string, stdout, stderr io.Writer) (*runConfig, int) {
	cfg := &runConfig{}
	fs := flag.NewFlagSet("luaai run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.ticks, "ticks", 10, "")
	fs.Float64Var(&cfg.dt, "dt", 0.1, "")
	fs.Float64Var(&cfg.hz, "hz", 0, "")
	cfg.agents = 1
	fs.Func("agents", "", func(s string) error {
		cfg.agentsEach = nil
		for i, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > maxAgents {
				return fmt.Errorf("want a count from 1 to %d, or one per script (1,3), got %q", maxAgents, s)
			}
			if i == 0 {
				cfg.agents = n
			}
			cfg.agentsEach = append(cfg.agentsEach, n)
		}
		if len(cfg.agentsEach) == 1 {
			cfg.agentsEach = nil
		}
		return nil
	})
	fs.IntVar(&cfg.workers, "workers", 1, "")
	fs.Uint64Var(&cfg.seed, "seed", 0, "")
	budgetFlag(fs, &cfg.budget)
	memoryFlag(fs, &cfg.memory)
	setFlag(fs, &cfg.set)
	fs.Var(&traceFlag{cfg}, "trace", "")
	fs.BoolVar(&cfg.traceChanges, "trace-changes", false, "")
	fs.BoolVar(&cfg.json, "json", false, "")
	fs.BoolVar(&cfg.watch, "watch", false, "")
	fs.BoolVar(&cfg.strict, "strict", false, "")
	fs.StringVar(&cfg.input, "input", "", "")
	fs.StringVar(&cfg.save, "save", "", "")
	fs.StringVar(&cfg.load, "load", "", "")
	fs.Var(&inspectFlag{&cfg.inspect}, "inspect", "")
	fs.StringVar(&cfg.inspectToken, "inspect-token", "", "")
	fs.IntVar(&cfg.inspectHistory, "inspect-history", inspector.DefaultHistory, "")
	inspectBytesFlag(fs, &cfg.inspectHistoryBytes)
	fs.StringVar(&cfg.record, "record", "", "")
	fs.BoolVar(&cfg.profile, "profile", false, "")

	pos, err := parseArgs(fs, joinInspectAddr(args))
	if err != nil {
		return nil, parseFailed(err, stdout, stderr, runUsage)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	bad := func(format string, args ...any) (*runConfig, int) {
		return nil, usageError(stderr, "run", runUsage, format, args...)
	}
	switch {
	case len(pos) == 0:
		return bad("missing SCRIPT")
	case cfg.agentsEach != nil && len(cfg.agentsEach) != len(pos):
		return bad("--agents gives %d counts for %d script%s: one for each, or one for all", len(cfg.agentsEach), len(pos), plural(len(pos)))
	case cfg.ticks < 0:
		return bad("--ticks must be ≥ 0, got %d", cfg.ticks)
	case given["hz"] && !(cfg.hz > 0 && !math.IsInf(cfg.hz, 0)):
		return bad("--hz must be a number > 0, got %v", cfg.hz)
	case given["hz"] && (cfg.hz < minHz || cfg.hz > maxHz):
		return bad("--hz must be between 0.001 and 1000000 ticks a second, got %v", cfg.hz)
	case cfg.dt < 0 || math.IsNaN(cfg.dt) || math.IsInf(cfg.dt, 0):
		return bad("--dt must be a finite number ≥ 0, got %v", cfg.dt)
	case cfg.workers < 1:
		return bad("--workers must be ≥ 1, got %d", cfg.workers)
	case given["save"] && cfg.save == "":
		return bad("--save needs a file name")
	case given["load"] && cfg.load == "":
		return bad("--load needs a file name")
	case cfg.load != "" && given["agents"]:
		return bad("--agents cannot be used with --load: the agents come from the snapshot")
	case cfg.load != "" && given["set"]:
		return bad("--set cannot be used with --load: the contexts come from the snapshot")
	case given["record"] && cfg.record == "":
		return bad("--record needs a file name")
	case cfg.record != "" && !isFolder(filepath.Dir(cfg.record)):
		// Checked before anything starts: a run with --inspect is never
		// started and then ended by its recording.
		return bad("--record %s: folder %s does not exist", cfg.record, filepath.Dir(cfg.record))
	}
	if msg := checkInspect(cfg, given); msg != "" {
		return bad("%s", msg)
	}
	if cfg.inspect != "" {
		// The page drives the run: it goes on until interrupted, and
		// pauses after --ticks when they are given.
		cfg.forever = true
		if given["ticks"] {
			cfg.pauseAt = cfg.ticks
		}
		if !given["hz"] {
			cfg.hz = defaultWatchHz
		}
	}
	if cfg.watch && !given["ticks"] {
		cfg.forever = true
		if !given["hz"] {
			cfg.hz = defaultWatchHz
		}
	}
	if cfg.hz > 0 && !given["dt"] {
		cfg.dt = 1 / cfg.hz
	}
	if cfg.traceChanges {
		cfg.trace = true // --trace-changes is --trace, shorter
	}
	cfg.script, cfg.scripts = pos[0], pos
	return cfg, exitOK
}

// budgetFlag defines --budget: a Go duration ("50ms", "2s"), or "off".
func budgetFlag(fs *flag.FlagSet, d *time.Duration) {
	fs.Func("budget", "", func(s string) error {
		if s == "off" {
			*d = -1
			return nil
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("want a duration such as 50ms or 1s, or off")
		}
		if v <= 0 {
			return fmt.Errorf("must be more than 0 (or off), got %v", s)
		}
		*d = v
		return nil
	})
}

// memoryFlag defines --memory: a size ("256MiB", "1GiB", "500MB",
// "65536"), or "off".
func memoryFlag(fs *flag.FlagSet, n *int64) { sizeOrOffFlag(fs, "memory", n) }

// inspectBytesFlag is --inspect-history-bytes: a size of at least 1MiB, or
// off (-1).
func inspectBytesFlag(fs *flag.FlagSet, n *int64) { sizeOrOffFlag(fs, "inspect-history-bytes", n) }

// sizeOrOffFlag defines a flag that is a size of at least 1MiB, or "off"
// (stored as -1).
func sizeOrOffFlag(fs *flag.FlagSet, name string, n *int64) {
	fs.Func(name, "", func(s string) error {
		if s == "off" {
			*n = -1
			return nil
		}
		v, err := parseSize(s)
		if err != nil {
			return err
		}
		if v < 1<<20 {
			return fmt.Errorf("must be at least 1MiB (or off), got %s", s)
		}
		*n = v
		return nil
	})
}

// parseSize reads a byte count with an optional unit: B, KB/MB/GB (powers
// of 1000) or KiB/MiB/GiB (powers of 1024).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mul    float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mul := s, 1.0
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			num, mul = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mul
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || f*mul > 1<<62 {
		return 0, fmt.Errorf("want a size such as 256MiB or 1GiB, or off")
	}
	return int64(f * mul), nil
}

// setting is one --set k=v, as given.
type setting struct {
	path []string // k split at dots
	raw  string   // v
}

// setFlag defines the repeatable --set k=v flag, collecting into set.
func setFlag(fs *flag.FlagSet, set *[]setting) {
	fs.Func("set", "", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return errors.New("want key=value")
		}
		path := strings.Split(k, ".")
		for _, p := range path {
			if p == "" {
				return fmt.Errorf("%q: an empty name in the key", k)
			}
		}
		*set = append(*set, setting{path: path, raw: v})
		return nil
	})
}

// decodeValue reads a --set, console or --input value as its default
// (def) wants it: JSON where it parses to the default's type, a Lua number
// for a number default, else the text itself for a string default; for a
// default that takes any value (false, {}), JSON where it parses, else the
// text. What it returns is then checked by host's rule (CheckWrite).
func decodeValue(raw string, def any) any {
	var v any
	dec := json.NewDecoder(strings.NewReader(raw))
	parsed := dec.Decode(&v) == nil && !dec.More() && v != nil
	if parsed && hosttool.KindOf(v) == hosttool.KindOf(def) {
		return v
	}
	switch def.(type) {
	case string:
		return raw
	case float64:
		if n, ok := luaNumber(raw); ok {
			return n
		}
	}
	if parsed {
		return v
	}
	return raw
}

// luaNumber reads a number as Lua writes one: decimal (leading dot and
// zeros allowed) or hexadecimal; not inf, nan or Go's digit separators.
func luaNumber(s string) (float64, bool) {
	if strings.Contains(s, "_") {
		return 0, false
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		lower := strings.ToLower(strings.TrimLeft(s, "+-"))
		if !strings.HasPrefix(lower, "inf") && !strings.HasPrefix(lower, "nan") && !strings.HasPrefix(lower, "0x") {
			return f, true
		}
	}
	hex := strings.TrimPrefix(s, "-")
	if len(hex) > 2 && (hex[:2] == "0x" || hex[:2] == "0X") {
		if n, err := strconv.ParseUint(hex[2:], 16, 64); err == nil {
			if hex != s {
				return -float64(n), true
			}
			return float64(n), true
		}
	}
	return 0, false
}

// overrides checks the --set settings against b's context defaults, by
// the rule of every write from outside the scripts (host's CheckWrite: an
// unknown key is refused with the nearest known key suggested; a dotted
// key reaches into a table; the value must have the default's type,
// except that a default of false or {} takes any), and returns Spawn's
// top-level overrides.
func overrides(settings []setting, b *host.Behaviour) (map[string]any, error) {
	out := map[string]any{}
	owned := map[string]bool{} // dotted paths of the maps copied into out
	defaults := b.Defaults()
	for _, s := range settings {
		key := strings.Join(s.path, ".")
		def, _ := b.Default(s.path)
		v := decodeValue(s.raw, def)
		if err := b.CheckWrite(s.path, v); err != nil {
			if errors.Is(err, host.ErrValueType) {
				return nil, fmt.Errorf("--set %s=%s: %w", key, s.raw, err)
			}
			return nil, fmt.Errorf("--set %s: %w", key, err)
		}
		// Build the override: each table on the path is copied once,
		// shallowly (the defaults are shared, and only the path changes).
		parent := out
		for i, name := range s.path {
			if i == len(s.path)-1 {
				parent[name] = v
				break
			}
			cur, ok := parent[name]
			if !ok && i == 0 {
				cur = defaults[name]
			}
			m, _ := cur.(map[string]any)
			at := strings.Join(s.path[:i+1], ".")
			if !owned[at] {
				c := make(map[string]any, len(m))
				for k, x := range m {
					c[k] = x
				}
				parent[name], m = c, c
				owned[at] = true
			}
			parent = m
		}
	}
	return out, nil
}

// maxAgents bounds --agents: a million guards take about 2 GB.
const maxAgents = 1_000_000

// defaultInspectAddr is where --inspect listens without an address.
const defaultInspectAddr = "127.0.0.1:7070"

// inspectFlag is --inspect: alone, the default address; --inspect=ADDR or
// (joinInspectAddr) --inspect ADDR, that address.
type inspectFlag struct{ addr *string }

func (f *inspectFlag) String() string {
	if f.addr == nil {
		return ""
	}
	return *f.addr
}

func (f *inspectFlag) Set(s string) error {
	switch s {
	case "true":
		*f.addr = defaultInspectAddr
	case "false":
		*f.addr = ""
	default:
		*f.addr = s
	}
	return nil
}

func (f *inspectFlag) IsBoolFlag() bool { return true }

// joinInspectAddr turns "--inspect ADDR" into "--inspect=ADDR" when the
// word after it is an address (host:port or :port), so that the address
// may follow the flag as other values do while --inspect alone still works
// before SCRIPT.
func joinInspectAddr(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if (a == "--inspect" || a == "-inspect") && i+1 < len(args) && looksLikeAddr(args[i+1]) ||
			(a == "--trace" || a == "-trace") && i+1 < len(args) && looksLikeIDs(args[i+1]) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		if a == "--" {
			return append(out, args[i:]...)
		}
		out = append(out, a)
	}
	return out
}

// looksLikeIDs: "1", "1,5" (what --trace takes after a space).
func looksLikeIDs(s string) bool {
	for _, f := range strings.Split(s, ",") {
		if _, err := strconv.Atoi(f); err != nil {
			return false
		}
	}
	return true
}

// traceFlag is --trace: alone, every agent; --trace=1,5 or --trace 1,5,
// those agents only.
type traceFlag struct{ cfg *runConfig }

func (f *traceFlag) String() string { return "" }

// IsBoolFlag lets --trace stand alone.
func (f *traceFlag) IsBoolFlag() bool { return true }

func (f *traceFlag) Set(s string) error {
	switch s {
	case "true":
		f.cfg.trace, f.cfg.traceIDs = true, nil
		return nil
	case "false":
		f.cfg.trace, f.cfg.traceIDs = false, nil
		return nil
	}
	var ids []int
	for _, p := range strings.Split(s, ",") {
		id, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || id < 1 {
			return fmt.Errorf("want agent ids (--trace 1,5), got %q", s)
		}
		ids = append(ids, id)
	}
	f.cfg.trace, f.cfg.traceIDs = true, ids
	return nil
}

func looksLikeAddr(s string) bool {
	host, port, err := net.SplitHostPort(s)
	if err != nil || strings.ContainsAny(host, "/\\") {
		return false
	}
	_, err = strconv.ParseUint(port, 10, 16)
	return err == nil
}

// checkInspect checks the --inspect flags: an address to listen on, and a
// token for any address beyond this machine. It returns what is wrong, or "".
func checkInspect(cfg *runConfig, given map[string]bool) string {
	if cfg.inspect == "" {
		switch {
		case given["inspect-token"]:
			return "--inspect-token goes with --inspect"
		case given["inspect-history"]:
			return "--inspect-history goes with --inspect"
		case given["inspect-history-bytes"]:
			return "--inspect-history-bytes goes with --inspect"
		}
		return ""
	}
	host, port, err := net.SplitHostPort(cfg.inspect)
	if err != nil {
		return fmt.Sprintf("--inspect %q: want an address like 127.0.0.1:7070 or :7070", cfg.inspect)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Sprintf("--inspect %q: %q is not a port number", cfg.inspect, port)
	}
	if given["inspect-token"] && len(cfg.inspectToken) < 8 {
		return "--inspect-token must be at least 8 characters"
	}
	if !isLoopbackHost(host) && cfg.inspectToken == "" {
		return fmt.Sprintf("--inspect %s would let other machines drive this run: give --inspect-token too (or listen on 127.0.0.1)", cfg.inspect)
	}
	if cfg.inspectHistory < 1 || cfg.inspectHistory > 1_000_000 {
		return fmt.Sprintf("--inspect-history must be from 1 to 1000000 ticks, got %d", cfg.inspectHistory)
	}
	return ""
}

// isLoopbackHost: host names this machine only ("" listens everywhere).
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isFolder tells whether path is a folder (following links).
func isFolder(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
