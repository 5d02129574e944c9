package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/luaai/luaai/types"
	"github.com/stretchr/testify/require"
)

// luaai init writes a project whose behaviour runs, checks clean and
// passes its tests; it never overwrites.
func TestInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mymod")
	code, stdout, stderr := cli("init", dir)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "wrote "+filepath.Join(dir, "door.lua"))
	for _, f := range []string{"door.lua", "door_test.lua", ".luarc.json", "types/luaai.lua", ".vscode/settings.json", ".helix/languages.toml", ".nvim.lua"} {
		require.FileExists(t, filepath.Join(dir, f))
	}
	got, err := os.ReadFile(filepath.Join(dir, "types", "luaai.lua"))
	require.NoError(t, err)
	require.Equal(t, types.LuaAI, got)

	code, stdout, stderr = cli("check", filepath.Join(dir, "door.lua"))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "ok: 1 file\n", stdout, "no warnings")
	code, stdout, stderr = cli("test", dir)
	require.Equal(t, 0, code, stdout+stderr)
	require.Contains(t, stdout, "2 passed, 0 failed")
	code, _, stderr = cli("run", filepath.Join(dir, "door.lua"), "--ticks", "3")
	require.Equal(t, 0, code, stderr)

	// A second init into the same folder writes nothing.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "door.lua"), []byte("-- mine"), 0o644))
	code, _, stderr = cli("init", dir)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "door.lua already exists: nothing written")
	mine, err := os.ReadFile(filepath.Join(dir, "door.lua"))
	require.NoError(t, err)
	require.Equal(t, "-- mine", string(mine))

	code, _, stderr = cli("init")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "luaai init: want one DIR")
}

func TestTypes(t *testing.T) {
	code, stdout, _ := cli("types")
	require.Equal(t, 0, code)
	require.Equal(t, string(types.LuaAI), stdout)
	require.Contains(t, stdout, "---@meta luaai")
	code, _, stderr := cli("types", "x")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "takes no arguments")
}

// The editor set-up luaai init writes is the one docs/editors.md shows,
// word for word.
func TestInitEditorFilesAreDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "editors.md"))
	require.NoError(t, err)
	for _, f := range []string{"_skeleton/vscode-settings.json", "_skeleton/helix-languages.toml", "_skeleton/nvim.lua"} {
		require.Contains(t, string(doc), "\n"+string(mustRead(f))+"```\n", "docs/editors.md shows %s", f)
	}
}
