// Package hosttool is what tools read of a running host and a game does
// not need: the web inspector, luaai's commands, explore and luatest use it.
// It attaches observers to a host, shows an agent's state and a
// behaviour's structure as plain Go data, and reports coverage and profiles,
// in the manner of net/http/httptrace: the engine (package host) serves
// nothing itself.
//
// Every function belongs to the goroutine that owns the host, between
// ticks, as the host's own methods do.
package hosttool

import (
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/luabind/defs"
)

// RunLua calls fn with the Lua side of h's first worker: the state that
// test files (luatest), a console or a tool run their own Lua code in, with
// ai.spawn there spawning into h. Call it on the goroutine that owns h and
// use the state only there (never while a Tick runs, never after Close).
// From a script while the workers run it returns host.ErrReentrant; after
// Close, an error wrapping host.ErrClosed; otherwise fn's error.
func RunLua(h *host.Host, fn func(vm *defs.VM) error) error {
	return link.Funcs.RunLua(h, fn)
}

// Definition is the validated definition b runs (its latest reload), for
// tools that read a behaviour without running it (luaai check and graph).
// It is shared: do not change it.
func Definition(b *host.Behaviour) *defs.State { return link.Funcs.Definition(b) }

// KindOf names the Lua type plain data becomes: "a number", "a string",
// "a boolean", "a table" or "nil"; for anything else, its Go type.
func KindOf(v any) string { return link.KindOf(v) }

// ProfileEntry is one Lua function as a callback of one kind in one state
// (or, with Native set, a native condition or scorer the engine evaluated
// in Go): how often it ran and for how long in all.
type ProfileEntry struct {
	Native   string // the native's description ("gt(hunger, 0.5)"); "" for a Lua function
	Compiled bool   // a Lua function that runs compiled to Go (see docs/performance-compiled.md)
	File     string
	Line     int           // where the function (or the native's state) is defined
	Callback host.Callback // "update", "when", "score", …
	State    string        // the state's path ("" for the root)
	Calls    int
	Total    time.Duration
}

// Profile is what [Profile] reports: the entries by total time, most
// first, and how the ticks' time divides between the Lua callbacks and the
// rest (the engine, native conditions and scorers, module functions called
// from Go).
type Profile struct {
	Entries   []ProfileEntry
	Ticks     int
	InTicks   time.Duration // wall time in Tick, all workers together
	InLua     time.Duration // in the Lua callbacks, summed over the workers
	InNatives time.Duration // in the native conditions and scorers
}

// ProfileOf returns h's profile so far (host.Options.Profile; empty
// without it).
func ProfileOf(h *host.Host) Profile {
	p := link.Funcs.Profile(h)
	out := Profile{Ticks: p.Ticks, InTicks: p.InTicks, InLua: p.InLua, InNatives: p.InNatives}
	for _, e := range p.Entries {
		out.Entries = append(out.Entries, ProfileEntry{
			Native: e.Native, Compiled: e.Compiled, File: e.File, Line: e.Line,
			Callback: host.Callback(e.Callback), State: e.State, Calls: e.Calls, Total: e.Total,
		})
	}
	return out
}

// mapSlice converts each element of xs with f; nil stays nil.
func mapSlice[T, U any](xs []U, f func(U) T) []T {
	if xs == nil {
		return nil
	}
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
