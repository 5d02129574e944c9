package hosttool

import (
	"fmt"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/internal/link"
)

// CoverKind is the kind of part a CoverageItem counts.
type CoverKind uint8

// The kinds of part coverage counts.
const (
	CoverState      CoverKind = CoverKind(link.CoverState)      // a state entered
	CoverTransition CoverKind = CoverKind(link.CoverTransition) // a transition fired
	CoverTreeNode   CoverKind = CoverKind(link.CoverTreeNode)   // a tree node ticked
	CoverStep       CoverKind = CoverKind(link.CoverStep)       // a step item reached
	CoverChoice     CoverKind = CoverKind(link.CoverChoice)     // a utility child chosen
)

// String is the kind as reports name it: "state", "transition", "tree
// node", "step" or "choice".
func (k CoverKind) String() string {
	if k > CoverChoice {
		return fmt.Sprintf("CoverKind(%d)", uint8(k))
	}
	return link.CoverKind(k).String()
}

// CoverageItem is one part of a behaviour and how often it ran.
type CoverageItem struct {
	Kind CoverKind
	Name string // "patrol.walk", "patrol.walk: to chase on noise", "work[sequence.grab]", …
	File string
	Line int
	Hits int
}

// BehaviourCoverage is a behaviour's parts, in the order they are written.
type BehaviourCoverage struct {
	File  string
	Items []CoverageItem
}

func coverageItem(c link.CoverageItem) CoverageItem {
	return CoverageItem{Kind: CoverKind(c.Kind), Name: c.Name, File: c.File, Line: c.Line, Hits: c.Hits}
}

// Coverage lists, for every behaviour h's agents ran
// (host.Options.Coverage; nil without it), each of its parts with how
// often it ran. Layouts of the same file (one per worker) are merged.
func Coverage(h *host.Host) []BehaviourCoverage {
	return mapSlice(link.Funcs.Coverage(h), func(b link.BehaviourCoverage) BehaviourCoverage {
		return BehaviourCoverage{File: b.File, Items: mapSlice(b.Items, coverageItem)}
	})
}

// CoverageHits calls fn for each part that ran since the host began (or
// since ResetCoverage), with its hits (host.Options.Coverage): what
// Coverage lists with Hits above 0, without building the list. With
// several workers a part may come once per worker that ran it: sum the
// hits.
func CoverageHits(h *host.Host, fn func(CoverageItem)) {
	link.Funcs.CoverageHits(h, func(c link.CoverageItem) { fn(coverageItem(c)) })
}

// ResetCoverage forgets h's counts so far (host.Options.Coverage): the next
// Coverage counts only what ran after it. luaai explore calls it between
// the input sequences it tries.
func ResetCoverage(h *host.Host) { link.Funcs.ResetCoverage(h) }

// MarshalText writes the kind as String names it, so JSON reports say
// "state", not 0.
func (k CoverKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind as String names it.
func (k *CoverKind) UnmarshalText(b []byte) error {
	for c := CoverState; c <= CoverChoice; c++ {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("hosttool: unknown coverage kind %q", b)
}
