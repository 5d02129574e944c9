package luaai_test

import (
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

// luaai run stops within a second or so of SIGTERM, even when the tick in
// progress never ends (here a runaway with the budget turned off).
func TestRunStopsOnSignalDuringABlockedTick(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	root, err := os.Getwd()
	require.NoError(t, err)
	cli := buildCLI(t, root)
	dir := t.TempDir()
	script := filepath.Join(dir, "spin.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { update = function() while true do end end } } }`), 0o644))
	cmd := exec.Command(cli, "run", "--budget", "off", "--ticks", "5", script)
	out := &strings.Builder{}
	stderr := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, stderr
	require.NoError(t, cmd.Start())
	// Loaded and spinning: its output waits for the tick's end, so the
	// sign is the CPU time it has used (loading costs a few milliseconds).
	for cpuTime(t, cmd.Process.Pid) < 300*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	sent := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		took := time.Since(sent)
		t.Logf("exited %v after %v", err, took)
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		require.Equal(t, 1, exit.ExitCode())
		require.Contains(t, stderr.String(), "did not end within 1s")
	case <-time.After(time.Minute): // a generous bound for a busy machine: a second is expected
		_ = cmd.Process.Kill()
		t.Fatal("luaai run did not stop after SIGTERM")
	}
}

// cpuTime is the CPU time process pid has used so far (Linux: utime and
// stime of /proc/PID/stat, in clock ticks of 1/100 s); 0 where that file
// cannot be read.
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		t.Skipf("no CPU time to read: %v", err)
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		t.Fatalf("unexpected /proc stat: %q", b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	require.NoError(t, err1)
	require.NoError(t, err2)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
