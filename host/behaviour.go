package host

import (
	"slices"
	"sort"

	"github.com/luaai/luaai/internal/luaval"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// Behaviour is a loaded, validated behaviour script that any number of
// agents run. Get one from Host.LoadFile or Host.LoadString. The script is
// compiled once and run in every worker's Lua state, each of which holds its
// own copy of the state tree.
//
// A Behaviour belongs to the Host that loaded it; like the Host, it is used
// from one goroutine.
type Behaviour struct {
	h       *Host
	name    string
	path    string    // file, "" when loaded from a string
	layouts []*layout // by worker
	added   []string  // context defaults the last reload added (ReloadResult.Added)
	// vanished and moved: the active states the last reload removed, and
	// the agents that were in them (ReloadResult.Vanished, Moved).
	vanished []string
	moved    int
	last     ReloadResult // what the last reload reported (LastReload)
}

// definition is hosttool.Definition: the validated definition b runs.
func (b *Behaviour) definition() *defs.State { return b.layout().def }

// layout is one worker's immutable copy of a behaviour: the placed states.
type layout struct {
	name     string
	def      *defs.State
	root     *place
	places   []*place // by id, pre-order
	machines []*place // by machine index
	defaults *lua.LTable
	plan     ctxPlan // how newContext copies defaults, worked out once
	byName   map[string][]*place
	byPath   map[string]*place
	maxKids  int
	maxDepth int
	btCount  int            // behaviour-tree nodes of every tree state, each placed at its node's btBase
	regions  bool           // some state is ai.regions: the active states are a tree, not a path
	pool     runPool        // the agents' records (agent.go)
	tables   tableSlab      // their contexts' tables, where fillStrings makes them
	info     any            // hosttool.Structure's, built when first asked
	covItems []keyedItem    // its parts as coverage lists them, built when first asked
	covIndex map[covKey]int // covItems by their counts' key (CoverageHits)
}

// place is one placed state: a definition with a name, a path and a parent.
type place struct {
	def      *defs.State
	name     string
	path     string // dot-joined from the root; "" for the root
	id       int
	mid      int // machine index, -1 for leaves
	parent   *place
	index    int // position in parent.children
	children []*place
	initial  int    // child index, -1 for none
	fsm      *place // nearest fsm ancestor (not itself), nil if none
	trans    []transition
	// ai.tree states: the tree, where its nodes' records start in the
	// agent's bt, and per tree node the state's path with the running path
	// in brackets ("combat.tree[sequence.attack]").
	bt      *defs.BTree
	btBase  int
	btPaths []string
	pathLV  lua.LValue // path as a Lua string: the payload of tree:success and tree:failure
	// hasBody: an update hook, steps or a tree run in its update phase.
	hasBody bool
	depth   int // machines above it: 0 for the root
	// A utility machine's score plan (utility.go), made at its first
	// decision; planned says it was made (it may be nil).
	plan    *defs.ScorePlan
	planned bool
}

type transition struct {
	defs.Transition
	target int // child index in the parent machine, -1 for pop and internal
	index  int // its place among its state's transitions (coverage)
	// at is where its entry is written, read from the script when it is
	// first refused (transitionPos); zero until then.
	at scripterr.Pos
}

func (n *place) isMachine() bool { return n.def.IsMachine() }
func (n *place) isFSM() bool     { return n.def.Kind == defs.KindFSM }
func (n *place) isRegions() bool { return n.def.Kind == defs.KindRegions }

// Defaults returns the context an agent of the behaviour starts with (the
// merged context defaults of every machine), as plain Go data converted as
// Agent.Get converts.
func (b *Behaviour) Defaults() map[string]any {
	m, _ := luaval.ToGo(b.layout().defaults).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

// layout is the behaviour's layout in its first worker that has one (a
// behaviour a script built exists in one worker only).
func (b *Behaviour) layout() *layout {
	for _, l := range b.layouts {
		if l != nil {
			return l
		}
	}
	return nil
}

// Name is the file or chunk name the behaviour was loaded from.
func (b *Behaviour) Name() string { return b.name }

// States lists every state path of the behaviour in depth-first order,
// children by name; the root is "".
func (b *Behaviour) States() []string {
	t := b.layout()
	out := make([]string, len(t.places))
	for i, n := range t.places {
		out[i] = n.path
	}
	return out
}

func newLayout(L *lua.LState, name string, def *defs.State) *layout {
	b := &layout{name: name, def: def, byName: map[string][]*place{}, byPath: map[string]*place{}}
	b.root = b.place(def)
	for _, n := range b.places {
		if n.parent != nil {
			for _, t := range n.def.Transitions {
				tr := transition{Transition: t, target: -1, index: len(n.trans)}
				if t.Kind.HasTarget() {
					tr.target = n.parent.def.Child(t.Target)
				}
				n.trans = append(n.trans, tr)
			}
		}
	}
	b.defaults = mergeDefaults(L, b.root)
	b.plan = planContext(b.defaults)
	return b
}

// place builds the runtime nodes from the definition, one per place
// (defs.Walk's order is the node ids' order).
func (b *layout) place(def *defs.State) *place {
	placed := map[*defs.Node]*place{}
	defs.Walk(def, func(w *defs.Node) bool {
		n := &place{def: w.Def, name: w.Name, path: w.Path, id: len(b.places), mid: -1, initial: -1, index: w.Index, depth: w.Depth}
		placed[w] = n
		b.places = append(b.places, n)
		b.byPath[w.Path] = n
		b.maxDepth = max(b.maxDepth, w.Depth)
		if parent := placed[w.Parent]; parent != nil {
			n.parent = parent
			parent.children = append(parent.children, n)
			if parent.isFSM() {
				n.fsm = parent
			} else {
				n.fsm = parent.fsm
			}
			b.byName[w.Name] = append(b.byName[w.Name], n)
		}
		n.hasBody = w.Def.Update != nil || w.Def.Steps != nil || w.Def.Tree != nil
		if w.Def.Tree != nil {
			n.pathLV = lua.LString(w.Path)
			n.bt, n.btBase = w.Def.Tree, b.btCount
			b.btCount += len(w.Def.Tree.Nodes)
			n.btPaths = make([]string, len(w.Def.Tree.Nodes))
			for i, tn := range w.Def.Tree.Nodes {
				n.btPaths[i] = w.Path + "[" + tn.Path + "]"
			}
		}
		b.regions = b.regions || n.isRegions()
		if n.isMachine() {
			n.mid = len(b.machines)
			b.machines = append(b.machines, n)
			b.maxKids = max(b.maxKids, len(w.Def.Children))
			if w.Def.Initial != "" {
				n.initial = w.Def.Child(w.Def.Initial)
			}
		}
		return true
	})
	return b.places[0]
}

// mergeDefaults merges the context defaults of every machine: the root's,
// then level by level (outer wins), siblings in name order (first wins).
func mergeDefaults(L *lua.LState, root *place) *lua.LTable {
	out := L.NewTable()
	level := []*place{root}
	for len(level) > 0 {
		var next []*place
		for _, n := range level {
			if n.def.Context != nil {
				keys := sortedKeys(n.def.Context)
				for _, k := range keys {
					if out.RawGet(k) == lua.LNil {
						out.RawSet(k, n.def.Context.RawGet(k))
					}
				}
			}
			next = append(next, n.children...)
		}
		level = next
	}
	return out
}

// sortedKeys gives a table's keys in a stable order (strings, then numbers).
func sortedKeys(t *lua.LTable) []lua.LValue {
	var keys []lua.LValue
	t.ForEach(func(k, _ lua.LValue) { keys = append(keys, k) })
	sort.Slice(keys, func(i, j int) bool {
		ki, kj := keys[i], keys[j]
		if ki.Type() != kj.Type() {
			return ki.Type() > kj.Type() // strings before numbers
		}
		if a, ok := ki.(lua.LNumber); ok {
			return a < kj.(lua.LNumber)
		}
		return ki.String() < kj.String()
	})
	return keys
}

// ctxPlan is a layout's defaults laid out for copying: their keys in
// sortedKeys' order with their values, and the table's sizes. The merged
// defaults table is the layout's own (no script holds it), so its keys and
// values never change; nested tables are still copied as they are at the
// spawn, since a script may hold and change them.
type ctxPlan struct {
	keys, vals  []lua.LValue
	narr, nhash int
	deep        bool // some key is a table: copy the whole table with deepCopy
	strings     bool // every key is a string: fill with fillStrings
}

// planContext lays out defaults for newContext.
func planContext(defaults *lua.LTable) ctxPlan {
	var p ctxPlan
	p.narr, p.nhash = tableSizes(defaults)
	p.keys = sortedKeys(defaults)
	p.vals = make([]lua.LValue, len(p.keys))
	p.strings = tableMirrored && p.narr == 0
	for i, k := range p.keys {
		if _, ok := k.(lua.LString); !ok {
			p.strings = false
		}
		p.vals[i] = defaults.RawGet(k)
		if _, ok := k.(*lua.LTable); ok {
			p.deep = true
		}
	}
	return p
}

// newContext is a fresh context for an agent of t: its defaults, deep-copied
// (the same table, in the same key order, as deepCopy of the defaults).
func (t *layout) newContext(L *lua.LState) *lua.LTable {
	p := &t.plan
	if p.deep {
		return deepCopy(L, t.defaults, map[*lua.LTable]*lua.LTable{}).(*lua.LTable)
	}
	if !p.strings {
		return t.copyPlan(L)
	}
	vals := p.vals
	for i, v := range p.vals {
		if _, ok := v.(*lua.LTable); ok {
			// Nested tables are copied as they are now, into a list of
			// this context's own values.
			vals = slices.Clone(p.vals)
			seen := map[*lua.LTable]*lua.LTable{}
			for j := i; j < len(vals); j++ {
				vals[j] = deepCopy(L, vals[j], seen)
			}
			break
		}
	}
	return fillStrings(&t.tables, p.keys, vals)
}

// copyPlan is newContext through RawSet.
func (t *layout) copyPlan(L *lua.LState) *lua.LTable {
	p := &t.plan
	c := L.CreateTable(p.narr, p.nhash)
	var seen map[*lua.LTable]*lua.LTable
	for i, k := range p.keys {
		v := p.vals[i]
		if tv, ok := v.(*lua.LTable); ok {
			if seen == nil {
				seen = map[*lua.LTable]*lua.LTable{t.defaults: c}
			}
			v = deepCopy(L, tv, seen)
		}
		c.RawSet(k, v)
	}
	return c
}

// tableSizes is the array and hash part sizes a copy of t needs.
func tableSizes(t *lua.LTable) (narr, nhash int) {
	narr = t.Len()
	t.ForEach(func(k, _ lua.LValue) {
		if i, ok := k.(lua.LNumber); !ok || float64(i) < 1 || float64(i) > float64(narr) || float64(i) != float64(int(i)) {
			nhash++
		}
	})
	return narr, nhash
}

// deepCopy copies tables recursively (sharing nothing but non-table values);
// a table reached twice is copied once, so cycles survive.
func deepCopy(L *lua.LState, v lua.LValue, seen map[*lua.LTable]*lua.LTable) lua.LValue {
	t, ok := v.(*lua.LTable)
	if !ok {
		return v
	}
	if c, ok := seen[t]; ok {
		return c
	}
	// Right-sized: gopher-lua gives a table whose first string key is set
	// without a size a 32-slot hash, several cache lines per context.
	c := L.CreateTable(tableSizes(t))
	seen[t] = c
	// In a stable order: gopher-lua's ForEach walks a Go map, and the
	// order keys are set in is the order pairs() gives, so a context built
	// in ForEach order iterates differently in every process (a replay of
	// a script that iterates it would diverge).
	for _, k := range sortedKeys(t) {
		c.RawSet(deepCopy(L, k, seen), deepCopy(L, t.RawGet(k), seen))
	}
	if mt := L.GetMetatable(t); mt != lua.LNil {
		L.SetMetatable(c, mt)
	}
	return c
}
