package host

// The profile (Options.Profile): time and calls per Lua callback, summed
// over the run, for a game (Host.Profile) and luaai run --profile. Each
// worker's VM times its outermost calls (luabind.VM.TimeCalls) into the
// worker's own table; Profile merges them between ticks.

import (
	"cmp"
	"slices"
	"time"

	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

// ProfileEntry is one Lua function as a callback of one kind in one state:
// how often it ran and for how long in all.
type ProfileEntry struct {
	File     string
	Line     int      // where the function is defined
	Callback Callback // "update", "when", "score", …
	State    string   // the state's path ("" for the root)
	Calls    int
	Total    time.Duration
}

// Profile is what Host.Profile reports: the entries by total time, most
// first, and how the ticks' time divides between the Lua callbacks and the
// rest (the engine, native conditions and scorers, module functions called
// from Go).
type Profile struct {
	Entries []ProfileEntry
	Ticks   int
	InTicks time.Duration // wall time in Tick, all workers together
	InLua   time.Duration // in the callbacks, summed over the workers
}

type profileKey struct {
	proto    *lua.FunctionProto
	callback callback
	state    string
}

type profileCount struct {
	calls int
	total time.Duration
}

// profiler is a worker's share of the profile.
type profiler struct {
	counts map[profileKey]*profileCount
}

// startProfile makes w's VM time its callbacks.
func (w *worker) startProfile() {
	w.prof = &profiler{counts: map[profileKey]*profileCount{}}
	w.vm.TimeCalls(func(fn *lua.LFunction, d time.Duration) {
		r, ok := w.vm.Runner().(runner)
		if !ok || r.a.cur == nil || r.a.curKind == cbNone {
			return // not an agent's callback (a script loading, a test file)
		}
		k := profileKey{proto: fn.Proto, callback: r.a.curKind, state: r.a.cur.path}
		c := w.prof.counts[k]
		if c == nil {
			c = &profileCount{}
			w.prof.counts[k] = c
		}
		c.calls++
		c.total += d
	})
}

// Profile returns the profile so far (Options.Profile; empty without it).
// Call it on the goroutine that owns h, between ticks.
func (h *Host) Profile() Profile {
	p := Profile{Ticks: h.profTicks, InTicks: h.profTime}
	merged := map[profileKey]*profileCount{}
	for _, w := range h.workers {
		if w.prof == nil {
			continue
		}
		for k, c := range w.prof.counts {
			m := merged[k]
			if m == nil {
				m = &profileCount{}
				merged[k] = m
			}
			m.calls += c.calls
			m.total += c.total
		}
	}
	for k, c := range merged {
		e := ProfileEntry{Callback: Callback(k.callback.String()), State: k.state, Calls: c.calls, Total: c.total}
		if k.proto != nil {
			e.File, e.Line = k.proto.SourceName, k.proto.LineDefined
		}
		p.Entries = append(p.Entries, e)
		p.InLua += c.total
	}
	slices.SortFunc(p.Entries, func(a, b ProfileEntry) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return cmp.Compare(luabind.Pos{File: a.File, Line: a.Line}.String()+a.State, luabind.Pos{File: b.File, Line: b.Line}.String()+b.State)
	})
	return p
}
