// Package safefile reads files that come from outside the program (mods'
// scripts, save files) without trusting what they are: only regular files,
// never more than a limit, never blocking on a named pipe. luabind reads
// scripts with it and the luaai command snapshot files. It imports only the
// standard library.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular: the path names a folder, a named pipe, a device or another
// thing that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge: the file is larger than the limit it was read with.
var ErrTooLarge = errors.New("larger than the limit")

// ReadRegular reads a regular file (symbolic links followed) of at most
// limit bytes. It never blocks on a named pipe (the file is opened
// non-blocking and checked again once open) and never reads more than
// limit+1 bytes, whatever the file claims to be. Errors are
// *fs.PathError naming the path; a file that is not regular wraps
// ErrNotRegular, one over the limit ErrTooLarge.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: sizeError(limit, -1)}
	}
	return data, nil
}

// Open opens a regular file (symbolic links followed) for reading, as
// ReadRegular does, for a caller that reads it as a stream and bounds what
// it reads itself.
func Open(path string) (*os.File, error) { return open(path, -1) }

// open opens path if it is a regular file of at most limit bytes (limit <
// 0: any size).
func open(path string, limit int64) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(st.Mode()))}
	}
	if limit >= 0 && st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: sizeError(limit, st.Size())}
	}
	// O_NONBLOCK: if the file was swapped for a pipe since Stat, opening it
	// must not wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil {
		f.Close()
		return nil, err
	} else if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(st.Mode()))}
	}
	return f, nil
}

// tooLarge is the error of a file over limit; size < 0 when only reading
// found out.
type tooLarge struct{ limit, size int64 }

func (e *tooLarge) Error() string {
	if e.size >= 0 {
		return fmt.Sprintf("larger than the %d-byte limit (it is %d bytes)", e.limit, e.size)
	}
	return fmt.Sprintf("larger than the %d-byte limit", e.limit)
}

func (e *tooLarge) Is(target error) bool { return target == ErrTooLarge }

// Size is the file's size, or -1 when only reading found it too large.
func (e *tooLarge) Size() int64 { return e.size }

func sizeError(limit, size int64) error { return &tooLarge{limit, size} }

// Kind names what kind of file m is: "a symbolic link" (from Lstat), "a
// folder", "a named pipe", "a regular file", …
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
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
