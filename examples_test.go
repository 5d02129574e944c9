package luaai_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// goTool is the go command that runs these tests.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Skip("the go command is not available")
	}
	return p
}

// runTool runs a command in dir with a deadline and returns its output.
func runTool(t *testing.T, dir string, timeout time.Duration, name string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// TestExamples builds every program in examples/ and runs the embedding
// examples the way the README says (go run from the module root), with a
// short flag where they take one: each must finish by itself and exit 0.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	goCmd := goTool(t)
	root, err := os.Getwd()
	require.NoError(t, err)
	dirs, err := filepath.Glob("examples/*/main.go")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)

	bin := t.TempDir()
	var pkgs []string
	for _, d := range dirs {
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Dir(d)))
	}
	_, stderr, err := runTool(t, root, 5*time.Minute, goCmd, append([]string{"build", "-o", bin + string(filepath.Separator)}, pkgs...)...)
	require.NoError(t, err, "go build %s:\n%s", strings.Join(pkgs, " "), stderr)

	runs := map[string]struct {
		args []string
		want []string // in stdout
	}{
		"embed": {want: []string{"tick 3: patrol -> combat", "after 6 ticks: patrol.walk_to_waypoint"}},
		"arena": {args: []string{"-short"}, want: []string{"arena: 60 critters, 50 ticks", "activity", "food eaten", "transitions:"}},
	}
	for name, r := range runs {
		t.Run(name, func(t *testing.T) {
			exe := filepath.Join(bin, name)
			if runtime.GOOS == "windows" {
				exe += ".exe"
			}
			stdout, stderr, err := runTool(t, root, 2*time.Minute, exe, r.args...)
			require.NoError(t, err, "examples/%s %v:\n%s%s", name, r.args, stdout, stderr)
			for _, w := range r.want {
				require.Contains(t, stdout, w)
			}
		})
	}
	for _, d := range dirs {
		name := filepath.Base(filepath.Dir(d))
		if _, ok := runs[name]; !ok {
			t.Logf("examples/%s is built but not run", name)
		}
	}
}

// The arena is deterministic: the same seed gives the same world, whatever
// the number of workers (only the timing line differs).
func TestArenaDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs")
	}
	goCmd := goTool(t)
	root, err := os.Getwd()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "arena")
	_, stderr, err := runTool(t, root, 5*time.Minute, goCmd, "build", "-o", bin, "./examples/arena")
	require.NoError(t, err, stderr)
	var outs []string
	for _, workers := range []string{"1", "3"} {
		stdout, stderr, err := runTool(t, root, 2*time.Minute, bin, "-short", "-seed", "5", "-workers", workers)
		require.NoError(t, err, stderr)
		_, rest, ok := strings.Cut(stdout, "\n") // drop the timing line
		require.True(t, ok)
		outs = append(outs, rest)
	}
	require.Equal(t, outs[0], outs[1])
}
