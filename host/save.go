package host

import (
	"io"
)

// SaveJob is a save whose encoding and writing run off the game loop
// (Host.SnapshotAsync).
type SaveJob struct {
	done chan struct{}
	err  error
	n    int
}

// Wait blocks until the save is written and returns its error: the
// writer's, or nil. It may be called any number of times, from any
// goroutine.
func (j *SaveJob) Wait() error {
	<-j.done
	return j.err
}

// Done is closed once the save is written (then Wait returns at once).
func (j *SaveJob) Done() <-chan struct{} { return j.done }

// Bytes is how many bytes the save wrote to its writer; it is meant for
// after Wait.
func (j *SaveJob) Bytes() int {
	<-j.done
	return j.n
}

// SnapshotAsync saves every agent as WriteSnapshot does, the same bytes,
// with only a consistent copy made on the calling goroutine: the agents'
// records, their Lua values already encoded into plain bytes. Formatting
// the document and writing it to w run on a goroutine of their own, so the
// game may keep ticking, spawning, restoring and saving meanwhile; w is
// used by that goroutine only, until the job is done, and is written once,
// whole (nothing is written if the copy fails: that error is returned
// here, and no job is started).
//
// Like every Host method it is called from the game loop, between ticks:
// called while the host ticks (from a script or a hook) it returns
// ErrReentrant and saves nothing. A game that saves every few seconds
// calls it between two ticks and checks the previous job's Done or Wait
// before starting the next.
func (h *Host) SnapshotAsync(w io.Writer) (*SaveJob, error) {
	s, size, err := h.saveCopyAs(false)
	if err != nil {
		return nil, err
	}
	j := &SaveJob{done: make(chan struct{})}
	go func() {
		defer close(j.done)
		data := appendCopies(make([]byte, 0, size), s.agents)
		j.n, j.err = w.Write(data)
	}()
	h.keepCopies(s, j.done)
	return j, nil
}
