package luaai_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// hostileOps are the operations a hostile mod mixes: each costs much in
// one instruction or library call, or holds memory where a naive measure
// does not look. %[1]d is a size drawn for each use, %[2]d a count.
var hostileOps = []struct {
	name string
	src  string
	size func(r *rand.Rand) int
}{
	{"key far past an array", `do local t = {} t[%[1]d] = 1 keep(t) end`, logSize(1 << 26)},
	{"rawset far past an array", `do local t = {} rawset(t, %[1]d, 1) keep(t) end`, logSize(1 << 26)},
	{"suspended coroutines", `for i = 1, %[2]d do local co = coroutine.create(function() local x = {} coroutine.yield() end) coroutine.resume(co) keep(co) end`, nil},
	{"long string compares", `do local s = ("a"):rep(%[1]d) local s2 = s .. "" for i = 1, %[2]d do local _ = s < s2 end end`, logSize(16 << 20)},
	{"# over nils", `do local t = {} t[%[1]d] = 1 t[%[1]d] = nil for i = 1, %[2]d do local _ = #t end end`, logSize(1 << 17)},
	{"next over nils", `do local t = {} t[%[1]d] = 1 t[%[1]d] = nil for i = 1, %[2]d do local _ = next(t) end end`, logSize(1 << 17)},
	{"string.rep", `for i = 1, %[2]d do local _ = ("x"):rep(%[1]d) end`, logSize(16 << 20)},
	{"table.concat", `do local p = {} for i = 1, 64 do p[i] = ("y"):rep(%[1]d) end for i = 1, %[2]d do local _ = table.concat(p) end end`, logSize(256 << 10)},
	{"table.sort", `do local t = {} for i = 1, %[1]d do t[i] = (i * 7919) %% %[1]d end for i = 1, %[2]d do table.sort(t) end end`, logSize(1 << 17)},
	{"strings kept", `for i = 1, %[2]d do keep(("z"):rep(%[1]d) .. i) end`, logSize(4 << 20)},
	{"tables kept", `for i = 1, %[2]d * 1000 do keep({ i, i }) end`, nil},
}

// logSize draws sizes from 1 to top, as many of each order of magnitude:
// most operations are cheap, some cost all a callback may spend.
func logSize(top int) func(r *rand.Rand) int {
	return func(r *rand.Rand) int {
		n := int(math.Exp(r.Float64() * math.Log(float64(top))))
		return min(top, max(1, n))
	}
}

// hostileScript writes a behaviour whose agents run ops drawn from
// hostileOps in their update, every tick.
func hostileScript(r *rand.Rand) (src string, names []string) {
	var body strings.Builder
	for range 1 + r.IntN(4) {
		op := hostileOps[r.IntN(len(hostileOps))]
		size := 0
		if op.size != nil {
			size = op.size(r)
		}
		count := logSize(1000)(r)
		fmt.Fprintf(&body, "    "+op.src+"\n", size, count)
		names = append(names, op.name)
	}
	return `local ai = require("luaai")
local held = {}
local function keep(v)
  local n = #held
  if n >= 100000 then held = {} n = 0 end
  held[n + 1] = v
end
return ai.fsm { initial = "s", context = { n = 0 }, states = { s = {
  update = function(ctx)
    ctx.n = ctx.n + 1
` + body.String() + `  end } } }
`, names
}

// TestHostileScriptsProperty runs generated hostile mods under
// luaai run --memory 64MiB: whatever they mix, the process's peak size
// stays under the limit plus a fixed margin, and the CPU time it uses stays
// under what the budgets allow (each callback 2× its 50ms budget, per
// agent and tick, plus a fixed allowance for loading and the collector).
// LUAAI_PROPERTY_SEED picks another set of scripts; the seed is logged.
func TestHostileScriptsProperty(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	seed := uint64(33)
	if s := os.Getenv("LUAAI_PROPERTY_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "LUAAI_PROPERTY_SEED")
		seed = n
	}
	if runInFreshProcess(t, "LUAAI_PROPERTY_SEED="+strconv.FormatUint(seed, 10)) {
		return
	}
	root, err := os.Getwd()
	require.NoError(t, err)
	cli := buildCLI(t, root)
	const (
		limitMiB, marginMiB = 64, 128
		agents, ticks       = 2, 12
		budget              = 50 * time.Millisecond
		allowance           = 4 * time.Second // loading, the collector, the agents' other work
	)
	r := rand.New(rand.NewPCG(seed, seed))
	t.Logf("seed %d", seed)
	for i := range 16 {
		src, names := hostileScript(r)
		t.Run(fmt.Sprintf("%d %s", i, strings.Join(names, ", ")), func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "hostile.lua")
			require.NoError(t, os.WriteFile(script, []byte(src), 0o644))
			cmd := exec.Command(cli, "run", "--memory", fmt.Sprintf("%dMiB", limitMiB), "--budget", budget.String(),
				"--agents", strconv.Itoa(agents), "--ticks", strconv.Itoa(ticks), script)
			out, _ := cmd.CombinedOutput()
			require.NotEqual(t, 2, cmd.ProcessState.ExitCode(), "%s", lastBytes(out, 2000))
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			peakMiB := ru.Maxrss / 1024 // KiB on Linux
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			bound := time.Duration(agents*ticks)*2*budget + allowance
			t.Logf("peak RSS %d MiB, CPU %v (bound %v): %s", peakMiB, cpu.Round(time.Millisecond), bound, lastBytes(out, 200))
			require.Less(t, peakMiB, int64(limitMiB+marginMiB), "script:\n%s\n%s", src, lastBytes(out, 2000))
			require.Less(t, cpu, bound, "script:\n%s\n%s", src, lastBytes(out, 2000))
		})
	}
}
