package luatest_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/luatest"
	"github.com/stretchr/testify/require"
)

// runSpec writes src as a spec file and runs it in a fresh host.
func runSpec(t *testing.T, src string) (luatest.Result, error) {
	t.Helper()
	dir := t.TempDir()
	spec := filepath.Join(dir, "x_spec.lua")
	require.NoError(t, os.WriteFile(spec, []byte(src), 0o644))
	h, err := host.New(host.Options{Roots: []string{dir}})
	require.NoError(t, err)
	defer h.Close()
	return luatest.RunFile(h, spec, io.Discard, luatest.Options{})
}

// Each Lua `it` becomes a Go subtest named by its full name; a pending
// test is skipped.
func TestRunFileSubtests(t *testing.T) {
	res, err := runSpec(t, `describe("guard", function()
  it("starts idle", function() assert.are.equal(1, 1) end)
  describe("on alarm", function()
    it("runs", function() assert.is_true(true) end)
  end)
  pending("patrols")
end)
it("stands alone", function() end)`)
	require.NoError(t, err)
	var ran, skipped []string
	for _, c := range res.Cases {
		t.Run(c.Name, func(t *testing.T) {
			switch c.Status {
			case luatest.Pending:
				skipped = append(skipped, t.Name())
				t.Skip("pending")
			case luatest.Failed, luatest.Errored:
				t.Errorf("%s: %s", c.Pos, c.Message)
			}
			ran = append(ran, t.Name())
		})
	}
	require.Equal(t, []string{
		"TestRunFileSubtests/guard_starts_idle",
		"TestRunFileSubtests/guard_on_alarm_runs",
		"TestRunFileSubtests/stands_alone",
	}, ran)
	require.Equal(t, []string{"TestRunFileSubtests/guard_patrols"}, skipped)
	require.Equal(t, 3, res.Passed)
	require.Equal(t, 1, res.Pending)
}

// A failing test's Case says where the test is and what failed; a file
// that does not run is an error wrapping ErrFileNotRun and one errored
// Case named after the file.
func TestRunFileCases(t *testing.T) {
	for _, tc := range []struct {
		name, src  string
		notRun     bool
		status     luatest.Status
		line       int
		msg, nameC string
	}{
		{"assertion", "describe(\"a\", function()\n  it(\"b\", function() assert.are.equal(1, 2) end)\nend)", false, luatest.Failed, 2, "expected: 1", "a b"},
		{"error", "it(\"c\", function()\n  error(\"boom\")\nend)", false, luatest.Errored, 1, "boom", "c"},
		{"syntax", "it(\"d\", function(\n", true, luatest.Errored, 1, "", ""},
		{"body", "local x = nil\nx.y = 1\n", true, luatest.Errored, 2, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := runSpec(t, tc.src)
			require.Len(t, res.Cases, 1)
			c := res.Cases[0]
			require.Equal(t, tc.status, c.Status)
			require.Equal(t, tc.line, c.Pos.Line, c.Message)
			require.Equal(t, 1, res.Failed)
			if tc.notRun {
				require.ErrorIs(t, err, luatest.ErrFileNotRun)
				require.Equal(t, c.File, c.Name, "named after the file")
				require.True(t, strings.HasPrefix(err.Error(), c.Pos.String()+": "), "%v names %s", err, c.Pos)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.nameC, c.Name)
			require.Contains(t, c.Message, tc.msg)
		})
	}
}

// A closed host runs nothing: the error wraps ErrFileNotRun and the
// host's own.
func TestRunFileClosedHost(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	h.Close()
	res, err := luatest.RunFile(h, "x_spec.lua", io.Discard, luatest.Options{})
	require.ErrorIs(t, err, luatest.ErrFileNotRun)
	require.ErrorIs(t, err, host.ErrClosed)
	require.Equal(t, 1, res.Failed)
}

// A malformed filter is an error and runs nothing.
func TestRunFileBadFilter(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	res, err := luatest.RunFile(h, "x_spec.lua", io.Discard, luatest.Options{Filter: "[a"})
	require.ErrorContains(t, err, "filter")
	require.NotErrorIs(t, err, luatest.ErrFileNotRun)
	require.Empty(t, res.Cases)
}
