package luaai_test

import (
	"os"
	"os/exec"
	"path/filepath"
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
	time.Sleep(2 * time.Second) // loaded and spinning (its output waits for the tick's end)
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
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("luaai run did not stop after SIGTERM")
	}
}
