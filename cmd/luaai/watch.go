package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// debounce is how long the files must stay quiet after a change before a
// reload: an editor's save is often several events (write the temporary
// file, rename it over the old one, chmod).
const debounce = 100 * time.Millisecond

// watcher reports changes to a set of files. It watches their folders, not
// the files themselves, because editors save by writing a temporary file and
// renaming it over the old one, which a watch on the old file would lose.
//
// Its goroutine only signals: Changed receives a value once a change has
// settled, Errors what the file system watcher reported. The run loop, which
// owns the host, does the reloading.
type watcher struct {
	fs      *fsnotify.Watcher
	changed chan struct{} // capacity 1: changes coalesce until the loop looks
	errs    chan error    // capacity 8: later errors are dropped while it is full
	done    chan struct{} // closed when the goroutine has ended

	roots []string // folders modules are required from

	mu     sync.Mutex
	files  map[string]bool // absolute, cleaned
	dirs   map[string]bool // the folders watched
	gone   map[string]bool // watched folders found missing, said once each
	anyLua bool            // any .lua file in dirs counts
}

// newWatcher watches files (any mix of relative and absolute paths); roots
// are the folders modules are required from, watched too while retrying
// (see set).
func newWatcher(files, roots []string) (*watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{
		fs:      fsw,
		changed: make(chan struct{}, 1),
		errs:    make(chan error, 8),
		done:    make(chan struct{}),
		roots:   roots,
		files:   map[string]bool{},
		dirs:    map[string]bool{},
		gone:    map[string]bool{},
	}
	if err := w.set(files, false); err != nil {
		fsw.Close()
		return nil, err
	}
	go w.loop()
	return w, nil
}

// Changed receives a value when a watched file has changed and then stayed
// quiet for the debounce period.
func (w *watcher) Changed() <-chan struct{} { return w.changed }

// Errors receives the errors of the file system watcher.
func (w *watcher) Errors() <-chan error { return w.errs }

// Close stops watching and waits for the goroutine to end.
func (w *watcher) Close() error {
	err := w.fs.Close()
	<-w.done
	return err
}

// set replaces the watched files: folders no longer needed are dropped, new
// ones added. With retry (after a failed reload) a change to any .lua file in
// those folders or in the roots counts too, since the module that broke the
// reload is not among files when it was newly required, and may not even
// exist yet. A folder that cannot be watched is an error, and the others are
// still watched.
func (w *watcher) set(files []string, retry bool) error {
	want := map[string]bool{}
	dirs := map[string]bool{}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		want[abs] = true
		dirs[filepath.Dir(abs)] = true
	}
	if retry {
		for _, r := range w.roots {
			if abs, err := filepath.Abs(r); err == nil {
				dirs[abs] = true
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for d := range dirs {
		if w.dirs[d] {
			continue
		}
		if err := w.fs.Add(d); err != nil {
			errs = append(errs, fmt.Errorf("watch %s: %w", d, err))
			continue
		}
		w.dirs[d] = true
	}
	for d := range w.dirs {
		if !dirs[d] {
			_ = w.fs.Remove(d) // fails only when the folder is gone, which unwatches it anyway
			delete(w.dirs, d)
		}
	}
	w.files, w.anyLua = want, retry
	return errors.Join(errs...)
}

func (w *watcher) watched(name string) bool {
	abs, err := filepath.Abs(name)
	if err != nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.files[abs] || w.anyLua && filepath.Ext(abs) == ".lua" && w.dirs[filepath.Dir(abs)]
}

// rewatchEvery is how often the loop checks that every watched folder is
// still watched: a folder deleted and made again (git checkout, some
// editors) loses its watch, and fsnotify does not restore it.
const rewatchEvery = 250 * time.Millisecond

// errFolderGone says a watched folder was deleted: the run goes on with
// what it loaded, and watches the folder again when it comes back.
var errFolderGone = errors.New("folder gone; watched again when it comes back")

// rewatch adds the watch of every folder that lost it and exists again;
// back is true when one came back (its files may all have changed), and
// gone lists the folders found missing since the last look (each said
// once until it comes back).
func (w *watcher) rewatch() (back bool, gone []error) {
	have := map[string]bool{}
	for _, d := range w.fs.WatchList() {
		have[d] = true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for d := range w.dirs {
		switch {
		case have[d]:
		case w.fs.Add(d) == nil:
			back = true
			delete(w.gone, d)
		case !w.gone[d]:
			w.gone[d] = true
			gone = append(gone, fmt.Errorf("%s: %w", d, errFolderGone))
		}
	}
	return back, gone
}

func (w *watcher) loop() {
	defer close(w.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	poll := time.NewTicker(rewatchEvery)
	defer poll.Stop()
	for {
		select {
		case <-poll.C:
			back, gone := w.rewatch()
			if back {
				timer.Reset(debounce)
			}
			for _, err := range gone {
				w.report(err)
			}
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			// A chmod alone (touch, some editors and indexers) changes no
			// text; a rename away or a remove may be the first half of a save.
			if ev.Op == fsnotify.Chmod || !w.watched(ev.Name) {
				continue
			}
			timer.Reset(debounce)
		case <-timer.C:
			select {
			case w.changed <- struct{}{}:
			default: // a change is already waiting for the loop
			}
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			w.report(err)
		}
	}
}

// report hands err to the run loop, dropping it while errs is full.
func (w *watcher) report(err error) {
	select {
	case w.errs <- err:
	default:
	}
}
