package luaai_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileMemory are scripts that try to make the process huge. Under
// luaai run --memory 128MiB, each is stopped and the process's peak size
// stays below the limit plus a fixed overhead.
var hostileMemory = []struct {
	name, src string
	args      []string
}{
	{"doubling a string", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { s = "x" }, states = { s = {
  update = function(ctx) ctx.s = ctx.s .. ctx.s end } } }`, []string{"--ticks", "40"}},
	{"a table grown every tick", `local ai = require("luaai")
return ai.fsm { initial = "s", context = { t = {} }, states = { s = {
  update = function(ctx) for i = 1, 20 do ctx.t[#ctx.t + 1] = ("x"):rep(1000000) .. #ctx.t end end } } }`, nil},
	{"a table grown in one callback, no time budget", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) local t = {} local i = 0 while true do i = i + 1 t[i] = { i } end end } } }`, []string{"--budget", "off", "--ticks", "2"}},
	{"huge error messages", `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) error(("x"):rep(16 * 1024 * 1024 - 64)) end } } }`, nil},
	{"a shared table saved many times", `local ai = require("luaai")
local function nest(n) if n == 0 then return { ("x"):rep(100) } end local t = nest(n - 1) return { a = t, b = t } end
return ai.fsm { initial = "s", context = { deep = nest(24) }, states = { s = {} } }`, []string{"--save", "SAVE"}},
}

func TestHostileMemoryPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	if runInFreshProcess(t) {
		return
	}
	root, err := os.Getwd()
	require.NoError(t, err)
	cli := buildCLI(t, root)
	const limitMiB, overheadMiB = 128, 100
	for _, tc := range hostileMemory {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "hostile.lua")
			require.NoError(t, os.WriteFile(script, []byte(tc.src), 0o644))
			args := []string{"run", "--memory", "128MiB", "--ticks", "10", script}
			for _, a := range tc.args {
				if a == "SAVE" {
					a = filepath.Join(dir, "save.json")
				}
				args = append(args, a)
			}
			cmd := exec.Command(cli, args...)
			out, _ := cmd.CombinedOutput()
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			peakMiB := ru.Maxrss / 1024 // KiB on Linux
			t.Logf("%s: exit %d, peak RSS %d MiB", tc.name, cmd.ProcessState.ExitCode(), peakMiB)
			require.Less(t, peakMiB, int64(limitMiB+overheadMiB), "%s", lastBytes(out, 2000))
			require.NotEqual(t, 2, cmd.ProcessState.ExitCode(), "%s", lastBytes(out, 2000))
		})
	}
}

// runInFreshProcess runs the calling test again in a fresh test process
// and reports true, unless this is that process (then false: measure).
// Peaks are measured from there: Linux starts an exec'd child's peak RSS at
// its parent's (Go starts commands with vfork, which shares the parent's
// memory until the exec), and this package's other tests grow this process.
// env is given to the fresh process.
func runInFreshProcess(t *testing.T, env ...string) bool {
	t.Helper()
	if os.Getenv("LUAAI_RSS_CHILD") != "" {
		return false
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^"+t.Name()+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), "LUAAI_RSS_CHILD=1"), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	require.NoError(t, err, "the measuring process failed")
	return true
}

func lastBytes(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
