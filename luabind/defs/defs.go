package defs

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/luaai/luaai/internal/luatext"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/internal/suggest"
	"github.com/luaai/luaai/luabind"
	lua "github.com/yuin/gopher-lua"
)

const machineTypeName = "luaai.machine"

var leafFields = map[string]bool{
	"enter": true, "exit": true, "update": true, "pause": true, "resume": true,
	"lock": true, "every": true, "transitions": true, "score": true, "steps": true, "steps_loop": true,
	"final": true,
}

var machineFields = map[string]bool{
	"initial": true, "states": true, "context": true, "decide_every": true, "history": true,
	"momentum": true, "select": true, "on_reload": true, "renamed": true,
}

var transitionFields = map[string]bool{"to": true, "push": true, "pop": true, "when": true, "on": true, "after": true, "run": true}

// decoder builds definitions from Lua tables, collecting every problem.
type decoder struct {
	L    *lua.LState
	pos  scripterr.Pos
	errs *scripterr.ErrorList
	warn *scripterr.ErrorList

	// Where the decoder is, for pointing problems at the right line later:
	// the child state being decoded ("" for the machine itself) and the
	// index of the transition (-1 for none).
	at    string
	trans int
	field string // the field a problem is about (fieldErrorf)
	tags  []tag
}

// tag remembers which state and transition a problem is about, so that
// refine can move it from the ai.fsm line to the line where it is written.
type tag struct {
	list  *scripterr.ErrorList
	index int
	state string
	trans int
	field string // the state's field the problem is about, "" for none
}

func (d *decoder) errorf(pos scripterr.Pos, format string, args ...any) {
	d.add(d.errs, pos, format, args...)
}

// fieldErrorf reports a problem with the state's field key, which refine
// points at the field's own line when it can find it.
func (d *decoder) fieldErrorf(key, format string, args ...any) {
	d.field = key
	d.add(d.errs, d.pos, format, args...)
	d.field = ""
}
func (d *decoder) warnf(pos scripterr.Pos, format string, args ...any) {
	d.add(d.warn, pos, format, args...)
}

func (d *decoder) add(list *scripterr.ErrorList, pos scripterr.Pos, format string, args ...any) {
	if pos == d.pos && d.at != "" {
		d.tags = append(d.tags, tag{list, len(*list), d.at, d.trans, d.field})
	}
	list.Add(pos, format, args...)
}

// refine points the tagged problems at the line of their state's key, or
// of their transition's entry, found in the script's source (the same
// scanner luaai check uses; used only when it matches the definition).
func (d *decoder) refine(m *State) {
	if len(d.tags) == 0 {
		return
	}
	kids := NewSources().Children(m)
	for _, t := range d.tags {
		p, ok := kids[t.state]
		if !ok {
			continue
		}
		pos := p.Line
		if f, ok := p.Fields[t.field]; ok && t.field != "" && t.trans < 0 {
			pos = f // the field's own line
		}
		if t.trans >= 0 && t.trans < len(p.Trans) {
			pos = p.Trans[t.trans]
		}
		(*t.list)[t.index].Pos = pos
	}
}

// decodeMachine builds a machine from the table given to ai.fsm / ai.utility.
func decodeMachine(L *lua.LState, kind Kind, t *lua.LTable, pos scripterr.Pos) *State {
	m := &State{Kind: kind, Pos: pos}
	d := &decoder{L: L, pos: pos, errs: &m.Problems, warn: &m.Warnings, trans: -1}
	what := "ai." + kind.String()
	d.hooks(m, t, what)
	t.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok {
			d.errorf(pos, "%s: field keys must be names, got %s", what, k.Type())
			return
		}
		if !leafFields[string(ks)] && !machineFields[string(ks)] {
			d.warnf(pos, "%s: unknown field %q%s", what, string(ks), didYouMean(string(ks), leafFields, machineFields))
		}
	})
	m.Context = d.optTable(t, "context", what, "a table")
	m.DecideEvery = d.seconds(t, "decide_every", what)
	if kind == KindRegions && t.RawGetString("history") != lua.LNil {
		d.errorf(pos, "%s: history is for ai.fsm and ai.utility (regions are never left one by one)", what)
	} else {
		m.History = d.optBool(t, "history", what)
	}
	m.OnReload = d.optFunc(t, "on_reload", what)
	m.Renamed = d.renamed(t, what)
	if kind == KindUtility {
		m.Momentum = d.optNumber(t, "momentum", what)
		d.selectMode(m, t.RawGetString("select"), what)
	} else {
		for _, f := range []string{"momentum", "select"} {
			if t.RawGetString(f) != lua.LNil {
				d.errorf(pos, "%s: %s is for ai.utility machines", what, f)
			}
		}
	}
	states := d.children(m, t, kind, what)
	d.initial(m, t, kind, what, states != nil)
	d.checkChildTransitions(m)
	d.at, d.trans = "", -1
	d.refine(m)
	return m
}

// children reads a machine's states table into m.Children, sorted by
// name; nil when there is no states table.
func (d *decoder) children(m *State, t *lua.LTable, kind Kind, what string) *lua.LTable {
	states, ok := t.RawGetString("states").(*lua.LTable)
	if !ok {
		d.errorf(d.pos, "%s: states must be a table of name = state", what)
		return nil
	}
	states.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok || !luatext.IsIdent(string(name)) {
			d.errorf(d.pos, "%s: state names must be Lua identifiers, got %q", what, luatext.CutText(lua.LVAsString(k), 60))
			return
		}
		d.at, d.trans = string(name), -1
		child := d.state(string(name), v, kind)
		d.at = ""
		if child != nil {
			m.Children = append(m.Children, Child{Name: string(name), Def: child})
		}
	})
	sort.Slice(m.Children, func(i, j int) bool { return m.Children[i].Name < m.Children[j].Name })
	if len(m.Children) == 0 {
		d.errorf(d.pos, "%s: a machine needs at least one state", what)
	}
	return states
}

// initial reads a machine's initial state; hasStates: its states table was
// read (else a missing initial is not reported twice).
func (d *decoder) initial(m *State, t *lua.LTable, kind Kind, what string, hasStates bool) {
	pos := d.pos
	switch v := t.RawGetString("initial").(type) {
	case *lua.LNilType:
		if kind == KindFSM {
			d.errorf(pos, "%s: missing initial state", what)
		}
	case lua.LString:
		if kind == KindRegions {
			d.errorf(pos, "%s: regions are all active at once; initial is for ai.fsm and ai.utility", what)
			break
		}
		m.Initial = string(v)
		if hasStates && m.Child(m.Initial) < 0 {
			d.errorf(pos, "%s: initial state %q is not one of its states (%s)", what, m.Initial, m.childNames())
		}
	default:
		d.errorf(pos, "%s: initial must be a state name, got %s", what, describeLua(v))
	}
}

// checkChildTransitions checks the targets of the children's transitions,
// here where the siblings are known.
func (d *decoder) checkChildTransitions(m *State) {
	for _, c := range m.Children {
		for i, tr := range c.Def.Transitions {
			if !tr.Kind.HasTarget() {
				continue
			}
			if m.Child(tr.Target) < 0 {
				d.at, d.trans = c.Name, i
				d.errorf(tr.Pos, "state %q: transition %s %q: no such state in this machine (%s)", c.Name, tr.Kind, tr.Target, m.childNames())
			}
		}
	}
}

// renamed reads a machine's renamed table: old path = new path.
func (d *decoder) renamed(t *lua.LTable, what string) map[string]string {
	rt := d.optTable(t, "renamed", what, "a table of old path = new path")
	if rt == nil {
		return nil
	}
	out := map[string]string{}
	rt.ForEach(func(k, v lua.LValue) {
		ks, ok1 := k.(lua.LString)
		vs, ok2 := v.(lua.LString)
		if !ok1 || !ok2 {
			d.errorf(d.pos, "%s: renamed entries must map a path string to a path string", what)
			return
		}
		out[string(ks)] = string(vs)
	})
	return out
}

func (m *State) childNames() string {
	names := make([]string, len(m.Children))
	for i, c := range m.Children {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// state decodes one entry of a machine's states.
func (d *decoder) state(name string, v lua.LValue, parent Kind) *State {
	switch v := v.(type) {
	case *lua.LUserData:
		m, ok := v.Value.(*State)
		if !ok {
			got := v.Type().String()
			if n, isNode := v.Value.(*BTNode); isNode {
				got = "a node (ai." + n.Kind.String() + "); wrap it: ai.tree { root = … }"
			}
			d.errorf(d.pos, "state %q: expected a table, ai.fsm{}, ai.utility{}, ai.regions{} or ai.tree{}, got %s", name, got)
			return nil
		}
		if parent == KindRegions {
			if !m.IsMachine() && m.Kind != KindTree {
				d.errorf(m.Pos, "region %q: a region must be a machine (ai.fsm, ai.utility, ai.regions or ai.tree)", name)
			}
			if len(m.Transitions) > 0 {
				d.errorf(m.Pos, "region %q: regions take no transitions (they are never left one by one)", name)
			}
			return m
		}
		if parent == KindUtility {
			if len(m.Transitions) > 0 {
				d.errorf(m.Pos, "state %q: children of a utility machine take no transitions", name)
			}
			if m.Score == nil {
				d.errorf(m.Pos, "state %q: children of a utility machine need a score (number, function or ai.* scorer)", name)
			}
		} else if m.Score != nil {
			d.warnf(m.Pos, "state %q: score is only used by utility machines", name)
		}
		return m
	case *lua.LTable:
		if parent == KindRegions {
			d.errorf(d.pos, "region %q: a region must be a machine (ai.fsm, ai.utility, ai.regions or ai.tree), got a plain table", name)
			return nil
		}
		s := &State{Kind: KindLeaf, Pos: d.pos}
		what := fmt.Sprintf("state %q", name)
		if v.RawGetString("states") != lua.LNil || v.RawGetString("initial") != lua.LNil {
			d.errorf(d.pos, "%s: a plain table state cannot have states or initial; make it ai.fsm{} or ai.utility{}", what)
		}
		v.ForEach(func(k, _ lua.LValue) {
			ks, ok := k.(lua.LString)
			if !ok {
				d.errorf(d.pos, "%s: field keys must be names, got %s", what, k.Type())
				return
			}
			if !leafFields[string(ks)] && !machineFields[string(ks)] {
				d.warnf(d.pos, "%s: unknown field %q%s", what, string(ks), didYouMean(string(ks), leafFields, machineFields))
			}
		})
		d.hooks(s, v, what)
		if parent == KindUtility {
			if len(s.Transitions) > 0 {
				d.errorf(d.pos, "%s: children of a utility machine take no transitions", what)
			}
			if s.Score == nil {
				d.errorf(d.pos, "%s: children of a utility machine need a score (number, function or ai.* scorer)", what)
			}
		} else if s.Score != nil {
			d.warnf(d.pos, "%s: score is only used by utility machines", what)
		}
		return s
	default:
		d.errorf(d.pos, "state %q: expected a table, ai.fsm{}, ai.utility{}, ai.regions{} or ai.tree{}, got %s%s", name, describeLua(v), d.noReturnHint(v))
		return nil
	}
}

// hooks decodes the fields every state has: hooks, lock, every, transitions, score.
func (d *decoder) hooks(s *State, t *lua.LTable, what string) {
	for _, h := range []struct {
		name string
		dst  **lua.LFunction
	}{{"enter", &s.Enter}, {"exit", &s.Exit}, {"update", &s.Update}, {"pause", &s.Pause}, {"resume", &s.Resume}} {
		v := t.RawGetString(h.name)
		if v == lua.LNil {
			continue
		}
		fn, ok := v.(*lua.LFunction)
		if !ok {
			d.fieldErrorf(h.name, "%s: hook %s must be a function, got %s", what, h.name, describeLua(v))
			continue
		}
		*h.dst = fn
	}
	if v := t.RawGetString("lock"); v != lua.LNil {
		if c, ok := toCond(v); ok {
			s.Lock = c
		} else {
			d.fieldErrorf("lock", "%s: lock must be a function, a boolean or an ai.* condition, got %s", what, describeLua(v))
		}
	}
	s.Every = d.seconds(t, "every", what)
	s.Final = d.optBool(t, "final", what)
	d.steps(s, t, what)
	if v := t.RawGetString("score"); v != lua.LNil {
		if sc, ok := toScorer(v); ok {
			s.Score = sc
		} else {
			d.errorf(d.pos, "%s: score must be a number, a function or an ai.* scorer, got %s", what, v.Type())
		}
	}
	v := t.RawGetString("transitions")
	if v == lua.LNil {
		return
	}
	list, ok := v.(*lua.LTable)
	if !ok {
		d.errorf(d.pos, "%s: transitions must be a list of tables, got %s", what, v.Type())
		return
	}
	n := d.listLen(list, what, "transitions")
	defer func() { d.trans = -1 }()
	for i := 1; i <= n; i++ {
		d.trans = i - 1
		e, ok := list.RawGetInt(i).(*lua.LTable)
		if !ok {
			d.errorf(d.pos, "%s: transition %d must be a table", what, i)
			continue
		}
		if tr, ok := d.transition(e, fmt.Sprintf("%s: transition %d", what, i)); ok {
			s.Transitions = append(s.Transitions, tr)
		}
	}
}

// listLen is the length of a list field, reporting every key that is not
// one of its indices 1..n.
func (d *decoder) listLen(list *lua.LTable, what, field string) int {
	n := list.Len()
	list.ForEach(func(k, _ lua.LValue) {
		if i, ok := k.(lua.LNumber); !ok || float64(i) != math.Trunc(float64(i)) || int(i) < 1 || int(i) > n {
			d.errorf(d.pos, "%s: %s must be a list {…, …}, found key %s", what, field, lua.LVAsString(k))
		}
	})
	return n
}

func (d *decoder) transition(e *lua.LTable, what string) (Transition, bool) {
	tr := Transition{Pos: d.pos}
	if fn, ok := e.RawGetString("when").(*lua.LFunction); ok {
		tr.Pos = FuncPos(fn, d.pos)
	}
	e.ForEach(func(k, _ lua.LValue) {
		if ks, ok := k.(lua.LString); !ok || !transitionFields[string(ks)] {
			d.warnf(tr.Pos, "%s: unknown field %q%s", what, lua.LVAsString(k), didYouMean(lua.LVAsString(k), transitionFields))
		}
	})
	ok := true
	kinds := 0
	if v := e.RawGetString("to"); v != lua.LNil {
		kinds++
		tr.Kind, tr.Target = To, lua.LVAsString(v)
		if _, isStr := v.(lua.LString); !isStr {
			d.errorf(tr.Pos, "%s: to must be a state name, got %s", what, v.Type())
			ok = false
		}
	}
	if v := e.RawGetString("push"); v != lua.LNil {
		kinds++
		tr.Kind, tr.Target = Push, lua.LVAsString(v)
		if _, isStr := v.(lua.LString); !isStr {
			d.errorf(tr.Pos, "%s: push must be a state name, got %s", what, v.Type())
			ok = false
		}
	}
	if v := e.RawGetString("pop"); v != lua.LNil {
		kinds++
		tr.Kind, tr.Target = Pop, ""
		if v != lua.LTrue {
			d.errorf(tr.Pos, "%s: pop must be true", what)
			ok = false
		}
	}
	if v := e.RawGetString("run"); v != lua.LNil {
		fn, isFn := v.(*lua.LFunction)
		if !isFn {
			d.errorf(tr.Pos, "%s: run must be a function, got %s", what, v.Type())
			ok = false
		}
		tr.Run = fn
		if kinds == 0 {
			kinds, tr.Kind = 1, Internal // handles its event without leaving the state
		}
	}
	if kinds != 1 {
		d.errorf(tr.Pos, "%s: needs exactly one of to, push, pop (or only run, for an internal transition)", what)
		ok = false
	}
	if v := e.RawGetString("when"); v != lua.LNil {
		c, isCond := toCond(v)
		if !isCond {
			d.errorf(tr.Pos, "%s: when must be a function, a boolean or an ai.* condition, got %s", what, v.Type())
			ok = false
		}
		tr.When = c
	}
	if v := e.RawGetString("on"); v != lua.LNil {
		s, isStr := v.(lua.LString)
		if !isStr || s == "" {
			d.errorf(tr.Pos, "%s: on must be an event name", what)
			ok = false
		}
		tr.On = string(s)
	}
	if v := e.RawGetString("after"); v != lua.LNil {
		n, isNum := luabind.NumberOf(v)
		if !isNum || n < 0 || math.IsInf(n, 0) {
			d.errorf(tr.Pos, "%s: after must be a non-negative number of seconds", what)
			ok = false
		}
		tr.After = n
	}
	return tr, ok
}

func (d *decoder) seconds(t *lua.LTable, field, what string) float64 {
	v := t.RawGetString(field)
	if v == lua.LNil {
		return 0
	}
	n, ok := luabind.NumberOf(v)
	if !ok || n < 0 || math.IsInf(n, 0) {
		d.fieldErrorf(field, "%s: %s must be a non-negative number of seconds, got %s", what, field, describeLua(v))
		return 0
	}
	return n
}

func (d *decoder) selectMode(m *State, v lua.LValue, what string) {
	switch v := v.(type) {
	case *lua.LNilType:
	case lua.LString:
		if v != "best" {
			d.errorf(d.pos, `%s: select must be "best" or { random_top = N }, got %q`, what, string(v))
		}
	case *lua.LTable:
		n, ok := luabind.NumberOf(v.RawGetString("random_top"))
		if !ok || n < 1 || n != math.Trunc(n) || n > 1<<31 {
			d.errorf(d.pos, "%s: select.random_top must be a positive whole number", what)
			return
		}
		m.RandomTop = int(n)
	default:
		d.errorf(d.pos, `%s: select must be "best" or { random_top = N }, got %s`, what, v.Type())
	}
}

// didYouMean is ` (did you mean "update"?)` for a name close to one of the
// known ones (internal/suggest), or "".
func didYouMean(name string, known ...map[string]bool) string {
	var names []string
	for _, set := range known {
		for k := range set {
			names = append(names, k)
		}
	}
	if best := suggest.Closest(name, names); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}
