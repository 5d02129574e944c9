package host

// The profile (Options.Profile): time and calls per Lua callback, summed
// over the run, for hosttool.Profile (luaai run --profile). Each
// worker's VM times its outermost calls (defs.VM.TimeCalls) into the
// worker's own table; Profile merges them between ticks.

import (
	"cmp"
	"slices"
	"time"

	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

type profileKey struct {
	proto    *lua.FunctionProto
	native   any // a native condition or scorer (comparable: a pointer)
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

// profiledNative reports whether v is a native the profile times (Lua
// functions are timed by the VM instead).
func profiledNative(v any) bool {
	switch v.(type) {
	case defs.LuaCond, defs.LuaScorer, defs.ConstCond, defs.ConstScorer, nil:
		return false
	}
	return true
}

// nativeDone adds a native's evaluation, started at t0, to the profile.
func (a *Agent) nativeDone(v any, t0 time.Time) {
	d := time.Since(t0)
	k := profileKey{native: v}
	if a.cur != nil {
		k.callback, k.state = a.curKind, a.cur.path
	}
	c := a.w.prof.counts[k]
	if c == nil {
		c = &profileCount{}
		a.w.prof.counts[k] = c
	}
	c.calls++
	c.total += d
}

// testProfiled and scoreProfiled are Cond.Test and Scorer.Score timed for
// the profile (kept out of the hot functions: a closure there would move
// their results to the heap on every call).
func (a *Agent) testProfiled(c defs.Cond, payload lua.LValue) (bool, error) {
	if !profiledNative(c) {
		return c.Test(a.w.vm, a.ctx, payload)
	}
	t0 := time.Now()
	ok, err := c.Test(a.w.vm, a.ctx, payload)
	a.nativeDone(c, t0)
	return ok, err
}

func (a *Agent) scoreProfiled(s defs.Scorer) (float64, error) {
	if !profiledNative(s) {
		return s.Score(a.w.vm, a.ctx)
	}
	t0 := time.Now()
	x, err := s.Score(a.w.vm, a.ctx)
	a.nativeDone(s, t0)
	return x, err
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

// profile is hosttool.Profile.
func (h *Host) profile() link.Profile {
	p := link.Profile{Ticks: h.profTicks, InTicks: h.profTime}
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
		e := link.ProfileEntry{Callback: k.callback.String(), State: k.state, Calls: c.calls, Total: c.total}
		if k.proto != nil {
			e.File, e.Line = k.proto.SourceName, k.proto.LineDefined
			e.Compiled = luabind.ProtoCompiled(k.proto)
			p.InLua += c.total
		} else {
			e.Native = defs.Describe(k.native)
			p.InNatives += c.total
		}
		p.Entries = append(p.Entries, e)
	}
	slices.SortFunc(p.Entries, func(a, b link.ProfileEntry) int {
		if c := cmp.Compare(b.Total, a.Total); c != 0 {
			return c
		}
		return cmp.Compare(scripterr.Pos{File: a.File, Line: a.Line}.String()+a.State, scripterr.Pos{File: b.File, Line: b.Line}.String()+b.State)
	})
	return p
}
