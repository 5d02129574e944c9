package luabind

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/luaai/luaai/internal/safefile"
)

// MaxScriptSize is the largest script or module file the engine reads: a
// behaviour is source text, and anything larger is a mistake or an attack
// (a link to /dev/zero, an 8 GB sparse file).
const MaxScriptSize = 4 << 20

// ErrNotRegular: a script path names a folder, a named pipe, a device or
// another thing that is not a regular file.
var ErrNotRegular = safefile.ErrNotRegular

// ErrTooLarge: a script file over MaxScriptSize.
var ErrTooLarge = fmt.Errorf("larger than the %d-byte limit on script files", MaxScriptSize)

// ReadScript reads a script file: a regular file (symbolic links followed)
// of at most MaxScriptSize bytes. It never blocks on a named pipe and never
// reads more than the limit, whatever the file claims to be. Errors name
// the path.
func ReadScript(path string) ([]byte, error) {
	data, err := safefile.ReadRegular(path, MaxScriptSize)
	var pe *fs.PathError
	var big interface{ Size() int64 }
	if errors.As(err, &big) && errors.As(err, &pe) {
		pe.Err = scriptTooLarge(big.Size())
	}
	return data, err
}

// scriptTooLarge is the error of a script over MaxScriptSize (size < 0:
// unknown).
func scriptTooLarge(size int64) error {
	if size < 0 {
		return ErrTooLarge
	}
	return fmt.Errorf("%w (it is %d bytes)", ErrTooLarge, size)
}

// ErrOutsideRoots is returned when a script asks for a file outside the
// allowed roots (an absolute path, "..", or a folder not listed).
var ErrOutsideRoots = errors.New("path outside the allowed script roots")
