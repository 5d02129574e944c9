package inspect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/luaai/luaai/internal/safefile"
	"github.com/luaai/luaai/luabind"
)

// CheckFile refuses a script that `luaai check` must not read, as require
// refuses a module: one whose symbolic links lead out of dir (the folder
// given, or the script's own), wrapping luabind.ErrOutsideRoots; or one
// that is not a regular file (a folder, a named pipe, a device), wrapping
// safefile.ErrNotRegular. A mod archive may carry a link named like a
// script that leads to any file of the machine, and a compile error would
// show its first token. A path that cannot be read at all is left to the
// load to report: CheckFile returns nil.
func CheckFile(dir, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	if !within(dir, path) {
		return fmt.Errorf("a symbolic link leads out of %s: %w", dir, luabind.ErrOutsideRoots)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%w (%s)", safefile.ErrNotRegular, safefile.Kind(st.Mode()))
	}
	return nil
}

// within reports whether path, with every symbolic link followed, is in
// dir (its links followed too) or below it.
func within(dir, path string) bool {
	realDir, err1 := filepath.EvalSymlinks(dir)
	realPath, err2 := filepath.EvalSymlinks(path)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(realDir, realPath)
	return err == nil && !filepath.IsAbs(rel) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
