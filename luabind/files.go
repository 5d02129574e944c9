package luabind

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxScriptSize is the largest script or module file the engine reads: a
// behaviour is source text, and anything larger is a mistake or an attack
// (a link to /dev/zero, an 8 GB sparse file).
const MaxScriptSize = 4 << 20

// ErrNotRegular: a script path names a folder, a named pipe, a device or
// another thing that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge: a script file over MaxScriptSize.
var ErrTooLarge = fmt.Errorf("larger than the %d-byte limit on script files", MaxScriptSize)

// ReadScript reads a script file: a regular file (symbolic links followed)
// of at most MaxScriptSize bytes. It never blocks on a named pipe and never
// reads more than the limit, whatever the file claims to be. Errors name
// the path.
func ReadScript(path string) ([]byte, error) {
	return ReadRegular(path, MaxScriptSize)
}

// ReadRegular is ReadScript with another size limit (snapshots).
func ReadRegular(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))}
	}
	if st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: sizeError(limit, st.Size())}
	}
	// O_NONBLOCK: if the file was swapped for a pipe since Stat, opening it
	// must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: sizeError(limit, -1)}
	}
	return data, nil
}

func sizeError(limit, size int64) error {
	if limit == MaxScriptSize {
		if size >= 0 {
			return fmt.Errorf("%w (it is %d bytes)", ErrTooLarge, size)
		}
		return ErrTooLarge
	}
	return fmt.Errorf("larger than the %d-byte limit", limit)
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
