package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.txt")
	require.NoError(t, os.WriteFile(ok, []byte("hello"), 0o644))
	data, err := ReadRegular(ok, 5)
	require.NoError(t, err)
	require.Equal(t, "hello", string(data))

	_, err = ReadRegular(ok, 4)
	require.ErrorIs(t, err, ErrTooLarge)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, ok, pe.Path)
	require.Contains(t, err.Error(), "larger than the 4-byte limit (it is 5 bytes)")

	_, err = ReadRegular(dir, 100)
	require.ErrorIs(t, err, ErrNotRegular)
	require.Contains(t, err.Error(), "a folder")

	pipe := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(pipe, 0o644))
	_, err = ReadRegular(pipe, 100) // must not block waiting for a writer
	require.ErrorIs(t, err, ErrNotRegular)
	require.Contains(t, err.Error(), "a named pipe")

	link := filepath.Join(dir, "zero")
	require.NoError(t, os.Symlink("/dev/zero", link))
	_, err = ReadRegular(link, 100)
	require.ErrorIs(t, err, ErrNotRegular)
	require.Contains(t, err.Error(), "a device")

	_, err = ReadRegular(filepath.Join(dir, "missing"), 100)
	require.True(t, errors.Is(err, fs.ErrNotExist))
}
