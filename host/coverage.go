package host

// Coverage (Options.Coverage): which parts of a behaviour ran — states
// entered, transitions fired, tree nodes ticked, step items reached,
// utility children chosen — for luaai test --coverage. Each worker counts
// into its own table; hosttool.Coverage lists every part of every behaviour
// its agents ran, with the counts.

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/luaai/luaai/host/internal/link"
	"github.com/luaai/luaai/luabind/defs"
)

type covKey struct {
	root *defs.State // the layout's definition
	kind link.CoverKind
	id   int // the place
	sub  int // a transition's index, a tree node's, a step's; -1
}

// coverage is a worker's counts, and the layouts they are about.
type coverage struct {
	hits    map[covKey]int
	layouts map[*defs.State]*layout
}

// cover counts a part of a's behaviour.
func (a *Agent) cover(kind link.CoverKind, id, sub int) {
	c := a.w.cov
	if c == nil {
		return
	}
	root := a.t.def
	if _, ok := c.layouts[root]; !ok {
		c.layouts[root] = a.t
	}
	c.hits[covKey{root, kind, id, sub}]++
}

// coverage is hosttool.Coverage: every behaviour the agents ran, each
// part with its hits. Layouts of the same file (one per worker) merge.
func (h *Host) coverage() []link.BehaviourCoverage {
	type partKey struct {
		kind link.CoverKind
		name string
	}
	byFile := map[string]map[partKey]*link.CoverageItem{}
	var order []string
	for _, w := range h.workers {
		if w.cov == nil {
			continue
		}
		for root, l := range w.cov.layouts {
			file := root.Pos.File
			items := byFile[file]
			if items == nil {
				items = map[partKey]*link.CoverageItem{}
				byFile[file] = items
				order = append(order, file)
			}
			if l.covItems == nil {
				l.covItems = coverageItems(l)
			}
			for _, it := range l.covItems {
				k := partKey{it.item.Kind, it.item.Name}
				got := items[k]
				if got == nil {
					c := it.item
					got = &c
					items[k] = got
				}
				got.Hits += w.cov.hits[covKey{root, it.item.Kind, it.id, it.sub}]
			}
		}
	}
	slices.Sort(order)
	var out []link.BehaviourCoverage
	for _, file := range order {
		bc := link.BehaviourCoverage{File: file}
		for _, it := range byFile[file] {
			bc.Items = append(bc.Items, *it)
		}
		slices.SortFunc(bc.Items, func(a, b link.CoverageItem) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Kind.String(), b.Kind.String()), cmp.Compare(a.Name, b.Name))
		})
		out = append(out, bc)
	}
	return out
}

// coverageHits is hosttool.CoverageHits: fn gets each part that ran, once
// per worker that ran it.
func (h *Host) coverageHits(fn func(link.CoverageItem)) {
	for _, w := range h.workers {
		if w.cov == nil {
			continue
		}
		for k, n := range w.cov.hits {
			l := w.cov.layouts[k.root]
			if l == nil || n == 0 {
				continue
			}
			if l.covIndex == nil {
				if l.covItems == nil {
					l.covItems = coverageItems(l)
				}
				l.covIndex = make(map[covKey]int, len(l.covItems))
				for i, it := range l.covItems {
					l.covIndex[covKey{k.root, it.item.Kind, it.id, it.sub}] = i
				}
			}
			if i, ok := l.covIndex[k]; ok {
				it := l.covItems[i].item
				it.Hits = n
				fn(it)
			}
		}
	}
}

// resetCoverage is hosttool.ResetCoverage: it forgets the counts so far.
func (h *Host) resetCoverage() {
	for _, w := range h.workers {
		if w.cov != nil {
			clear(w.cov.hits)
		}
	}
}

type keyedItem struct {
	item    link.CoverageItem
	id, sub int
}

// coverageItems lists every part of a layout, with the key its counts
// have.
func coverageItems(l *layout) []keyedItem {
	var out []keyedItem
	src := defs.NewSources()
	for _, n := range l.places {
		if n.parent == nil {
			continue
		}
		line := n.def.Pos.Line
		place, placed := src.Children(n.parent.def)[n.name]
		if placed {
			line = place.Line.Line
		}
		file := n.def.Pos.File
		out = append(out, keyedItem{link.CoverageItem{Kind: link.CoverState, Name: n.path, File: file, Line: line}, n.id, -1})
		if n.parent.def.Kind == defs.KindUtility {
			out = append(out, keyedItem{link.CoverageItem{Kind: link.CoverChoice, Name: n.path, File: file, Line: line}, n.id, -1})
		}
		for _, t := range n.trans {
			tl := line
			switch {
			case placed && t.index < len(place.Trans):
				tl = place.Trans[t.index].Line // the transition's entry
			case t.Pos.Line > 0:
				tl = t.Pos.Line
			}
			out = append(out, keyedItem{link.CoverageItem{Kind: link.CoverTransition, Name: n.path + ": " + t.Name(), File: file, Line: tl}, n.id, t.index})
		}
		for i, it := range n.def.Steps {
			sl := line
			if it.Pos.Line > 0 {
				sl = it.Pos.Line
			}
			out = append(out, keyedItem{link.CoverageItem{Kind: link.CoverStep, Name: fmt.Sprintf("%s step %d (%s)", n.path, i+1, it.StepLabel()), File: file, Line: sl}, n.id, i})
		}
		if n.bt != nil {
			for i, tn := range n.bt.Nodes {
				nl := line
				if tn.Def.Pos.Line > 0 {
					nl = tn.Def.Pos.Line
				}
				out = append(out, keyedItem{link.CoverageItem{Kind: link.CoverTreeNode, Name: n.btPaths[i], File: file, Line: nl}, n.id, i})
			}
		}
	}
	return out
}
