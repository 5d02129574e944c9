package main

import (
	"fmt"
	"time"

	"github.com/luaai/luaai/host/hosttool"
)

// What --profile prints: the costliest callbacks and natives, and how the
// ticks' time divides.

type profileLine struct {
	Profile profileJSON `json:"profile"`
}

type profileJSON struct {
	Ticks    int                `json:"ticks"`
	TickMS   float64            `json:"tick_ms"`
	LuaMS    float64            `json:"lua_ms"`
	NativeMS float64            `json:"native_ms"`
	Entries  []profileEntryJSON `json:"callbacks"`
}

type profileEntryJSON struct {
	Where    string  `json:"where"`
	Callback string  `json:"callback"`
	State    string  `json:"state"`
	Calls    int     `json:"calls"`
	MS       float64 `json:"ms"`
}

// profile prints --profile's table on stderr (a JSON line on stdout with
// --json): the ten costliest callbacks, and the ticks' time beside them.
func (o *runOutput) profile(p hosttool.Profile, workers int) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	if o.json {
		pj := profileJSON{Ticks: p.Ticks, TickMS: ms(p.InTicks), LuaMS: ms(p.InLua)}
		pj.NativeMS = ms(p.InNatives)
		for _, e := range p.Entries {
			pj.Entries = append(pj.Entries, profileEntryJSON{profileWhere(e), string(e.Callback), e.State, e.Calls, ms(e.Total)})
		}
		o.line(profileLine{pj})
		o.flush()
		return
	}
	o.flush()
	w := o.stderr
	fmt.Fprintf(w, "profile: %d ticks, %.3f ms in them", p.Ticks, ms(p.InTicks))
	if workers == 1 && p.InTicks > 0 {
		pct := func(d time.Duration) float64 { return float64(d) / float64(p.InTicks) * 100 }
		rest := p.InTicks - p.InLua - p.InNatives
		fmt.Fprintf(w, ": Lua callbacks %.3f ms (%.0f%%), natives %.3f ms (%.0f%%), the engine %.3f ms (%.0f%%)\n",
			ms(p.InLua), pct(p.InLua), ms(p.InNatives), pct(p.InNatives), ms(rest), pct(rest))
	} else {
		fmt.Fprintf(w, " (%d workers): Lua callbacks %.3f ms, natives %.3f ms, summed over the workers\n", workers, ms(p.InLua), ms(p.InNatives))
	}
	fmt.Fprintf(w, "  %8s %10s %9s  %-9s %s\n", "calls", "total ms", "mean µs", "callback", "where (state)")
	for _, e := range p.Entries[:min(len(p.Entries), 10)] {
		state := e.State
		if state == "" {
			state = "root"
		}
		fmt.Fprintf(w, "  %8d %10.3f %9.2f  %-9s %s (%s)\n", e.Calls, ms(e.Total), float64(e.Total.Nanoseconds())/float64(max(e.Calls, 1))/1000, e.Callback, oneLine(profileWhere(e)), oneLine(state))
	}
}

// profileWhere names a profile entry: file:line for a Lua function
// ("compiled file:line" for one that runs compiled to Go), the
// description for a native ("native gt(hunger, 0.5)").
func profileWhere(e hosttool.ProfileEntry) string {
	if e.Native != "" {
		return "native " + e.Native
	}
	if e.Compiled {
		return fmt.Sprintf("compiled %s:%d", e.File, e.Line)
	}
	return fmt.Sprintf("%s:%d", e.File, e.Line)
}
