package inspect

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/luaai/luaai/luabind/defs"
)

// Graph formats accepted by WriteGraph.
const (
	GraphDOT     = "dot"
	GraphMermaid = "mermaid"
)

// WriteGraph draws a behaviour's whole hierarchy, for `luaai graph`: as
// Graphviz DOT (format "dot") or a Mermaid state diagram ("mermaid"). name
// titles the diagram (the script's path). The output depends only on the
// definition: children in name order, transitions in their order.
//
// Both formats show:
//
//   - every machine as a group (a DOT cluster "cluster_<path>", a Mermaid
//     composite state) titled with its name and kind, and its history,
//     decide_every, select and momentum when set;
//   - the initial state of each machine, marked by an edge from a point (DOT)
//     or from [*] (Mermaid);
//   - each transition as an edge between siblings, labelled with its kind
//     (push, pop; to is unlabelled), `on <event>`, `after <s>s` and
//     `when <condition>` (a native condition as ai.* without the prefix, a Lua
//     function as fn@file:line). In DOT, to is solid, push dashed and pop
//     dotted;
//   - a pop as an edge to a "(previous)" pseudo-state of the machine: the
//     state below on the stack, which depends on how the state got there and
//     cannot be known from the definition;
//   - each child of a utility machine with its score (a native scorer, a
//     number, or fn@file:line), and a state's lock when it has one;
//   - a state marked final = true with a double border (DOT) or an edge to
//     [*] (Mermaid).
//
// Edges to and from a nested machine end at its border (DOT compound edges).
func WriteGraph(w io.Writer, root *defs.State, name, format string) error {
	return WriteGraphWith(w, root, name, GraphOptions{Format: format})
}

// GraphOptions are WriteGraphWith's choices. The zero value draws DOT.
type GraphOptions struct {
	// Format is GraphDOT or GraphMermaid. The default ("") is DOT.
	Format string
	// Never marks the parts a coverage report says never ran — keys
	// {kind, name} as hosttool.CoverageItem names them ("state", "patrol.walk";
	// "transition", "patrol.walk: to chase on noise"; "tree node",
	// "attack[sequence.swing]") — drawn grey and dashed (DOT), or with a
	// dashed class and "(never)" on edges (Mermaid). The default (nil)
	// marks nothing.
	Never map[[2]string]bool
}

// WriteGraphWith is WriteGraph with options: the same drawing, with the parts never reached
// marked.
func WriteGraphWith(w io.Writer, root *defs.State, name string, opts GraphOptions) error {
	format := opts.Format
	if root == nil {
		return fmt.Errorf("graph: no definition")
	}
	g := newGraph(root)
	g.never = opts.Never
	var b strings.Builder
	switch format {
	case GraphDOT, "":
		g.dot(&b, name)
	case GraphMermaid:
		g.mermaid(&b, name)
	default:
		return fmt.Errorf("graph: unknown format %q (want dot or mermaid)", format)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// gnode is a state placed in the tree, with its path.
type gnode struct {
	name, path string
	def        *defs.State
	parent     *gnode
	children   []*gnode
	id         string // Mermaid id
}

type graph struct {
	root  *gnode
	nodes []*gnode // pre-order
	ids   map[string]bool
	never map[[2]string]bool // parts never reached: drawn grey and dashed
	// neverIDs are the Mermaid ids of tree nodes never reached.
	neverIDs []string
}

// neverState, neverTransition and neverNode tell whether a coverage report
// said the part never ran.
func (g *graph) neverState(n *gnode) bool { return g.never[[2]string{"state", n.path}] }

func (g *graph) neverTransition(n *gnode, tr defs.Transition) bool {
	return g.never[[2]string{"transition", n.path + ": " + tr.Name()}]
}

func (g *graph) neverNode(n *gnode, path string) bool {
	return g.never[[2]string{"tree node", n.path + "[" + path + "]"}]
}

// dotNever is how DOT draws a part that never ran.
const dotNever = "color=gray60, fontcolor=gray60"

// maxGraphDepth stops a definition that contains itself (which the loader
// cannot build, but a hand-made defs.State could) from recursing forever.
const maxGraphDepth = 64

func newGraph(root *defs.State) *graph {
	g := &graph{ids: map[string]bool{}}
	placed := map[*defs.Node]*gnode{}
	defs.Walk(root, func(w *defs.Node) bool {
		n := &gnode{name: w.Name, path: w.Path, def: w.Def, parent: placed[w.Parent]}
		placed[w] = n
		g.nodes = append(g.nodes, n)
		if n.parent != nil {
			n.parent.children = append(n.parent.children, n)
		}
		return w.Depth < maxGraphDepth
	})
	g.root = g.nodes[0]
	g.assignIDs()
	return g
}

// mermaidKeywords cannot be Mermaid state ids (the lexer is case-insensitive).
var mermaidKeywords = map[string]bool{
	"state": true, "note": true, "end": true, "direction": true, "scale": true, "hide": true,
	"as": true, "class": true, "classdef": true, "style": true, "click": true, "default": true,
	"statediagram": true, "statediagram-v2": true, "left": true, "right": true, "of": true,
	"accdescr": true, "acctitle": true, "root": true,
}

// assignIDs gives every state a Mermaid id: its name where that is unique in
// the whole tree (Mermaid ids are global), else s_<path with _>; clashes get
// a numeric suffix. Assigned in pre-order, so the result is deterministic.
func (g *graph) assignIDs() {
	count := map[string]int{}
	for _, n := range g.nodes[1:] {
		count[n.name]++
	}
	for _, n := range g.nodes[1:] {
		id := n.name
		if count[id] > 1 || mermaidKeywords[strings.ToLower(id)] {
			id = "s_" + strings.ReplaceAll(n.path, ".", "_")
		}
		n.id = g.unique(id)
	}
}

func (g *graph) unique(id string) string {
	out := id
	for i := 2; g.ids[out]; i++ {
		out = id + "_" + strconv.Itoa(i)
	}
	g.ids[out] = true
	return out
}

// machineTitle is "patrol (fsm)", "needs (utility, random_top 3, momentum 0.1)".
func machineTitle(name string, s *defs.State) string {
	parts := []string{s.Kind.String()}
	if s.History {
		parts = append(parts, "history")
	}
	if s.DecideEvery > 0 {
		parts = append(parts, "decide_every "+seconds(s.DecideEvery))
	}
	if s.Kind == defs.KindUtility {
		if s.RandomTop > 0 {
			parts = append(parts, "random_top "+strconv.Itoa(s.RandomTop))
		}
		if s.Momentum != 0 {
			parts = append(parts, "momentum "+number(s.Momentum))
		}
	}
	return name + " (" + strings.Join(parts, ", ") + ")"
}

// stateNotes are the extra lines shown with a state: its score in a utility
// machine, its lock.
func stateNotes(n *gnode) []string {
	var out []string
	if n.parent != nil && n.parent.def.Kind == defs.KindUtility && n.def.Score != nil {
		out = append(out, "score "+defs.Describe(n.def.Score))
	}
	if n.def.Lock != nil {
		out = append(out, "lock "+defs.Describe(n.def.Lock))
	}
	if l := defs.StepsLabel(n.def); l != "" {
		out = append(out, l)
	}
	return out
}

// isGroup: a state drawn as a group (a cluster, a composite state): a
// machine, or a tree state (its nodes inside).
func isGroup(s *defs.State) bool { return s.IsMachine() || s.Kind == defs.KindTree }

// transitionLabel lists what a transition waits for: its kind (push, pop,
// internal), its event, timer and condition, and "run" when it has an
// action. An internal transition is drawn as a loop on its state.
func transitionLabel(tr defs.Transition) []string {
	var out []string
	if tr.Kind != defs.To {
		out = append(out, tr.Kind.String())
	}
	if tr.On != "" {
		out = append(out, "on "+tr.On)
	}
	if tr.After > 0 {
		out = append(out, "after "+seconds(tr.After))
	}
	if tr.When != nil {
		if c, ok := tr.When.(defs.ConstCond); !ok || !bool(c) {
			out = append(out, "when "+defs.Describe(tr.When))
		}
	}
	if tr.Run != nil {
		out = append(out, "run")
	}
	return out
}

func seconds(v float64) string { return number(v) + "s" }

func number(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// hasPop reports whether any child of machine n pops.
func hasPop(n *gnode) bool {
	for _, c := range n.children {
		for _, tr := range c.def.Transitions {
			if tr.Kind == defs.Pop {
				return true
			}
		}
	}
	return false
}

// child finds a child by name.
func (n *gnode) child(name string) *gnode {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// ---- DOT ----

// dotID quotes a DOT id or label; lines are joined with DOT's \n.
func dotID(lines ...string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, l := range lines {
		if i > 0 {
			b.WriteString(`\n`)
		}
		for _, r := range l {
			switch r {
			case '\\', '"':
				b.WriteByte('\\')
				b.WriteRune(r)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// DOT node ids: a state is its path; a machine's pseudo-nodes are
// "<path>/start" (its initial marker, also where edges to the machine end)
// and "<path>/previous" (where its pops go). defs.State names are identifiers,
// so these never clash.
func dotStart(n *gnode) string    { return dotID(n.path + "/start") }
func dotPrevious(n *gnode) string { return dotID(n.path + "/previous") }
func dotCluster(n *gnode) string  { return dotID("cluster_" + n.path) }

// dotEnd is the node an edge to or from state n attaches to, and the
// attribute that clips it at the border of n's cluster.
func dotEnd(n *gnode, attr string) (string, string) {
	if isGroup(n.def) {
		return dotStart(n), attr + "=" + dotCluster(n)
	}
	return dotID(n.path), ""
}

func (g *graph) dot(b *strings.Builder, name string) {
	b.WriteString("// luaai graph: to solid, push dashed, pop dotted (to the state below on the stack).\n")
	fmt.Fprintf(b, "digraph %s {\n", dotID("luaai"))
	fmt.Fprintf(b, "  graph [compound=true, rankdir=LR, labelloc=t, label=%s];\n",
		dotID(machineTitle(name, g.root.def)))
	b.WriteString("  node [shape=box, style=rounded, fontsize=11];\n")
	b.WriteString("  edge [fontsize=9];\n")
	g.dotMachine(b, g.root, "  ")
	b.WriteString("}\n")
}

// dotMachine writes the inside of machine n: its pseudo-nodes, its children
// (nested machines as clusters) and the edges between them.
func (g *graph) dotMachine(b *strings.Builder, n *gnode, indent string) {
	start := "shape=point, width=0.12"
	if n.def.Initial == "" {
		start = "shape=point, width=0.12, style=invis" // only an anchor for edges
	}
	fmt.Fprintf(b, "%s%s [%s];\n", indent, dotStart(n), start)
	if init := n.child(n.def.Initial); init != nil {
		to, lhead := dotEnd(init, "lhead")
		fmt.Fprintf(b, "%s%s -> %s%s;\n", indent, dotStart(n), to, dotAttrs(lhead))
	}
	if hasPop(n) {
		fmt.Fprintf(b, "%s%s [label=\"(previous)\", shape=ellipse, style=dashed, fontsize=9];\n", indent, dotPrevious(n))
	}
	for _, c := range n.children {
		label := append([]string{c.name}, stateNotes(c)...)
		if !isGroup(c.def) {
			attrs := "label=" + dotID(label...)
			if c.def.Final {
				attrs += ", peripheries=2" // an end on purpose
			}
			if g.neverState(c) {
				attrs += ", style=\"rounded,dashed\", " + dotNever
			}
			fmt.Fprintf(b, "%s%s [%s];\n", indent, dotID(c.path), attrs)
			continue
		}
		fmt.Fprintf(b, "%ssubgraph %s {\n", indent, dotCluster(c))
		title := append([]string{machineTitle(c.name, c.def)}, label[1:]...)
		fmt.Fprintf(b, "%s  label=%s;\n", indent, dotID(title...))
		if n.def.Kind == defs.KindRegions || g.neverState(c) {
			fmt.Fprintf(b, "%s  style=\"rounded,dashed\";\n", indent) // a region: active beside its siblings
			if g.neverState(c) {
				fmt.Fprintf(b, "%s  color=gray60; fontcolor=gray60;\n", indent)
			}
		} else {
			fmt.Fprintf(b, "%s  style=rounded;\n", indent)
		}
		if c.def.Kind == defs.KindTree {
			g.dotTree(b, c, indent+"  ")
		} else {
			g.dotMachine(b, c, indent+"  ")
		}
		fmt.Fprintf(b, "%s}\n", indent)
	}
	for _, c := range n.children {
		for _, tr := range c.def.Transitions {
			from, ltail := dotEnd(c, "ltail")
			var to, lhead string
			if tr.Kind == defs.Pop {
				to = dotPrevious(n)
			} else if tr.Kind == defs.Internal {
				to, lhead = dotEnd(c, "lhead")
				if c.def.IsMachine() {
					ltail, lhead = "", ""
				}
			} else if t := n.child(tr.Target); t != nil {
				to, lhead = dotEnd(t, "lhead")
			} else {
				continue // an unknown target: the loader refuses such a script
			}
			if t := n.child(tr.Target); t == c && c.def.IsMachine() {
				ltail, lhead = "", "" // a machine's edge to itself: a loop on its marker
			}
			attrs := []string{ltail, lhead}
			switch tr.Kind {
			case defs.Push:
				attrs = append(attrs, "style=dashed")
			case defs.Pop:
				attrs = append(attrs, "style=dotted")
			}
			if l := transitionLabel(tr); len(l) > 0 {
				attrs = append(attrs, "label="+dotID(l...))
			}
			if g.neverTransition(c, tr) {
				attrs = append(attrs, "style=dashed", dotNever)
			}
			fmt.Fprintf(b, "%s%s -> %s%s;\n", indent, from, to, dotAttrs(attrs...))
		}
	}
}

// dotTree writes a tree state's nodes, each with an edge from its parent
// labelled with its place among the children.
func (g *graph) dotTree(b *strings.Builder, n *gnode, indent string) {
	fmt.Fprintf(b, "%s%s [shape=point, width=0.12, style=invis];\n", indent, dotStart(n))
	nodes := n.def.Tree.Nodes
	id := func(i int) string { return dotID(n.path + "[" + nodes[i].Path + "]") }
	for i, tn := range nodes {
		shape := "box"
		if tn.Def.Kind.IsComposite() || tn.Def.Kind.IsDecorator() {
			shape = "box, style=\"rounded,filled\", fillcolor=\"#eeeeee\""
		}
		if g.neverNode(n, tn.Path) {
			shape = "box, style=\"rounded,dashed\", " + dotNever
		}
		fmt.Fprintf(b, "%s%s [label=%s, shape=%s];\n", indent, id(i), dotID(tn.Def.Label()), shape)
	}
	fmt.Fprintf(b, "%s%s -> %s [style=invis];\n", indent, dotStart(n), id(0))
	for i, tn := range nodes {
		for k, c := range tn.Kids {
			fmt.Fprintf(b, "%s%s -> %s [label=%s];\n", indent, id(i), id(c), dotID(strconv.Itoa(k+1)))
		}
	}
	// The children of a node top to bottom in their order: Graphviz
	// would stack them bottom-up (rankdir=LR turns its left-to-right);
	// an invisible chain from the last child to the first, on one rank,
	// turns them over.
	for _, tn := range nodes {
		if len(tn.Kids) < 2 {
			continue
		}
		chain := make([]string, len(tn.Kids))
		for k, c := range tn.Kids {
			chain[len(tn.Kids)-1-k] = id(c)
		}
		fmt.Fprintf(b, "%s{ rank=same; %s [style=invis]; }\n", indent, strings.Join(chain, " -> "))
	}
}

func dotAttrs(attrs ...string) string {
	var kept []string
	for _, a := range attrs {
		if a != "" {
			kept = append(kept, a)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return " [" + strings.Join(kept, ", ") + "]"
}

// ---- Mermaid ----

// mermaidText makes text safe after a Mermaid ':' (a description or an
// edge label), which ends at ':', ';' or a newline: those become entity
// codes, which Mermaid shows as the characters.
func mermaidText(s string) string {
	r := strings.NewReplacer(":", "#58;", ";", "#59;", "\n", " ", "\r", "", "#", "#35;")
	return r.Replace(s)
}

// mermaidID makes a Mermaid id of a node path: letters, digits and _ are
// kept, anything else (a name may hold spaces, quotes, arrows) becomes _.
func mermaidID(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

func (g *graph) mermaid(b *strings.Builder, name string) {
	title := machineTitle(name, g.root.def)
	fmt.Fprintf(b, "---\ntitle: %s\n---\n", strconv.Quote(title))
	b.WriteString("stateDiagram-v2\n")
	b.WriteString("  direction LR\n")
	g.mermaidMachine(b, g.root, "  ")
	if len(g.never) > 0 {
		b.WriteString("  classDef never stroke-dasharray: 4 4, color: #999999, stroke: #999999\n")
		for _, n := range g.nodes[1:] {
			if g.neverState(n) {
				fmt.Fprintf(b, "  class %s never\n", n.id)
			}
		}
		for _, id := range g.neverIDs {
			fmt.Fprintf(b, "  class %s never\n", id)
		}
	}
}

func (g *graph) mermaidMachine(b *strings.Builder, n *gnode, indent string) {
	if init := n.child(n.def.Initial); init != nil {
		fmt.Fprintf(b, "%s[*] --> %s\n", indent, init.id)
	}
	for i, c := range n.children {
		if i > 0 && n.def.Kind == defs.KindRegions {
			fmt.Fprintf(b, "%s--\n", indent) // Mermaid's concurrent regions
		}
		if c.def.Kind == defs.KindTree {
			fmt.Fprintf(b, "%sstate %s {\n", indent, c.id)
			fmt.Fprintf(b, "%s  %%%% %s\n", indent, machineTitle(c.path, c.def))
			g.mermaidTree(b, c, indent+"  ")
			fmt.Fprintf(b, "%s}\n", indent)
		} else if c.def.IsMachine() {
			fmt.Fprintf(b, "%sstate %s {\n", indent, c.id)
			fmt.Fprintf(b, "%s  %%%% %s\n", indent, machineTitle(c.path, c.def))
			g.mermaidMachine(b, c, indent+"  ")
			fmt.Fprintf(b, "%s}\n", indent)
		} else if c.id == c.name {
			fmt.Fprintf(b, "%s%s\n", indent, c.id)
		} else {
			fmt.Fprintf(b, "%sstate %s as %s\n", indent, strconv.Quote(c.name), c.id)
		}
		if c.def.Final && !isGroup(c.def) {
			fmt.Fprintf(b, "%s%s --> [*]\n", indent, c.id) // an end on purpose
		}
		for _, note := range stateNotes(c) {
			fmt.Fprintf(b, "%s%s : %s\n", indent, c.id, mermaidText(note))
		}
	}
	prev := ""
	if hasPop(n) {
		prev = g.previousID(n)
		fmt.Fprintf(b, "%sstate \"(previous)\" as %s\n", indent, prev)
	}
	for _, c := range n.children {
		for _, tr := range c.def.Transitions {
			to := prev
			if tr.Kind == defs.Internal {
				to = c.id
			} else if tr.Kind != defs.Pop {
				t := n.child(tr.Target)
				if t == nil {
					continue
				}
				to = t.id
			}
			line := fmt.Sprintf("%s%s --> %s", indent, c.id, to)
			l := transitionLabel(tr)
			if g.neverTransition(c, tr) {
				l = append(l, "(never)")
			}
			if len(l) > 0 {
				line += " : " + mermaidText(strings.Join(l, ", "))
			}
			b.WriteString(line + "\n")
		}
	}
}

// mermaidTree writes a tree state's nodes as states, each with an edge
// from its parent labelled with its place among the children.
func (g *graph) mermaidTree(b *strings.Builder, n *gnode, indent string) {
	nodes := n.def.Tree.Nodes
	ids := make([]string, len(nodes))
	for i, tn := range nodes {
		ids[i] = g.unique(n.id + "_" + mermaidID(tn.Path))
		if g.neverNode(n, tn.Path) {
			g.neverIDs = append(g.neverIDs, ids[i])
		}
		fmt.Fprintf(b, "%sstate %s as %s\n", indent, strconv.Quote(tn.Def.Label()), ids[i])
	}
	fmt.Fprintf(b, "%s[*] --> %s\n", indent, ids[0])
	for i, tn := range nodes {
		for k, c := range tn.Kids {
			fmt.Fprintf(b, "%s%s --> %s : %d\n", indent, ids[i], ids[c], k+1)
		}
	}
}

// previousID is the Mermaid id of machine n's "(previous)" pseudo-state,
// allocated once per machine.
func (g *graph) previousID(n *gnode) string {
	base := "previous"
	if n.path != "" {
		base = strings.ReplaceAll(n.path, ".", "_") + "_previous"
	}
	return g.unique(base)
}
