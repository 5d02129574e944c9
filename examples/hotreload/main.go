// Command hotreload is a game loop whose AI reloads while it runs: it spawns
// 100 sentries from scripts/sentry.lua, ticks them in real time at 20 Hz,
// makes a noise in their corridor now and then, and reloads the script
// whenever it changes on disk. Every second it prints how many sentries are
// in each state. Edit scripts/sentry.lua while it runs (try hearing = 1, or
// a syntax error: the old behaviour keeps running).
//
//	go run ./examples/hotreload -seconds 60
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/luaai/luaai/host"
)

const hz = 20

func main() {
	seconds := flag.Float64("seconds", 5, "stop after this many seconds (0: at Ctrl-C)")
	script := flag.String("script", "scripts/sentry.lua", "the behaviour the sentries run")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	h, err := host.New(host.Options{
		// Reloads are applied at the start of a Tick, on this goroutine.
		OnReload: func(r host.ReloadResult) {
			if r.Err != nil {
				log.Printf("reload failed, still running the old %s:\n%v", r.Behaviour, r.Err)
				return
			}
			log.Printf("reloaded %s", r.Behaviour)
		},
		OnError: func(e *host.ScriptError) { log.Print(e) },
	})
	if err != nil {
		log.Fatal(err)
	}
	defer h.Close()
	sentry, err := h.LoadFile(*script)
	if err != nil {
		log.Fatal(err) // file:line: message, one problem a line
	}
	for i := range 100 {
		if _, err := h.Spawn(sentry, map[string]any{"x": float64(i % 4)}); err != nil {
			log.Fatal(err)
		}
	}

	w, err := watch(sentry.Files(), func() { h.QueueReload(sentry) })
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	ticker := time.NewTicker(time.Second / hz)
	defer ticker.Stop()
	rng := rand.New(rand.NewPCG(1, 2))
	last := int(*seconds * hz)
	for tick := 1; *seconds <= 0 || tick <= last; tick++ {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if rng.IntN(hz) == 0 { // about once a second
			pos := float64(rng.IntN(11)) // the sentries within hearing go and see
			for _, a := range h.Agents() {
				a.Send("noise", pos)
			}
		}
		if err := h.Tick(1.0 / hz); err != nil {
			log.Fatal(err)
		}
		if tick%hz == 0 {
			fmt.Printf("%3ds  %s\n", tick/hz, census(h.Agents()))
		}
	}
}

// census counts the agents in each state of the root machine:
// "go_see_disturbance 12, patrolling 88".
func census(agents []*host.Agent) string {
	count := map[string]int{}
	for _, a := range agents {
		root, _, _ := strings.Cut(a.Path(), ".")
		count[root]++
	}
	names := make([]string, 0, len(count))
	for name := range count {
		names = append(names, name)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s %d", name, count[name])
	}
	return strings.Join(parts, ", ")
}

// watch calls reload, from its own goroutine, once files have changed and
// stayed quiet for 100 ms. It watches their folders, because editors save
// by renaming a temporary file over the old one. (A module the script starts
// requiring later is not watched: luaai run --watch does that.)
func watch(files []string, reload func()) (*fsnotify.Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	watched := map[string]bool{}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			w.Close()
			return nil, err
		}
		watched[abs] = true
		if err := w.Add(filepath.Dir(abs)); err != nil {
			w.Close()
			return nil, err
		}
	}
	go func() {
		debounce := time.AfterFunc(time.Hour, reload)
		debounce.Stop()
		defer debounce.Stop()
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Op != fsnotify.Chmod && watched[ev.Name] {
					debounce.Reset(100 * time.Millisecond)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				log.Print(err)
			}
		}
	}()
	return w, nil
}
