package lsp

// Hover and the outline (document symbols): what the editor shows of a
// state, a context field, and the machine as a whole.

import (
	"fmt"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d, o, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := o.src.offset(p.Position)
	var n *stateNode
	var at protocol.Range
	if i := stringAt(o.src, off); i >= 0 {
		if r := stringRole(o.src.toks, i); r == roleState || r == rolePath {
			n = o.resolveState(i, r)
			at = o.src.rangeOf(o.src.toks[i].cStart, o.src.toks[i].cEnd)
		}
	} else if i := o.src.tokenAt(off); i >= 0 {
		if n = o.stateKeyAt(i); n != nil {
			at = o.nameRange(n)
		} else if f := o.ctxFieldAt(i); f != "" {
			return s.ctxHover(d, o, f, o.src.rangeOf(o.src.toks[i].start, o.src.toks[i].end)), nil
		}
	}
	if n == nil {
		return nil, nil
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: o.describe(n)}, Range: &at}, nil
}

// ctxFieldAt is the context field named by token i when it is X in ctx.X,
// or "".
func (o *outline) ctxFieldAt(i int) string {
	toks := o.src.toks
	if toks[i].kind != tokName || i < 2 || !toks[i-1].is(".") || toks[i-2].kind != tokName {
		return ""
	}
	if toks[i-2].text == "ctx" || o.callbackParam(i-2) {
		return toks[i].text
	}
	return ""
}

func (s *server) ctxHover(d *document, o *outline, name string, at protocol.Range) *protocol.Hover {
	var b strings.Builder
	fmt.Fprintf(&b, "**context field** `%s`", name)
	d.mu.Lock()
	t, loaded := d.ctxTypes[name]
	d.mu.Unlock()
	found := loaded
	for _, f := range o.context {
		if f.name == name {
			found = true
			if !loaded {
				t = ctxDefault{typ: f.typ, value: f.value}
			}
		}
	}
	switch {
	case !found:
		b.WriteString("\n\nin no context defaults: a typo, or a field the game sets (then give it a default)")
	default:
		if t.typ != "" {
			fmt.Fprintf(&b, ": %s", t.typ)
		}
		if t.value != "" {
			fmt.Fprintf(&b, "\n\ndefault: `%s`", t.value)
		}
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: b.String()}, Range: &at}
}

// describe is a state's hover text: its path and kind, how it is entered
// and its transitions.
func (o *outline) describe(n *stateNode) string {
	var b strings.Builder
	path := n.path
	if path == "" {
		path = "(root)"
	}
	fmt.Fprintf(&b, "**state** `%s` (%s)", path, n.kind)
	if m := n.parent; m != nil {
		var by []string
		pushOnly := true
		if e := m.table.field("initial"); e != nil && e.str >= 0 && o.src.toks[e.str].text == n.name {
			by = append(by, "initial state of "+nameOrRoot(m.path))
			pushOnly = false
		}
		for _, sib := range m.kids {
			for _, t := range sib.trans {
				if t.target == n.name {
					by = append(by, fmt.Sprintf("`%s` from `%s`", t.kind, sib.name))
					if t.kind != "push" {
						pushOnly = false
					}
				}
			}
		}
		switch {
		case len(by) == 0:
			b.WriteString("\n\nno transition enters it (only ai.push/ai.replace could)")
		case pushOnly:
			b.WriteString("\n\nentered only by push: " + strings.Join(by, ", "))
		default:
			b.WriteString("\n\nentered by: " + strings.Join(by, ", "))
		}
	}
	if len(n.kids) > 0 {
		names := make([]string, len(n.kids))
		for i, k := range n.kids {
			names[i] = k.name
		}
		b.WriteString("\n\nstates: " + strings.Join(names, ", "))
	}
	if len(n.trans) > 0 {
		b.WriteString("\n\ntransitions:")
		for _, t := range n.trans {
			b.WriteString("\n- " + t.kind)
			if t.target != "" {
				fmt.Fprintf(&b, " `%s`", t.target)
			}
			if t.on != "" {
				fmt.Fprintf(&b, " on `%s`", t.on)
			}
			if t.after != "" {
				fmt.Fprintf(&b, " after `%s`", t.after)
			}
			if t.when != "" {
				fmt.Fprintf(&b, " when `%s`", t.when)
			}
		}
	}
	return b.String()
}

func nameOrRoot(path string) string {
	if path == "" {
		return "the root"
	}
	return path
}

func (s *server) documentSymbol(_ *glsp.Context, p *protocol.DocumentSymbolParams) (any, error) {
	_, o, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	out := []protocol.DocumentSymbol{}
	for _, r := range o.roots {
		out = append(out, o.symbol(r, 0))
	}
	return out, nil
}

func (o *outline) symbol(n *stateNode, depth int) protocol.DocumentSymbol {
	name := n.name
	if name == "" {
		name = "(root)"
		if n.table != nil && n.table.assigned != "" {
			name = n.table.assigned
		}
	}
	detail := n.kind
	sel := o.nameRange(n)
	whole := sel
	if n.table != nil {
		first := n.table.open
		if n.nameTok >= 0 && n.nameTok < first {
			first = n.nameTok
		}
		whole = o.src.rangeOf(o.src.toks[first].start, o.src.toks[n.table.close].end)
	}
	kind := protocol.SymbolKindClass
	if n.kind == "leaf" {
		kind = protocol.SymbolKindField
	}
	sym := protocol.DocumentSymbol{Name: name, Detail: &detail, Kind: kind, Range: whole, SelectionRange: sel}
	if depth > maxOutlineDepth {
		return sym
	}
	for _, c := range n.kids {
		sym.Children = append(sym.Children, o.symbol(c, depth+1))
	}
	if n.treeTop != nil {
		sym.Children = append(sym.Children, o.treeSymbol(n.treeTop, whole, depth+1))
	}
	return sym
}

func (o *outline) treeSymbol(t *treeNode, within protocol.Range, depth int) protocol.DocumentSymbol {
	sel := within
	if t.nameTok >= 0 {
		tok := o.src.toks[t.nameTok]
		sel = o.src.rangeOf(tok.cStart, tok.cEnd)
	} else if t.tok >= 0 {
		tok := o.src.toks[t.tok]
		sel = o.src.rangeOf(tok.start, tok.end)
	}
	detail := "tree node (" + t.kind + ")"
	sym := protocol.DocumentSymbol{Name: t.name, Detail: &detail, Kind: protocol.SymbolKindEvent, Range: sel, SelectionRange: sel}
	if depth > maxOutlineDepth {
		return sym
	}
	for _, k := range t.kids {
		sym.Children = append(sym.Children, o.treeSymbol(k, within, depth+1))
	}
	return sym
}
