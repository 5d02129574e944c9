// Package inspector is luaai's web inspector: an http.Handler serving a
// page that shows every agent of a host live (state, stacks, context,
// utility scores and curves, timers, steps, running tree nodes, pending
// events and requests, errors and ai.log lines, with a slider over their
// last ticks) and can pause, step and resume the host, send events and set
// context values. It can never run Lua.
//
// New attaches one to a host through the host's observer API
// (hosttool.Observe): it builds frames on the game goroutine at the end
// of each Tick, from hosttool.View and hosttool.Structure, and
// applies the page's commands at the start of the next. Its HTTP side
// reads only what was published, on any goroutines. What it keeps is
// bounded: each followed agent's history by Options.History ticks, and all
// of them together by Options.HistoryBytes (32 MiB by default), past which
// the oldest frames of the agents picked least recently go first. It
// imports host and internal/plainjson; the engine knows nothing of it.
//
//	ih := inspector.New(h, inspector.Options{Token: os.Getenv("AI_TOKEN")})
//	mux.Handle("/ai/", http.StripPrefix("/ai", ih))
package inspector
