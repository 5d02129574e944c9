package host_test

// The guard against PUC Lua 5.1: the same behaviour as plain Lua (the
// pure_lua benchmark's script) run by lua5.1 in a subprocess, which times
// its own loop with os.clock, beside the engine's guards in the same run.
//
//	go test ./host -run '^$' -bench 'GuardLua51' -benchtime 100x -count 2

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// lua51 is the path of the lua5.1 interpreter. Without one the caller is
// skipped, unless LUAAI_REQUIRE_LUA51 is set (as CI does), which fails it.
func lua51(tb testing.TB) string {
	tb.Helper()
	path, err := exec.LookPath("lua5.1")
	if err != nil {
		if os.Getenv("LUAAI_REQUIRE_LUA51") != "" {
			tb.Fatal("no lua5.1 found, and LUAAI_REQUIRE_LUA51 is set (apt-get install lua5.1)")
		}
		tb.Skip("no lua5.1 found (apt-get install lua5.1): the comparison with PUC Lua 5.1 is skipped")
	}
	return path
}

// lua51Guards writes the pure_lua guard for n agents with a loop that
// ticks them all once (a warm-up), then ticks times, and prints the
// seconds of CPU the ticks took (os.clock) and the agents' summed x.
func lua51Guards(n, ticks int) string {
	return strings.Replace(pureLuaGuard, "N do", fmt.Sprint(n, " do"), 1) + fmt.Sprintf(`
tick_all(0.016)
local t0 = os.clock()
for _ = 1, %d do tick_all(0.016) end
local t1 = os.clock()
local sum = 0
for i = 1, #agents do sum = sum + agents[i].ctx.x end
io.write(string.format("%%.9f %%.9f\n", t1 - t0, sum))
`, ticks)
}

// runLua51 runs script with lua5.1 and returns the seconds its ticks took
// and the agents' summed x.
func runLua51(tb testing.TB, lua, script string) (secs, sum float64) {
	tb.Helper()
	file := filepath.Join(tb.TempDir(), "guard.lua")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		tb.Fatal(err)
	}
	out, err := exec.Command(lua, file).CombinedOutput()
	if err != nil {
		tb.Fatalf("lua5.1: %v\n%s", err, out)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		tb.Fatalf("lua5.1 printed %q, want two numbers", out)
	}
	if secs, err = strconv.ParseFloat(f[0], 64); err == nil {
		sum, err = strconv.ParseFloat(f[1], 64)
	}
	if err != nil {
		tb.Fatalf("lua5.1 printed %q: %v", out, err)
	}
	return secs, sum
}

// TestPureLuaGuardLua51 checks that the guard the benchmark hands lua5.1
// runs there and moves every agent as the engine's guard does (x grows by
// dt each tick while no condition fires).
func TestPureLuaGuardLua51(t *testing.T) {
	lua := lua51(t)
	const n, ticks = 10, 3
	secs, sum := runLua51(t, lua, lua51Guards(n, ticks))
	want := float64(n*(ticks+1)) * 0.016
	if secs < 0 || sum < want-1e-9 || sum > want+1e-9 {
		t.Fatalf("lua5.1 ran %v s, summed x %v; want x %v", secs, sum, want)
	}
}

// BenchmarkGuardLua51 runs the guard as plain Lua in lua5.1 (its own
// os.clock time of ticks of 10,000 agents: the CPU time of its process),
// and as many ticks of the engine's guards with native conditions and
// with Lua conditions, in rounds of 10 ticks each taken in turn (so a
// change in the machine's load falls on both sides), and reports each
// per agent-tick and the medians of the rounds' ratios, the engine's
// against lua5.1's. The engine is timed both ways: its CPU time (the
// process's, on Linux: the same measure as os.clock, its collector and
// watchdog included) and its wall time (which on a busy machine also
// holds the time it waited for a core).
func BenchmarkGuardLua51(b *testing.B) {
	lua := lua51(b)
	native := newGuards(b, benchAgents, 1, true)
	defer native.Close()
	luaConds := newGuards(b, benchAgents, 1, false)
	defer luaConds.Close()
	const round = 10
	rounds := max(1, b.N/round)
	script := lua51Guards(benchAgents, round)
	ticks := func(h interface{ Tick(float64) error }) (wall, cpu time.Duration) {
		c0, t0 := processCPU(b), time.Now()
		for range round {
			if err := h.Tick(0.016); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0), processCPU(b) - c0
	}
	per := func(d time.Duration) float64 { return float64(d) / round / benchAgents }
	var pucs, nCPUs, nWalls, lCPUs []float64
	var nativeCPU, nativeWall, luaCPU []float64
	b.ResetTimer()
	for range rounds {
		secs, _ := runLua51(b, lua, script)
		puc := per(time.Duration(secs * 1e9))
		nWall, nCPU := ticks(native)
		_, lCPU := ticks(luaConds)
		pucs, nCPUs, nWalls, lCPUs = append(pucs, puc), append(nCPUs, per(nCPU)), append(nWalls, per(nWall)), append(lCPUs, per(lCPU))
		nativeCPU = append(nativeCPU, per(nCPU)/puc)
		nativeWall = append(nativeWall, per(nWall)/puc)
		luaCPU = append(luaCPU, per(lCPU)/puc)
	}
	b.ReportMetric(median(pucs), "lua51-ns/agent-tick")
	b.ReportMetric(median(nCPUs), "native-cpu-ns/agent-tick")
	b.ReportMetric(median(nWalls), "native-wall-ns/agent-tick")
	b.ReportMetric(median(lCPUs), "lua-conds-cpu-ns/agent-tick")
	b.ReportMetric(median(nativeCPU), "native-cpu/lua51")
	b.ReportMetric(median(nativeWall), "native-wall/lua51")
	b.ReportMetric(median(luaCPU), "lua-conds-cpu/lua51")
}

// BenchmarkGuardRatio ticks, in turn each iteration, the guards with Lua
// conditions, their floor (the same three callbacks called bare with
// PCall), the guards with native conditions and the floor of the update
// alone (one bare call per agent), and reports the medians of the
// per-tick ratios engine/floor and native/update.
//
//	go test ./host -run '^$' -bench 'GuardRatio' -benchtime 100x -count 2
func BenchmarkGuardRatio(b *testing.B) {
	luaConds := newGuards(b, benchAgents, 1, false)
	defer luaConds.Close()
	native := newGuards(b, benchAgents, 1, true)
	defer native.Close()
	floor, done := guardFloor(b, false, false)
	defer done()
	update, done2 := guardFloor(b, false, true)
	defer done2()
	timed := func(fn func()) time.Duration {
		t0 := time.Now()
		fn()
		return time.Since(t0)
	}
	tick := func(h interface{ Tick(float64) error }) func() {
		return func() {
			if err := h.Tick(0.016); err != nil {
				b.Fatal(err)
			}
		}
	}
	var engineFloor, nativeUpdate []float64
	b.ResetTimer()
	for range b.N {
		e, f := timed(tick(luaConds)), timed(floor)
		n, u := timed(tick(native)), timed(update)
		engineFloor = append(engineFloor, float64(e)/float64(f))
		nativeUpdate = append(nativeUpdate, float64(n)/float64(u))
	}
	b.ReportMetric(median(engineFloor), "engine/floor")
	b.ReportMetric(median(nativeUpdate), "native/update")
}
