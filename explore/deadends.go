package explore

import (
	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/internal/luacode"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// deadEnds lists the leaf states the search reached that nothing leads out
// of.
func deadEnds(b *host.Behaviour, totals map[partKey]*hosttool.CoverageItem) []DeadEnd {
	reached := map[string]*hosttool.CoverageItem{}
	for _, it := range totals {
		if it.Kind == hosttool.CoverState && it.Hits > 0 {
			reached[it.Name] = it
		}
	}
	byPath := map[string]*defs.State{}
	defs.Walk(hosttool.Definition(b), func(n *defs.Node) bool {
		byPath[n.Path] = n.Def
		return true
	})
	var out []DeadEnd
	var walk func(s *hosttool.StateInfo, exits bool, siblings int)
	walk = func(s *hosttool.StateInfo, exits bool, siblings int) {
		exits = exits || len(s.Transitions) > 0
		if s.Kind == "utility" {
			exits = true // its children are chosen again and again
		}
		// The only state of its machine has nowhere else to go: it is the
		// machine's whole behaviour, not a dead end.
		if len(s.Children) == 0 && s.Kind == "leaf" && s.Path != "" && siblings > 1 &&
			!exits && !s.Final && reached[s.Path] != nil && !leaves(byPath[s.Path]) {
			it := reached[s.Path]
			out = append(out, DeadEnd{Path: s.Path, File: it.File, Line: it.Line})
		}
		for _, c := range s.Children {
			walk(c, exits, len(s.Children))
		}
	}
	walk(hosttool.Structure(b), false, 1)
	return out
}

// leaves tells whether a state's own code may leave it: ai.pop or
// ai.replace named in its hooks or steps.
func leaves(s *defs.State) bool {
	if s == nil {
		return true
	}
	nums, strs := map[float64]bool{}, map[string]bool{}
	for _, fn := range []*lua.LFunction{s.Enter, s.Update, s.Exit, s.Pause, s.Resume} {
		luacode.Constants(fn, nums, strs)
	}
	for _, st := range s.Steps {
		luacode.Constants(st.Fn, nums, strs)
	}
	return strs["pop"] || strs["replace"]
}
