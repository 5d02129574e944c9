package luatest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/luatest"
	"github.com/stretchr/testify/require"
)

// A script's message cannot rewrite the terminal: control characters in
// a failure are shown as escapes; line breaks and tabs stay.
func TestFailureOutputIsPrintable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "esc_test.lua")
	require.NoError(t, os.WriteFile(path, []byte("describe(\"x\", function()\n  it(\"a\", function() error(\"boom\\r\\27[2Jgone\\n\\tnext\") end)\n  it(\"b\", function() assert.are.equal(1, 2, \"why\\27]0;title\\7\") end)\nend)\n"), 0o644))
	h, err := host.New(host.Options{Roots: []string{dir}})
	require.NoError(t, err)
	defer h.Close()
	var out strings.Builder
	res, err := luatest.RunFile(h, path, &out, luatest.Options{})
	require.NoError(t, err)
	require.Equal(t, 2, res.Failed)
	require.Contains(t, out.String(), `boom\x0d\x1b[2Jgone`+"\n\tnext")
	require.Contains(t, out.String(), `why\x1b]0;title\x07`)
	require.NotContains(t, out.String(), "\x1b")
	require.NotContains(t, out.String(), "\r")
}
