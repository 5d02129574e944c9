package luabind

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Scripts, modules and spawned scripts are read only from regular files of
// at most MaxScriptSize bytes: a named pipe, a device behind a link, a
// sparse 8 GB file or a folder is a clear error at once, never a hang or an
// out-of-memory.
func TestScriptFilesAreBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	write("ok.lua", `return 1`)
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.lua"), 0o644))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.lua")))
	require.NoError(t, os.Symlink("loop2.lua", filepath.Join(dir, "loop1.lua")))
	require.NoError(t, os.Symlink("loop1.lua", filepath.Join(dir, "loop2.lua")))
	sparse, err := os.Create(filepath.Join(dir, "sparse.lua"))
	require.NoError(t, err)
	require.NoError(t, sparse.Truncate(8<<30))
	sparse.Close()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "folder.lua"), 0o755))
	big := write("big.lua", "return '"+string(make([]byte, 0))+"'")
	require.NoError(t, os.WriteFile(big, append([]byte("return 1 --"), make([]byte, MaxScriptSize)...), 0o644))

	cases := []struct{ name, want string }{
		{"pipe.lua", "not a regular file (a named pipe)"},
		{"sparse.lua", "larger than the 4194304-byte limit on script files (it is 8589934592 bytes)"},
		{"big.lua", "larger than the 4194304-byte limit"},
		{"folder.lua", ""},
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, tc := range cases {
			_, err := CompileFile(filepath.Join(dir, tc.name))
			require.Error(t, err, tc.name)
			require.Contains(t, err.Error(), tc.want, tc.name)
			require.Contains(t, err.Error(), tc.name)
		}
		// /dev/zero directly, and through a link inside the folder.
		_, err := CompileFile("/dev/zero")
		require.ErrorContains(t, err, "not a regular file (a device)")
		vm := NewVM(Options{})
		defer vm.Close()
		for _, tc := range append(cases, struct{ name, want string }{"zero.lua", "a symbolic link leads out of"},
			struct{ name, want string }{"loop1.lua", "symbolic links that lead to each other in a loop"}) {
			_, err := vm.RunString(filepath.Join(dir, "main.lua"), `return require("`+tc.name+`")`)
			require.Error(t, err, tc.name)
			require.Contains(t, err.Error(), tc.want, tc.name)
			require.Contains(t, err.Error(), "main.lua:1:", tc.name)
		}
		v, err := vm.RunString(filepath.Join(dir, "main.lua"), `return require("ok.lua")`)
		require.NoError(t, err)
		require.Equal(t, "1", v.String())
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("reading a script file hung")
	}
}
