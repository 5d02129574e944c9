package inspect

import (
	"fmt"
	"strings"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/internal/suggest"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// Lint returns every warning about a valid behaviour, sorted by position:
// the definition's own (unknown fields, a score outside a utility machine),
// and what `luaai check` finds by looking at the whole tree:
//
//   - a state of an fsm that no transition reaches: not the initial state,
//     and not the target of a sibling's `to` or `push`, directly or through
//     states that are themselves reached (ai.push and ai.replace could still
//     reach it: they cannot be seen without running the script);
//
//   - a transition that can never fire because an earlier one of the same
//     state always fires (no `when`, or `when = true`, no `on`, no `after`),
//     and a transition whose `when` is false;
//
//   - a native condition or scorer reading a context field that is not in
//     any machine's `context` defaults (only the first segment of a dotted
//     path is checked: nested tables are often filled at run time).
//
//   - a Lua callback reading ctx.X (from its first parameter) where X is in
//     no context defaults and nothing in the script writes it (t.X = …).
//
//   - the pushdown pitfall (pushdown.go): a state entered only by push that
//     leaves by `to`, and the `to` back to the paused state that is then
//     refused at run time.
//
// A definition placed in several parents
// is reported once, under the first path found (children in name order).
//
// Positions: where the script file can be read (scripterr.Pos.File), a warning about
// a state points at its key in the machine's `states`, and one about a
// transition at its entry; otherwise at the positions the definition
// recorded (the ai.fsm/ai.utility call, or a `when` function).
func Lint(root *defs.State) scripterr.ErrorList {
	if root == nil {
		return nil
	}
	l := &linter{defaults: contextKeys(root), src: defs.NewSources()}
	out := l.definitionWarnings(root)
	defs.EachState(root, l.state)
	l.ctxReads(root)
	out = append(out, l.out...)
	out.Sort()
	return out
}

type linter struct {
	defaults map[string]bool
	src      *defs.Sources
	out      scripterr.ErrorList
}

// at returns p, or def when p is unknown.
func at(p, def scripterr.Pos) scripterr.Pos {
	if p.Line > 0 {
		return p
	}
	return def
}

func (l *linter) warn(pos scripterr.Pos, format string, args ...any) { l.out.Add(pos, format, args...) }

// state warns about one state, at the place n where it is written.
func (l *linter) state(n *defs.Node) {
	s := n.Def
	where := defs.Place{Line: s.Pos}
	if n.Parent != nil {
		where = l.src.Children(n.Parent.Def)[n.Name]
	}
	what := stateWhat(n.Path)
	pos := at(where.Line, s.Pos)
	l.fields(pos, what+": lock", s.Lock)
	l.fields(pos, what+": score", s.Score)
	l.transitions(s, what, where.Trans)
	if s.Kind == defs.KindFSM {
		l.unreachable(s, n.Path, l.src.Children(s))
		l.pushdown(s, n.Path, l.src.Children(s))
	}
}

// stateWhat names a state in a message, as the decoder does.
func stateWhat(path string) string {
	if path == "" {
		return "the root machine"
	}
	return fmt.Sprintf("state %q", path)
}

// transitions warns about transitions that never fire, and about fields
// their native conditions read.
func (l *linter) transitions(s *defs.State, what string, lines []scripterr.Pos) {
	always := -1 // index of the first transition that always fires
	for i, tr := range s.Transitions {
		pos := tr.Pos
		if len(lines) == len(s.Transitions) {
			pos = at(lines[i], tr.Pos)
		}
		label := fmt.Sprintf("%s: transition %d (%s)", what, i+1, transitionSummary(tr))
		l.fields(pos, label+": when", tr.When)
		if always >= 0 {
			l.warn(pos, "%s can never fire: transition %d (%s) always fires first",
				label, always+1, transitionSummary(s.Transitions[always]))
			continue
		}
		if c, ok := tr.When.(defs.ConstCond); ok && !bool(c) {
			l.warn(pos, "%s never fires: its when is false", label)
			continue
		}
		if alwaysFires(tr) {
			always = i
		}
	}
}

// alwaysFires reports whether a transition fires whenever it is tried: no
// `when` (or `when = true`), no `on` and no `after`. Every transition after
// it in the same list is dead.
func alwaysFires(tr defs.Transition) bool {
	if tr.On != "" || tr.After > 0 {
		return false
	}
	if tr.When == nil {
		return true
	}
	c, ok := tr.When.(defs.ConstCond)
	return ok && bool(c)
}

// transitionSummary is "to combat", "push investigate", "pop" or
// "internal".
func transitionSummary(tr defs.Transition) string {
	if !tr.Kind.HasTarget() {
		return tr.Kind.String()
	}
	return tr.Kind.String() + " " + tr.Target
}

// fields warns about each context field a native reads that no context
// default declares.
func (l *linter) fields(pos scripterr.Pos, what string, native any) {
	if native == nil {
		return
	}
	for _, f := range defs.NativeFields(native) {
		top, _, _ := strings.Cut(f, ".")
		if !l.defaults[top] {
			l.warn(pos, "%s reads ctx.%s, but %q is in no context defaults (a typo, or set by the game?)", what, f, top)
		}
	}
}

// unreachable warns about the children of fsm m that no transition reaches
// from its initial state.
func (l *linter) unreachable(m *defs.State, path string, kids map[string]defs.Place) {
	reached := map[string]bool{}
	var queue []string
	if m.Child(m.Initial) >= 0 {
		reached[m.Initial] = true
		queue = append(queue, m.Initial)
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, tr := range m.Children[m.Child(name)].Def.Transitions {
			if !tr.Kind.HasTarget() || reached[tr.Target] || m.Child(tr.Target) < 0 {
				continue
			}
			reached[tr.Target] = true
			queue = append(queue, tr.Target)
		}
	}
	for _, c := range m.Children {
		if reached[c.Name] {
			continue
		}
		var from []string // siblings (themselves unreached) with a transition to c
		for _, o := range m.Children {
			if o.Name == c.Name {
				continue
			}
			for _, tr := range o.Def.Transitions {
				if tr.Kind.HasTarget() && tr.Target == c.Name {
					from = append(from, o.Name)
					break
				}
			}
		}
		what := stateWhat(strings.TrimPrefix(path+"."+c.Name, "."))
		pos := at(kids[c.Name].Line, c.Def.Pos)
		if len(from) == 0 {
			l.warn(pos, "%s: no transition reaches it (only ai.push/ai.replace could)", what)
		} else {
			l.warn(pos, "%s: no transition reaches it from the initial state, only from %s, which nothing reaches (only ai.push/ai.replace could)",
				what, strings.Join(from, ", "))
		}
	}
}

// contextKeys is the set of top-level string keys of every machine's
// context defaults: the keys of the merged defaults an agent starts with.
func contextKeys(root *defs.State) map[string]bool {
	keys := map[string]bool{}
	defs.EachState(root, func(n *defs.Node) {
		if n.Def.Context == nil {
			return
		}
		n.Def.Context.ForEach(func(k, _ lua.LValue) {
			if ks, ok := k.(lua.LString); ok {
				keys[string(ks)] = true
			}
		})
	})
	return keys
}

// ctxReads warns about each ctx.X a Lua callback reads that no context
// default declares and no code of the script writes: a typo, or a field
// the game sets (then a default says so).
func (l *linter) ctxReads(root *defs.State) {
	known := map[string]bool{}
	for k := range l.defaults {
		known[k] = true
	}
	var fns []*lua.LFunction
	defs.EachFunction(root, func(fn *lua.LFunction) {
		fns = append(fns, fn)
		defs.WrittenKeys(fn, known)
	})
	names := make([]string, 0, len(l.defaults))
	for k := range l.defaults {
		names = append(names, k)
	}
	seen := map[string]bool{}
	for _, fn := range fns {
		for _, r := range defs.CtxReads(fn) {
			where := fmt.Sprintf("%s:%d %s", fn.Proto.SourceName, r.Line, r.Key)
			if known[r.Key] || seen[where] {
				continue
			}
			seen[where] = true
			hint := ""
			if best := suggest.Closest(r.Key, names); best != "" {
				hint = fmt.Sprintf(" (did you mean ctx.%s?)", best)
			}
			l.warn(scripterr.Pos{File: fn.Proto.SourceName, Line: r.Line},
				"ctx.%s is read, but no context default declares it and nothing in the script writes it%s; if the game sets it, give it a default", r.Key, hint)
		}
	}
}
