package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/internal/safefile"
)

// luaai run's snapshots: --load restores agents from a save, --save writes
// one atomically.

// maxSnapshotFile bounds what --load reads.
const maxSnapshotFile = 1 << 30

// restore adds the agents of the snapshot file to h, running b, and
// returns them with the snapshot.
func restore(h *host.Host, file string, bs ...*host.Behaviour) ([]*host.Agent, []byte, error) {
	data, err := safefile.ReadRegular(file, maxSnapshotFile)
	if err != nil {
		return nil, nil, fmt.Errorf("--load: %w", err) // names the file
	}
	agents, err := h.Restore(data, bs...)
	if err != nil {
		return nil, nil, fmt.Errorf("--load %s: %w", file, err)
	}
	return agents, data, nil
}

// save writes a snapshot of every agent of h to file, atomically: a
// temporary file in the same folder renamed over it, so an interrupted save
// never leaves half a snapshot.
func save(h *host.Host, file string) error {
	data, err := h.Snapshot()
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
