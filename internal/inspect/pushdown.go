package inspect

import (
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// The pushdown pitfall: a state pushed over another pauses it; leaving the
// pushed state with `to` replaces the top of the stack and keeps the other
// paused below, so a later `to` (or `push`) back to it is refused at run
// time, on every tick, and the agent never gets back. pushdown warns about
// both ends of it in fsm m:
//
//   - a transition `to P` (or `push P`) from a state reached from a state
//     pushed over P through `to` transitions only: it is refused while P is
//     paused (at the transition's line);
//
//   - a state entered only by push that leaves by `to`, when no state
//     reached from it that way pops (a `pop` transition, or ai.pop or
//     ai.replace in its code): what it was pushed over stays paused for
//     good (at the `to`'s line).
//
// ai.push, ai.pop and ai.replace in code are seen only by name: a pop in
// a helper function, or a push from code, is not.
func (l *linter) pushdown(m *defs.State, path string, kids map[string]defs.Place) {
	line := func(state string, i int) scripterr.Pos {
		c := m.Children[m.Child(state)]
		if p, ok := kids[state]; ok && len(p.Trans) == len(c.Def.Transitions) {
			return at(p.Trans[i], c.Def.Transitions[i].Pos)
		}
		return c.Def.Transitions[i].Pos
	}
	what := func(state string) string { return stateWhat(joinPath(path, state)) }
	enteredByTo := map[string]bool{m.Initial: true}
	for _, c := range m.Children {
		for _, tr := range c.Def.Transitions {
			if tr.Kind == defs.To && tr.Target != c.Name {
				enteredByTo[tr.Target] = true
			}
		}
	}
	warned := map[scripterr.Pos]bool{}
	for _, p := range m.Children {
		for pi, push := range p.Def.Transitions {
			q := push.Target
			if push.Kind != defs.Push || m.Child(q) < 0 || q == p.Name {
				continue
			}
			pushedAt := line(p.Name, pi)
			// The states reached from q by `to` only.
			reached := map[string]bool{q: true}
			queue := []string{q}
			pops := false
			for len(queue) > 0 {
				s := queue[0]
				queue = queue[1:]
				def := m.Children[m.Child(s)].Def
				pops = pops || codePops(def)
				for i, tr := range def.Transitions {
					switch {
					case tr.Kind == defs.Pop:
						pops = true
					case (tr.Kind == defs.To || tr.Kind == defs.Push) && tr.Target == p.Name:
						if pos := line(s, i); !warned[pos] {
							warned[pos] = true
							l.warn(pos, "%s: transition %d (%s) is refused whenever %q is paused below: %q is pushed over it (line %d) and leaves by to, which keeps %q paused; leave a pushed state with pop = true (or ai.pop()) to resume %q",
								what(s), i+1, transitionSummary(tr), p.Name, q, pushedAt.Line, p.Name, p.Name)
						}
					case tr.Kind == defs.To && m.Child(tr.Target) >= 0:
						if !reached[tr.Target] {
							reached[tr.Target] = true
							queue = append(queue, tr.Target)
						}
					}
				}
			}
			if pops || enteredByTo[q] {
				continue
			}
			for i, tr := range m.Children[m.Child(q)].Def.Transitions {
				if tr.Kind != defs.To || tr.Target == q {
					continue
				}
				if pos := line(q, i); !warned[pos] {
					warned[pos] = true
					l.warn(pos, "%s is entered only by push (line %d) and leaves by %s: %q stays paused below, and no state after it pops back to it; leave a pushed state with pop = true (or ai.pop())",
						what(q), pushedAt.Line, transitionSummary(tr), p.Name)
				}
			}
		}
	}
}

// codePops tells whether a state's own code names ai.pop or ai.replace.
func codePops(s *defs.State) bool {
	nums, strs := map[float64]bool{}, map[string]bool{}
	for _, fn := range []*lua.LFunction{s.Enter, s.Update, s.Exit, s.Pause, s.Resume} {
		defs.Constants(fn, nums, strs)
	}
	for _, st := range s.Steps {
		defs.Constants(st.Fn, nums, strs)
	}
	for _, tr := range s.Transitions {
		defs.Constants(tr.Run, nums, strs)
	}
	return strs["pop"] || strs["replace"]
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
