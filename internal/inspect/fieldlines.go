package inspect

import (
	"regexp"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind/defs"
)

// unknownField matches the definition's warning about a field it does not
// know, in a plain-table state (`state "idle": unknown field "colr"`) or
// a machine (`ai.fsm: unknown field "colour"`).
var unknownField = regexp.MustCompile(`^(?:state "([^"]*)"|ai\.([a-z]+)): unknown field "([^"]*)"`)

// definitionWarnings is the definition's own warnings, each about an
// unknown field moved to the line of the field itself where the script
// can be read (the definition knows only the line of the state or of the
// machine's call).
func (l *linter) definitionWarnings(root *defs.State) scripterr.ErrorList {
	var out scripterr.ErrorList
	defs.EachState(root, func(n *defs.Node) {
		for _, w := range n.Def.Warnings {
			if pos, ok := l.fieldLine(n, w); ok {
				c := *w
				c.Pos = pos
				w = &c
			}
			out = append(out, w)
		}
	})
	out.Sort()
	return out
}

// fieldLine is where the field an unknown-field warning of node n names
// is written.
func (l *linter) fieldLine(n *defs.Node, w *scripterr.Error) (scripterr.Pos, bool) {
	m := unknownField.FindStringSubmatch(w.Msg)
	if m == nil {
		return scripterr.Pos{}, false
	}
	state, kind, field := m[1], m[2], m[3]
	var pos scripterr.Pos
	switch {
	case kind != "":
		// The machine whose call the warning points at: n, or a child.
		defs := []*defs.State{n.Def}
		for _, c := range n.Def.Children {
			defs = append(defs, c.Def)
		}
		for _, d := range defs {
			if d.Pos == w.Pos && d.Kind.String() == kind {
				pos = l.src.Fields(d)[field]
				break
			}
		}
	case n.Def.Child(state) >= 0:
		pos = l.src.Children(n.Def)[state].Fields[field]
	case n.Name == state && n.Parent != nil:
		pos = l.src.Children(n.Parent.Def)[state].Fields[field]
	}
	return pos, pos.Line > 0
}
