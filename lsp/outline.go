package lsp

import (
	"sort"
	"strings"
)

// The outline is what the buffer's text says about its machines, read
// from its tokens without running it: the table constructors, which of
// them are machines and states, where each state's name is written, its
// transitions, the context defaults, the tree nodes. It is what the
// editor features work from, so they work on a buffer that does not load
// (while it is being typed). It never fails: text it cannot read gives a
// smaller outline.

// table is one table constructor.
type table struct {
	open, close int      // token indexes of { and } (close: the last token when unclosed)
	entries     []*entry // in the order written
	call        string   // "fsm" for the argument of ai.fsm{…} or ai.fsm({…}); "" otherwise
	callTok     int      // the token of that function's name, -1
	assigned    string   // NAME in NAME = {…} or local NAME = ai.fsm{…}; ""
}

// field returns the entry of t whose key is name, or nil.
func (t *table) field(name string) *entry {
	for _, e := range t.entries {
		if e.key == name {
			return e
		}
	}
	return nil
}

// entry is one entry of a table constructor.
type entry struct {
	key      string // a name or a string key; "" for a positional entry
	keyTok   int    // the token of the key (-1 positional)
	valStart int    // the value's tokens: [valStart, valEnd)
	valEnd   int
	table    *table // the value is a table constructor, or ai.X{…}
	str      int    // the value is a string: its token; -1 otherwise
}

// stateNode is a state where it is written.
type stateNode struct {
	name    string
	nameTok int // the token of its key in the parent's states (-1 for a root)
	path    string
	kind    string // fsm, utility, regions, tree or leaf
	parent  *stateNode
	table   *table
	kids    []*stateNode // in name order
	trans   []*transition
	treeTop *treeNode // a tree state's root node
}

// child returns the named child, or nil.
func (n *stateNode) child(name string) *stateNode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

// transition is one entry of a state's transitions.
type transition struct {
	kind      string // to, push, pop or internal
	target    string
	targetTok int // -1
	on        string
	after     string
	when      string // the source of its when, "" when absent
	tok       int    // the token that opens the entry
}

// treeNode is a behaviour tree node where it is written.
type treeNode struct {
	name    string // its name = "…", or kind#index as the engine names it
	defName string // kind#index (the root: kind), the engine's name without a name = "…"
	kind    string
	tok     int // the ai.kind token
	nameTok int // the token of its name string, -1
	kids    []*treeNode
}

// ctxField is a context default where it is written.
type ctxField struct {
	name  string
	tok   int
	typ   string // from the written value: number, string, boolean, table, function, nil, or "" when unknown
	value string // the written value's source, shortened
}

// outline is everything the features need from one buffer.
type outline struct {
	src     *source
	tables  []*table // in the order their { is written
	roots   []*stateNode
	states  []*stateNode // every state node, roots first, in walk order
	context []ctxField
	events  []string // every on = "…" of the buffer, sorted, once each
	// treeTables maps the table holding a tree node's name = "…" (a
	// composite's own, a leaf's or decorator's options) by its { token.
	treeTables map[int]*treeNode
}

// machineKinds are the ai functions that make a machine or a tree state.
var machineKinds = map[string]bool{"fsm": true, "utility": true, "regions": true, "tree": true}

// treeKinds are the ai functions that make a tree node.
var treeKinds = map[string]bool{
	"sequence": true, "reactive_sequence": true, "selector": true, "reactive_selector": true, "parallel": true,
	"invert": true, "loop": true, "cooldown": true, "timeout": true, "force": true,
	"action": true, "check": true, "wait": true,
}

// maxOutlineDepth bounds the nesting the outline follows (a machine
// placed in itself through a name, or absurd nesting).
const maxOutlineDepth = 64

// maxParseDepth bounds the nesting of table constructors read (deeper ones
// are skipped), so that a file of a million { cannot exhaust the stack.
const maxParseDepth = 200

func newOutline(src *source) *outline {
	o := &outline{src: src}
	p := &tableParser{toks: src.toks, src: src}
	for i := 0; i < len(src.toks); i++ {
		if src.toks[i].is("{") {
			i = p.parse(i).close
		}
	}
	o.tables = p.tables
	sort.Slice(o.tables, func(a, b int) bool { return o.tables[a].open < o.tables[b].open })
	o.build()
	return o
}

// tableParser reads table constructors.
type tableParser struct {
	toks   []token
	src    *source
	tables []*table
	depth  int
}

// parse reads the table constructor whose { is toks[open].
func (p *tableParser) parse(open int) *table {
	t := &table{open: open, callTok: -1}
	p.tables = append(p.tables, t)
	p.classify(t)
	p.depth++
	defer func() { p.depth-- }()
	toks := p.toks
	i := open + 1
	for i < len(toks) && !toks[i].is("}") {
		if toks[i].is(",") || toks[i].is(";") {
			i++
			continue
		}
		e := &entry{keyTok: -1, str: -1}
		switch {
		case toks[i].kind == tokName && i+1 < len(toks) && toks[i+1].is("="):
			e.key, e.keyTok = toks[i].text, i
			i += 2
		case toks[i].is("[") && i+3 < len(toks) && toks[i+1].kind == tokString && toks[i+2].is("]") && toks[i+3].is("="):
			e.key, e.keyTok = toks[i+1].text, i+1
			i += 4
		}
		e.valStart = i
		i = p.value(e, i)
		e.valEnd = i
		t.entries = append(t.entries, e)
	}
	t.close = min(i, len(toks)-1)
	return t
}

// value reads an entry's value from i up to the , ; or } that ends it,
// reading the table constructors in it, and returns the index of that
// token.
func (p *tableParser) value(e *entry, i int) int {
	toks := p.toks
	if i < len(toks) && toks[i].kind == tokString && i+1 < len(toks) && (toks[i+1].is(",") || toks[i+1].is(";") || toks[i+1].is("}")) {
		e.str = i
		return i + 1
	}
	brackets, blocks := 0, 0
	for ; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tokString || t.kind == tokNumber:
		case t.is("{"):
			if p.depth >= maxParseDepth {
				brackets++ // too deep to read: skipped as a bracket
				continue
			}
			sub := p.parse(i)
			if e.table == nil && (i == e.valStart || sub.call != "" && sub.callTok == e.valStart+2) {
				e.table = sub
			}
			i = sub.close
		case t.is("}") && brackets > 0:
			brackets--
		case t.is("(") || t.is("["):
			brackets++
		case t.is(")") || t.is("]"):
			if brackets > 0 {
				brackets--
			}
		case t.is("function") || t.is("if") || t.is("do") || t.is("repeat"):
			blocks++
		case t.is("end") || t.is("until"):
			if blocks > 0 {
				blocks--
			}
		case brackets == 0 && blocks == 0 && (t.is(",") || t.is(";") || t.is("}")):
			return i
		}
	}
	return i
}

// classify finds what makes the table at its { : ai.X{…}, ai.X({…}),
// and a NAME = before it.
func (p *tableParser) classify(t *table) {
	toks := p.toks
	j := t.open - 1
	if j >= 0 && toks[j].is("(") {
		j--
	}
	if j >= 2 && toks[j].kind == tokName && (toks[j-1].is(".") || toks[j-1].is(":")) && toks[j-2].kind == tokName {
		t.call, t.callTok = toks[j].text, j
		j -= 3
	} else {
		j = t.open - 1
	}
	if j >= 1 && toks[j].is("=") && toks[j-1].kind == tokName {
		t.assigned = toks[j-1].text
	}
}

// build finds the machines, their states, the context defaults and the
// events.
func (o *outline) build() {
	toks := o.src.toks
	byName := map[string]*table{}
	used := map[*table]bool{}
	for _, t := range o.tables {
		if t.assigned != "" && machineKinds[t.call] {
			byName[t.assigned] = t
		}
	}
	// A machine's child written as a name (states = { patrol = patrol })
	// is the machine assigned to that name, when there is one.
	resolve := func(e *entry) *table {
		if e.table != nil {
			return e.table
		}
		if e.valEnd-e.valStart == 1 && toks[e.valStart].kind == tokName {
			return byName[toks[e.valStart].text]
		}
		return nil
	}
	for _, t := range o.tables {
		if st := t.field("states"); st != nil && st.table != nil {
			for _, e := range st.table.entries {
				if c := resolve(e); c != nil && e.key != "" {
					used[c] = true
				}
			}
		}
	}
	for _, t := range o.tables {
		if used[t] || !isMachineTable(t) {
			continue
		}
		root := &stateNode{nameTok: -1, table: t, kind: kindOf(t)}
		o.roots = append(o.roots, root)
		o.walk(root, resolve, 0)
	}
	// Context defaults: every context = {…} of a machine.
	seen := map[string]bool{}
	for _, n := range o.states {
		if n.table == nil {
			continue
		}
		c := n.table.field("context")
		if c == nil || c.table == nil {
			continue
		}
		for _, e := range c.table.entries {
			if e.key == "" || seen[e.key] {
				continue
			}
			seen[e.key] = true
			o.context = append(o.context, ctxField{name: e.key, tok: e.keyTok, typ: o.typeOf(e), value: o.valueSource(e)})
		}
	}
	o.events = eventsIn(o.tables, toks)
}

// eventsIn is every event the text names: each on = "…" string of the
// tables, and each event it sends (ai.send, ai.send_to, agent:send);
// sorted, once each.
func eventsIn(tables []*table, toks []token) []string {
	set := map[string]bool{}
	for _, t := range tables {
		for _, e := range t.entries {
			if e.key == "on" && e.str >= 0 {
				set[toks[e.str].text] = true
			}
		}
	}
	for i, t := range toks {
		if t.kind == tokString && !t.open && i >= 2 && (toks[i-1].is("(") || toks[i-1].is(",")) && stringRole(toks, i) == roleEvent {
			set[t.text] = true
		}
	}
	delete(set, "")
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// isMachineTable: a table that has states = {…}, or that is the
// argument of ai.fsm, ai.utility, ai.regions or ai.tree.
func isMachineTable(t *table) bool {
	if machineKinds[t.call] {
		return true
	}
	st := t.field("states")
	return st != nil && st.table != nil
}

func kindOf(t *table) string {
	if t == nil {
		return "leaf"
	}
	if machineKinds[t.call] {
		return t.call
	}
	if st := t.field("states"); st != nil && st.table != nil {
		return "fsm"
	}
	return "leaf"
}

// walk reads n's children, transitions and tree from its table.
func (o *outline) walk(n *stateNode, resolve func(*entry) *table, depth int) {
	o.states = append(o.states, n)
	if n.table == nil || depth > maxOutlineDepth {
		return
	}
	o.transitions(n)
	if n.kind == "tree" {
		if r := n.table.field("root"); r != nil {
			n.treeTop = o.treeNodeAt(r.valStart, 0, 0)
		}
	}
	st := n.table.field("states")
	if st == nil || st.table == nil {
		return
	}
	for _, e := range st.table.entries {
		if e.key == "" {
			continue
		}
		c := &stateNode{name: e.key, nameTok: e.keyTok, parent: n, table: resolve(e)}
		c.kind = kindOf(c.table)
		c.path = e.key
		if n.path != "" {
			c.path = n.path + "." + e.key
		}
		n.kids = append(n.kids, c)
	}
	sort.SliceStable(n.kids, func(a, b int) bool { return n.kids[a].name < n.kids[b].name })
	for _, c := range n.kids {
		o.walk(c, resolve, depth+1)
	}
}

// transitions reads n's transitions = { {…}, … }.
func (o *outline) transitions(n *stateNode) {
	tr := n.table.field("transitions")
	if tr == nil || tr.table == nil {
		return
	}
	toks := o.src.toks
	for _, e := range tr.table.entries {
		if e.table == nil {
			continue
		}
		t := &transition{kind: "internal", targetTok: -1, tok: e.table.open}
		for _, f := range e.table.entries {
			switch f.key {
			case "to", "push":
				t.kind = f.key
				if f.str >= 0 {
					t.target, t.targetTok = toks[f.str].text, f.str
				}
			case "pop":
				t.kind = "pop"
			case "on":
				if f.str >= 0 {
					t.on = toks[f.str].text
				}
			case "after":
				t.after = o.valueSource(f)
			case "when":
				t.when = o.valueSource(f)
			}
		}
		n.trans = append(n.trans, t)
	}
}

// treeNodeAt reads the tree node written from token i: ai.kind{…} (a
// composite, its children its positional entries) or ai.kind(…) (a leaf
// or decorator: its name in an options table among the arguments, a
// decorator's child its first argument); index is its 1-based place among
// its siblings (0 for the root). nil when no tree node is written there.
func (o *outline) treeNodeAt(i, index, depth int) *treeNode {
	toks := o.src.toks
	if i+3 >= len(toks) || toks[i].kind != tokName || !(toks[i+1].is(".") || toks[i+1].is(":")) || !treeKinds[toks[i+2].text] {
		return nil
	}
	n := &treeNode{kind: toks[i+2].text, tok: i + 2, nameTok: -1}
	name := func(t *table) {
		if o.treeTables == nil {
			o.treeTables = map[int]*treeNode{}
		}
		o.treeTables[t.open] = n
		if e := t.field("name"); e != nil && e.str >= 0 && n.nameTok < 0 {
			n.name, n.nameTok = toks[e.str].text, e.str
		}
	}
	switch open := i + 3; {
	case toks[open].is("{"):
		t := o.tableAtOpen(open)
		if t == nil {
			return nil
		}
		name(t)
		k := 0
		for _, e := range t.entries {
			if e.key != "" || depth > maxOutlineDepth {
				continue
			}
			if c := o.treeNodeAt(e.valStart, k+1, depth+1); c != nil {
				k++
				n.kids = append(n.kids, c)
			}
		}
	case toks[open].is("("):
		depth0 := 0
		for j := open + 1; j < len(toks); j++ {
			t := toks[j]
			switch {
			case t.is("(") || t.is("[") || t.is("{"):
				// An argument that is a table is the options: { name = "…" }.
				if t.is("{") && depth0 == 0 && (toks[j-1].is("(") || toks[j-1].is(",")) {
					if tb := o.tableAtOpen(j); tb != nil {
						name(tb)
					}
				}
				depth0++
			case t.is(")") || t.is("]") || t.is("}"):
				depth0--
			}
			if depth0 < 0 {
				break
			}
		}
		if depth <= maxOutlineDepth && isDecorator(n.kind) {
			if c := o.treeNodeAt(open+1, 1, depth+1); c != nil {
				n.kids = append(n.kids, c)
			}
		}
	default:
		return nil
	}
	n.defName = n.kind
	if index > 0 {
		n.defName += "#" + itoa(index)
	}
	if n.name == "" {
		n.name = n.defName
	}
	return n
}

func isDecorator(kind string) bool {
	switch kind {
	case "invert", "loop", "cooldown", "timeout", "force":
		return true
	}
	return false
}

// tableAtOpen is the table whose { is token i, or nil.
func (o *outline) tableAtOpen(i int) *table {
	k := sort.Search(len(o.tables), func(k int) bool { return o.tables[k].open >= i })
	if k < len(o.tables) && o.tables[k].open == i {
		return o.tables[k]
	}
	return nil
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// typeOf is the Lua type of a written value, where its first token tells.
func (o *outline) typeOf(e *entry) string {
	if e.valStart >= e.valEnd {
		return ""
	}
	t := o.src.toks[e.valStart]
	switch {
	case t.kind == tokString:
		return "string"
	case t.kind == tokNumber, t.is("-") && e.valEnd-e.valStart == 2:
		return "number"
	case t.is("true"), t.is("false"):
		return "boolean"
	case t.is("{"):
		return "table"
	case t.is("function"):
		return "function"
	case t.is("nil"):
		return "nil"
	}
	return ""
}

// valueSource is an entry value's text on one line, shortened.
func (o *outline) valueSource(e *entry) string {
	if e.valStart >= e.valEnd || e.valEnd > len(o.src.toks) {
		return ""
	}
	s := o.src.text[o.src.toks[e.valStart].start:o.src.toks[e.valEnd-1].end]
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// stateAt is the innermost state whose table holds token i, or nil.
func (o *outline) stateAt(i int) *stateNode {
	var best *stateNode
	for _, n := range o.states {
		if n.table != nil && n.table.open <= i && i <= n.table.close && (best == nil || n.table.open > best.table.open) {
			best = n
		}
	}
	return best
}

// tableAt is the innermost table holding token i, or nil.
func (o *outline) tableAt(i int) *table {
	var best *table
	for _, t := range o.tables {
		if t.open > i {
			break
		}
		if i <= t.close && (best == nil || t.open > best.open) {
			best = t
		}
	}
	return best
}

// findState finds a state by path, or by name when the path is a bare
// name (the first found in walk order).
func (o *outline) findState(nameOrPath string) *stateNode {
	for _, n := range o.states {
		if n.path == nameOrPath && n.nameTok >= 0 {
			return n
		}
	}
	for _, n := range o.states {
		if n.name == nameOrPath && n.nameTok >= 0 {
			return n
		}
	}
	return nil
}
