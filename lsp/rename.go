package lsp

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// ErrNotAState: a rename asked where no state is named.
var ErrNotAState = errors.New("luaai lsp: no state is named here (rename a state at its name in states, or in a to, push, initial or ai.push string)")

// stateAtCursor is the state named at byte offset off (its key, or a
// string naming it) and the range of that name.
func (o *outline) stateAtCursor(off int) (*stateNode, protocol.Range) {
	if i := stringAt(o.src, off); i >= 0 {
		if r := stringRole(o.src.toks, i); r == roleState || r == rolePath {
			if n := o.resolveState(i, r); n != nil {
				t := o.src.toks[i]
				return n, o.src.rangeOf(t.cStart, t.cEnd)
			}
		}
		if n := o.stateKeyAt(i); n != nil {
			return n, o.nameRange(n)
		}
		return nil, protocol.Range{}
	}
	i := o.src.tokenAt(off)
	if i < 0 {
		return nil, protocol.Range{}
	}
	if n := o.stateKeyAt(i); n != nil {
		return n, o.nameRange(n)
	}
	return nil, protocol.Range{}
}

func (s *server) prepareRename(_ *glsp.Context, p *protocol.PrepareRenameParams) (any, error) {
	_, o, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	n, at := o.stateAtCursor(o.src.offset(p.Position))
	if n == nil || n.nameTok < 0 {
		return nil, ErrNotAState
	}
	return protocol.RangeWithPlaceholder{Range: at, Placeholder: n.name}, nil
}

func (s *server) rename(_ *glsp.Context, p *protocol.RenameParams) (*protocol.WorkspaceEdit, error) {
	d, o, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	n, _ := o.stateAtCursor(o.src.offset(p.Position))
	if n == nil || n.nameTok < 0 {
		return nil, ErrNotAState
	}
	edits, err := o.renameEdits(n, p.NewName)
	if err != nil {
		return nil, err
	}
	return &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{d.uri: edits}}, nil
}

// renameEdits renames state n to name: its key in states, every to, push
// and initial string naming it in its machine, every ai.push and
// ai.replace naming it from a hook that acts on its machine, every
// ai.active path through it, and the root's renamed entries (old path =
// new path added, an entry that led to the old path leads to the new),
// so that agents in the state stay there when the script is reloaded.
func (o *outline) renameEdits(n *stateNode, name string) ([]protocol.TextEdit, error) {
	if !isIdentifier(name) {
		return nil, fmt.Errorf("luaai lsp: %q is not a state name: names are Lua identifiers", name)
	}
	if name == n.name {
		return []protocol.TextEdit{}, nil
	}
	m := n.parent
	if m.child(name) != nil {
		return nil, fmt.Errorf("luaai lsp: %s already has a state %q", nameOrRoot(m.path), name)
	}
	toks := o.src.toks
	oldPath := n.path
	newPath := name
	if m.path != "" {
		newPath = m.path + "." + name
	}
	var edits []protocol.TextEdit
	seen := map[int]bool{}
	replace := func(tok int, text string) {
		if seen[tok] {
			return
		}
		seen[tok] = true
		t := toks[tok]
		if t.kind == tokString {
			edits = append(edits, protocol.TextEdit{Range: o.src.rangeOf(t.cStart, t.cEnd), NewText: text})
			return
		}
		edits = append(edits, protocol.TextEdit{Range: o.src.rangeOf(t.start, t.end), NewText: text})
	}
	replace(n.nameTok, name)
	if e := m.table.field("initial"); e != nil && e.str >= 0 && toks[e.str].text == n.name {
		replace(e.str, name)
	}
	for _, sib := range m.kids {
		for _, t := range sib.trans {
			if t.target == n.name && t.targetTok >= 0 {
				replace(t.targetTok, name)
			}
		}
	}
	for i, t := range toks {
		if t.kind != tokString || seen[i] {
			continue
		}
		switch stringRole(toks, i) {
		case roleState:
			if t.text == n.name && o.machineFor(i) == m {
				replace(i, name)
			}
		case rolePath:
			if i >= 1 && toks[i-1].is("[") {
				continue // a renamed key: an old path, kept
			}
			if t.text == oldPath {
				replace(i, newPath)
			} else if strings.HasPrefix(t.text, oldPath+".") {
				replace(i, newPath+t.text[len(oldPath):])
			}
		}
	}
	edits = append(edits, o.renamedEntry(n, oldPath, newPath, seen)...)
	sort.SliceStable(edits, func(a, b int) bool {
		pa, pb := edits[a].Range.Start, edits[b].Range.Start
		return pa.Line < pb.Line || pa.Line == pb.Line && pa.Character < pb.Character
	})
	return edits, nil
}

// renamedEntry adds ["old"] = "new" to the root's renamed table, making
// the table when there is none.
func (o *outline) renamedEntry(n *stateNode, oldPath, newPath string, seen map[int]bool) []protocol.TextEdit {
	root := n
	for root.parent != nil {
		root = root.parent
	}
	if root.table == nil {
		return nil
	}
	toks := o.src.toks
	entry := "[" + strconv.Quote(oldPath) + "] = " + strconv.Quote(newPath)
	if e := root.table.field("renamed"); e != nil && e.table != nil {
		for _, f := range e.table.entries {
			if f.key == oldPath && f.str >= 0 {
				if !seen[f.str] {
					t := toks[f.str]
					return []protocol.TextEdit{{Range: o.src.rangeOf(t.cStart, t.cEnd), NewText: newPath}}
				}
				return nil
			}
		}
		open := toks[e.table.open]
		at := o.src.position(open.end)
		return []protocol.TextEdit{{Range: protocol.Range{Start: at, End: at}, NewText: " " + entry + ","}}
	}
	open := toks[root.table.open]
	indent := "  "
	if len(root.table.entries) > 0 && root.table.entries[0].valStart < len(toks) {
		first := root.table.entries[0]
		tok := first.valStart
		if first.keyTok >= 0 {
			tok = first.keyTok
		}
		line := o.src.lineOf(toks[tok].start)
		lineStart := o.src.lines[line-1]
		ws := lineStart
		for ws < len(o.src.text) && (o.src.text[ws] == ' ' || o.src.text[ws] == '\t') {
			ws++
		}
		if ws == toks[tok].start {
			indent = o.src.text[lineStart:ws]
		}
	}
	at := o.src.position(open.end)
	return []protocol.TextEdit{{Range: protocol.Range{Start: at, End: at},
		NewText: "\n" + indent + "renamed = { " + entry + " }, -- keeps agents in place on reload"}}
}

func isIdentifier(s string) bool {
	if s == "" || isStatementWord(s) {
		return false
	}
	switch s {
	case "and", "or", "not", "nil", "true", "false", "in", "break", "goto":
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isNameStart(c) && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
