package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"time"

	"github.com/luaai/luaai/host"
)

const benchUsage = `Usage: luaai bench SCRIPT [flags]

Spawns agents from a behaviour script, ticks them, and prints what a frame
budget needs to know: agent-ticks per second, tick time p50 / p99 / max,
allocations per agent-tick and memory per agent.

Flags:
  --agents N    agents to spawn (default 1000)
  --ticks N     ticks to measure, after 10 warm-up ticks (default 200)
  --workers N   worker goroutines, each with its own Lua state (default: CPUs)
  --dt S        seconds per tick (default 0.016)
  --seed N      seed of the agents' random numbers (default 0)
  --set k=v     override a context default (repeatable), as in luaai run
`

type benchConfig struct {
	script  string
	agents  int
	ticks   int
	workers int
	dt      float64
	seed    uint64
	set     []setting
}

// benchResult is what luaai bench measured.
type benchResult struct {
	agentTicksPerSec     float64
	p50, p99, max        time.Duration
	allocsPerAgentTick   float64
	bytesPerAgent        float64
	errors               int
	agents, ticks, works int
}

func benchCmd(args []string, stdout, stderr io.Writer) int {
	cfg := &benchConfig{}
	fs := flag.NewFlagSet("luaai bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.agents, "agents", 1000, "")
	fs.IntVar(&cfg.ticks, "ticks", 200, "")
	fs.IntVar(&cfg.workers, "workers", 0, "")
	fs.Float64Var(&cfg.dt, "dt", 0.016, "")
	fs.Uint64Var(&cfg.seed, "seed", 0, "")
	setFlag(fs, &cfg.set)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return parseFailed(err, stdout, stderr, benchUsage)
	}
	switch {
	case len(pos) != 1:
		return usageError(stderr, "bench", benchUsage, "want one SCRIPT, got %d arguments", len(pos))
	case cfg.agents < 1:
		return usageError(stderr, "bench", benchUsage, "--agents must be at least 1")
	case cfg.agents > maxAgents:
		return usageError(stderr, "bench", benchUsage, "--agents must be at most %d, got %d", maxAgents, cfg.agents)
	case cfg.ticks < 1:
		return usageError(stderr, "bench", benchUsage, "--ticks must be at least 1")
	case cfg.workers < 0:
		return usageError(stderr, "bench", benchUsage, "--workers must not be negative")
	case cfg.dt < 0 || math.IsNaN(cfg.dt) || math.IsInf(cfg.dt, 0):
		return usageError(stderr, "bench", benchUsage, "--dt must be a finite number ≥ 0")
	}
	cfg.script = pos[0]
	res, err := runBench(cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	fmt.Fprintf(stdout, "%s: %d agents, %d ticks, %d workers\n", cfg.script, res.agents, res.ticks, res.works)
	fmt.Fprintf(stdout, "agent-ticks/s   %.0f\n", res.agentTicksPerSec)
	fmt.Fprintf(stdout, "tick time       p50 %s  p99 %s  max %s\n", ms(res.p50), ms(res.p99), ms(res.max))
	fmt.Fprintf(stdout, "per agent-tick  %.0f ns, %.2f allocs\n", 1e9/res.agentTicksPerSec, res.allocsPerAgentTick)
	fmt.Fprintf(stdout, "memory/agent    %.0f B (with its context)\n", res.bytesPerAgent)
	if res.errors > 0 {
		fmt.Fprintf(stdout, "callback errors %d (run it with luaai run to see them)\n", res.errors)
		return exitFail
	}
	return exitOK
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d.Microseconds())/1000) }

func runBench(cfg *benchConfig, stderr io.Writer) (*benchResult, error) {
	prog := newProgress(stderr, cfg.ticks)
	res := &benchResult{agents: cfg.agents, ticks: cfg.ticks}
	opts := engineOptions(cfg.script, cfg.seed, cfg.workers)
	opts.ReportAllErrors = true
	opts.OnError = func(*host.ScriptError) { res.errors++ }
	h, err := host.New(opts)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	res.works = h.Workers()
	b, err := h.LoadFile(cfg.script)
	if err != nil {
		return nil, err
	}
	over, err := overrides(cfg.set, b)
	if err != nil {
		return nil, err
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < cfg.agents; i++ {
		if _, err := h.Spawn(b, over); err != nil {
			return nil, err
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	res.bytesPerAgent = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(cfg.agents)
	for i := 0; i < 10; i++ {
		if err := h.Tick(cfg.dt); err != nil {
			return nil, err
		}
	}
	times := make([]time.Duration, cfg.ticks)
	runtime.ReadMemStats(&before)
	start := time.Now()
	for i := range times {
		t0 := time.Now()
		if err := h.Tick(cfg.dt); err != nil {
			return nil, err
		}
		times[i] = time.Since(t0)
		prog.update(i + 1)
	}
	prog.clear()
	total := time.Since(start)
	runtime.ReadMemStats(&after)
	agentTicks := float64(cfg.agents) * float64(cfg.ticks)
	res.agentTicksPerSec = agentTicks / total.Seconds()
	res.allocsPerAgentTick = float64(after.Mallocs-before.Mallocs) / agentTicks
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	res.p50 = times[len(times)/2]
	res.p99 = times[min(len(times)-1, len(times)*99/100)]
	res.max = times[len(times)-1]
	return res, nil
}
