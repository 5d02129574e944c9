package inspect

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/luaai/luaai/internal/safefile"
	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
)

func TestCheckFile(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside.lua")
	require.NoError(t, os.WriteFile(outside, []byte("return 1"), 0o644))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.lua"), []byte("return 1"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Symlink("../a.lua", filepath.Join(dir, "sub", "up.lua")))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "out.lua")))
	require.NoError(t, os.Symlink("out.lua", filepath.Join(dir, "chain.lua")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.lua"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "folder.lua"), 0o755))
	for _, c := range []struct {
		dir, name string
		err       error
	}{
		{dir, "a.lua", nil},
		{dir, "sub/up.lua", nil}, // a link within the folder
		{filepath.Join(dir, "sub"), "sub/up.lua", luabind.ErrOutsideRoots}, // out of its own folder
		{dir, "out.lua", luabind.ErrOutsideRoots},
		{dir, "chain.lua", luabind.ErrOutsideRoots}, // a link to a link out
		{dir, "pipe.lua", safefile.ErrNotRegular},
		{dir, "folder.lua", safefile.ErrNotRegular},
		{dir, "missing.lua", nil}, // left to the load to report
	} {
		t.Run(c.name+" in "+filepath.Base(c.dir), func(t *testing.T) {
			err := CheckFile(c.dir, filepath.Join(dir, c.name))
			if c.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, c.err)
		})
	}
}
