package explore

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
	"github.com/luaai/luaai/internal/luacode"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// vocab is what the explorer knows the behaviour reacts to: the events it
// names, the context fields it reads, the constants it compares with and
// the durations it waits for. It is read from the definition and the
// compiled code, never by running the script.
type vocab struct {
	events    []eventVocab
	fields    []fieldVocab
	nums      []float64 // constants and their neighbours
	strs      []string
	durations []float64
	agents    int
}

type eventVocab struct {
	name   string
	fields []fieldVocab // what its handlers read from the payload
	// scalar: a handler takes the payload but reads no field of it (a
	// position sent as a number, a name as a string).
	scalar bool
	to     []int // the agents (0-based) whose script handles it
}

// fieldVocab is a field and the values worth writing into it: of its
// default's type, or, where the default says nothing (false, {}, none),
// of the type the code uses it as.
type fieldVocab struct {
	key     string
	num     bool     // numbers
	boolean bool     // true and false
	none    bool     // false, the "none yet" of a default of false
	id      bool     // another agent's id
	strs    []string // these strings
	table   bool     // tables, with keys
	keys    []string
	// vals are the values the native conditions and scorers that read
	// the field compare it with (ai.is: true and false; ai.gt: around its
	// number; a curve: across its inputs); keyVals the same for the keys
	// of a table field read by a dotted path (ai.is("target.visible")).
	vals    []Value
	keyVals map[string][]Value
	on      []int // the agents (0-based) whose script reads it
}

// writable tells whether there is anything to write.
func (f *fieldVocab) writable() bool {
	return f.num || f.boolean || f.none || f.id || len(f.strs) > 0 || f.table || len(f.vals) > 0
}

// maxVocab bounds each list, so a huge script cannot make the explorer's
// choices huge.
const maxVocab = 256

// vocabReader collects what a definition's code reads and compares with.
type vocabReader struct {
	nums      map[float64]bool
	strs      map[string]bool
	ctxUses   map[string]*luacode.Use
	eventUses map[string]map[string]*luacode.Use
	scalar    map[string]bool // events a handler takes a payload of
	durations map[float64]bool
	helpers   map[*lua.LFunction]bool
	probes    map[string][]lua.LValue // a native's dotted field path: the values it decides on
}

func readVocab(b *host.Behaviour, agents int) *vocab {
	r := &vocabReader{
		nums: map[float64]bool{}, strs: map[string]bool{}, ctxUses: map[string]*luacode.Use{},
		eventUses: map[string]map[string]*luacode.Use{}, durations: map[float64]bool{}, scalar: map[string]bool{},
		helpers: map[*lua.LFunction]bool{}, probes: map[string][]lua.LValue{},
	}
	root := hosttool.Definition(b)
	defs.EachFunction(root, r.function)
	defs.EachState(root, r.state)
	defaults := b.Defaults()
	for _, k := range sortedKeys(defaults) {
		if r.ctxUses[k] == nil {
			r.ctxUses[k] = &luacode.Use{}
		}
	}
	v := &vocab{agents: agents}
	for _, k := range sortedKeys(r.ctxUses) {
		d, has := defaults[k]
		f := fieldOf(k, d, has, r.ctxUses[k])
		r.probe(&f)
		if f.writable() {
			v.fields = append(v.fields, f)
		}
	}
	for _, name := range sortedKeys(r.eventUses) {
		ev := eventVocab{name: name, scalar: r.scalar[name]}
		keys := sortedKeys(r.eventUses[name])
		for _, k := range keys[:min(len(keys), maxVocab)] {
			f := fieldOf(k, nil, false, r.eventUses[name][k])
			if !f.writable() {
				f.num = true // read, and nothing said how: a number, the commonest
			}
			ev.fields = append(ev.fields, f)
		}
		v.events = append(v.events, ev)
	}
	for n := range r.nums {
		v.nums = append(v.nums, n, n-1, n+1, n-0.01, n+0.01)
	}
	v.nums = uniqueFloats(append(v.nums, 0, 1, -1, 100, 1e6, -1e6))
	for s := range r.strs {
		if len(s) <= 64 {
			v.strs = append(v.strs, s)
		}
	}
	sort.Strings(v.strs)
	for d := range r.durations {
		v.durations = append(v.durations, d, d+0.01)
	}
	v.durations = uniqueFloats(v.durations)
	v.events = v.events[:min(len(v.events), maxVocab)]
	v.fields = v.fields[:min(len(v.fields), maxVocab)]
	v.nums = v.nums[:min(len(v.nums), 4*maxVocab)]
	v.strs = v.strs[:min(len(v.strs), maxVocab)]
	v.durations = v.durations[:min(len(v.durations), maxVocab)]
	return v
}

// function reads a hook, condition, action or scorer.
func (r *vocabReader) function(fn *lua.LFunction) {
	luacode.Constants(fn, r.nums, r.strs)
	luacode.FieldUses(fn, 0, r.ctxUses)
	// A local helper given the context (note(ctx, "x")): what it reads
	// counts too.
	ctxName := luacode.ParamName(fn, 0)
	for _, h := range luacode.Helpers(fn) {
		if !r.helpers[h] && ctxName != "" && luacode.ParamName(h, 0) == ctxName {
			r.helpers[h] = true
			luacode.Constants(h, r.nums, r.strs)
			luacode.FieldUses(h, 0, r.ctxUses)
		}
	}
}

// native reads a native condition or scorer.
func (r *vocabReader) native(x any) {
	defs.NativeUses(x, r.ctxUses)
	for _, p := range defs.NativeProbes(x) {
		vs := r.probes[p.Field]
		if len(vs) < 64 && !slices.Contains(vs, p.Value) {
			r.probes[p.Field] = append(vs, p.Value)
		}
	}
	for _, c := range defs.NativeComparisons(x) {
		switch k := c.Value.(type) {
		case lua.LNumber:
			r.nums[float64(k)] = true
		case lua.LString:
			r.strs[string(k)] = true
		}
	}
}

// node reads a tree node or step item, and those below it.
func (r *vocabReader) node(n *defs.BTNode) {
	if n == nil {
		return
	}
	if n.Seconds > 0 {
		r.durations[n.Seconds] = true
	}
	r.native(n.Cond)
	for _, c := range n.Children {
		r.node(c)
	}
}

// state reads a state's timings, natives and transitions; an event's
// payload is what its transitions' when and run, and the target's enter,
// read from their second parameter.
func (r *vocabReader) state(n *defs.Node) {
	s := n.Def
	for _, d := range []float64{s.Every, s.DecideEvery} {
		if d > 0 {
			r.durations[d] = true
		}
	}
	r.native(s.Lock)
	r.native(s.Score)
	for _, st := range s.Steps {
		r.node(st)
	}
	if s.Tree != nil && len(s.Tree.Nodes) > 0 {
		r.node(s.Tree.Nodes[0].Def)
	}
	for _, t := range s.Transitions {
		r.native(t.When)
		if t.After > 0 {
			r.durations[t.After] = true
		}
		if t.On == "" {
			continue
		}
		uses := r.eventUses[t.On]
		if uses == nil {
			uses = map[string]*luacode.Use{}
			r.eventUses[t.On] = uses
		}
		handlers := []*lua.LFunction{t.Run}
		if lc, ok := t.When.(defs.LuaCond); ok {
			handlers = append(handlers, lc.Fn)
		}
		if n.Parent != nil && t.Target != "" {
			for _, c := range n.Parent.Def.Children {
				if c.Name == t.Target {
					handlers = append(handlers, c.Def.Enter)
				}
			}
		}
		for _, fn := range handlers {
			luacode.FieldUses(fn, 1, uses)
			if name := luacode.ParamName(fn, 1); name != "" && name != "_" {
				r.scalar[t.On] = true
			}
		}
	}
}

// probe adds to f the values the natives that read it decide on: its own
// (ai.is("seen")) and its keys' (ai.is("target.visible"), one key deep).
func (r *vocabReader) probe(f *fieldVocab) {
	if f.id {
		return
	}
	for _, path := range sortedKeys(r.probes) {
		top, sub, nested := strings.Cut(path, ".")
		if top != f.key {
			continue
		}
		var vals []Value
		for _, x := range r.probes[path] {
			if v, ok := plainValue(x); ok {
				vals = append(vals, v)
			}
		}
		if !nested {
			f.vals = append(f.vals, vals...)
			continue
		}
		sub, _, _ = strings.Cut(sub, ".")
		f.table = true
		if !slices.Contains(f.keys, sub) {
			f.keys = append(f.keys, sub)
		}
		if f.keyVals == nil {
			f.keyVals = map[string][]Value{}
		}
		f.keyVals[sub] = append(f.keyVals[sub], vals...)
	}
}

// plainValue is a constant as a value a step writes.
func plainValue(x lua.LValue) (Value, bool) {
	switch x := x.(type) {
	case lua.LBool:
		return boolValue(bool(x)), true
	case lua.LNumber:
		return numValue(float64(x)), true
	case lua.LString:
		return strValue(string(x)), true
	}
	return Value{}, false
}

// fieldOf is what to write into a field whose default is d (has: it has
// one) and that the code uses as u.
func fieldOf(key string, d any, has bool, u *luacode.Use) fieldVocab {
	f := fieldVocab{key: key}
	var strs []string
	for _, x := range u.Values {
		if s, ok := x.(lua.LString); ok {
			strs = append(strs, string(s))
		}
	}
	switch d := d.(type) {
	case float64:
		f.num = true
		return f
	case string:
		f.strs = uniqueStrings(append([]string{d}, strs...))
		if len(f.strs) == 1 {
			f.strs = nil // only its default: nothing to try
		}
		return f
	case bool:
		if d {
			f.boolean = true
			return f
		}
		// false, "none yet": written back unless the script fills the field
		// itself and never empties it (then false in the middle of its work
		// is a state no game makes).
		f.none = !u.Written || slices.Contains(u.Values, lua.LValue(lua.LFalse))
	case map[string]any:
		f.table = true
	}
	if u.ID {
		// Handed to ai.send_to: an agent's id (its own when it is alone),
		// or its "none yet"; any other number is a failure no game makes.
		return fieldVocab{key: key, id: true, none: f.none}
	}
	f.num = u.Number
	f.table = f.table || u.Table
	f.keys = slices.Clone(u.Keys)
	f.strs = uniqueStrings(strs)
	if has && u.Truthy && !u.ID && !f.num && !f.id && !f.table && len(f.strs) == 0 {
		f.boolean = true // a flag: false, then true
	}
	return f
}

func uniqueStrings(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// topKey is the first key of a dotted path.
func topKey(path string) string {
	if i := strings.IndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return path
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func uniqueFloats(xs []float64) []float64 {
	out := xs[:0]
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// castVocab is what the behaviours of a runner's cast react to, together:
// each event and field goes to the agents whose script reads it; the
// constants, strings and durations are shared, as are the agents' ids.
func castVocab(r *runner) *vocab {
	v := &vocab{agents: r.agents}
	for i, b := range r.bs {
		var mine []int
		for a, k := range r.kinds {
			if k == i {
				mine = append(mine, a)
			}
		}
		one := readVocab(b, r.agents)
		for _, e := range one.events {
			e.to = mine
			v.events = append(v.events, e)
		}
		for _, f := range one.fields {
			f.on = mine
			v.fields = append(v.fields, f)
		}
		v.nums = append(v.nums, one.nums...)
		v.strs = append(v.strs, one.strs...)
		v.durations = append(v.durations, one.durations...)
	}
	v.nums = uniqueFloats(v.nums)
	v.strs = uniqueStrings(v.strs)
	v.durations = uniqueFloats(v.durations)
	return v
}
