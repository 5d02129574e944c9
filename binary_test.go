package luaai_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The modder's commands through the real binary, as a shell runs them:
// exit codes, stdout and stderr apart.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "luaai")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/luaai").CombinedOutput()
	require.NoError(t, err, "%s", out)
	run := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return code, stdout.String(), stderr.String()
	}

	code, stdout, stderr := run("run", "scripts/guard.lua", "--ticks", "2")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "tick 1 agent 1 patrol.find_waypoint -> patrol.walk_to_waypoint")

	code, stdout, stderr = run("run", "scripts/guard.lua", "scripts/hunter.lua", "--agents", "1,2", "--ticks", "1", "--trace", "--set", "prey_x=3")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "tick 1 agent 3 state ")
	require.Contains(t, stdout, `"prey_x":3`)

	code, _, stderr = run("run", "scripts/guard.lua", "--set", "playr=found")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `--set playr: "playr" is not a key of the context (did you mean "player"?)`)

	code, stdout, stderr = run("test", "scripts")
	require.Equal(t, 0, code, stdout+stderr)
	require.Regexp(t, `\d+ passed, 0 failed`, stdout)

	code, stdout, stderr = run("check", "scripts")
	require.Equal(t, 0, code, stdout+stderr)

	code, _, _ = run("nonsense")
	require.Equal(t, 2, code)
}
