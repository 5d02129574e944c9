package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/luaai/luaai/host"
)

// A frame deadline: TickContext stops ticking agents when the frame's
// time is up, and the agents it did not reach go first in the next frame,
// with the time they missed added to their dt. A paused host (the
// inspector's pause button) ticks nobody and returns nil, so the loop goes
// on drawing.
func ExampleHost_TickContext() {
	h, err := host.New(host.Options{})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	door, err := h.LoadString("door.lua", doorScript)
	if err != nil {
		panic(err)
	}
	a, _ := h.Spawn(door, nil)
	a.Send("knock", nil)
	for frame := 1; frame <= 3; frame++ {
		// The share of the frame the game gives its AI (generous here, so
		// that the example prints the same on a busy machine).
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := h.TickContext(ctx, 1.0/60)
		cancel()
		if err != nil {
			fmt.Println("tick:", err) // a cut frame: the rest tick next frame
		}
		if frame == 2 {
			h.Pause()
		}
		fmt.Println(frame, h.TickNumber(), h.Paused(), a.Path())
	}
	// Output:
	// 1 1 false open
	// 2 2 true open
	// 3 2 true open
}

// A game that reloads scripts as they are saved: a watcher goroutine
// queues the reload (QueueReload may be called from any goroutine), and
// the next Tick applies it between agents' ticks, on the game's own
// goroutine. OnReload tells whether the new version runs; a broken one
// leaves the old one running.
func ExampleHost_QueueReload() {
	dir, err := os.MkdirTemp("", "mod")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "door.lua")
	if err := os.WriteFile(path, []byte(doorScript), 0o644); err != nil {
		panic(err)
	}

	// OnReload runs inside Tick, on the game's goroutine: it must not block.
	reloaded := make(chan error, 8)
	h, err := host.New(host.Options{OnReload: func(r host.ReloadResult) {
		select {
		case reloaded <- r.Err:
		default:
		}
	}})
	if err != nil {
		panic(err)
	}
	defer h.Close()
	door, err := h.LoadFile(path)
	if err != nil {
		panic(err)
	}
	a, _ := h.Spawn(door, nil)

	w, err := fsnotify.NewWatcher()
	if err != nil {
		panic(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		panic(err)
	}
	go func() {
		for ev := range w.Events {
			if ev.Name == path && (ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create)) {
				h.QueueReload(door)
			}
		}
	}()

	// The modder saves a version where a knock opens the door twice. Saved
	// as editors save, to a temporary file renamed over the script, so a
	// reload never reads half a file.
	edited := []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "closed",
  context = { opened = 0 },
  states = {
    closed = { transitions = { { to = "open", on = "knock" } } },
    open = { enter = function(ctx) ctx.opened = ctx.opened + 2 end },
  },
}`)
	tmp := filepath.Join(dir, ".door.lua.tmp")
	if err := os.WriteFile(tmp, edited, 0o644); err != nil {
		panic(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		panic(err)
	}
	// The game loop: tick until the reload has been applied.
	for done := false; !done; {
		_ = h.Tick(1.0 / 60)
		select {
		case err := <-reloaded:
			fmt.Println("reloaded:", err)
			done = true
		default:
		}
	}
	a.Send("knock", nil)
	_ = h.Tick(1.0 / 60)
	n, _ := a.Number("opened")
	fmt.Println(a.Path(), n)
	// Output:
	// reloaded: <nil>
	// open 2
}
