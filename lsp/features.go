package lsp

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// role says what a string at the cursor names.
type role uint8

const (
	roleNone    role = iota
	roleState        // to, push, initial, ai.push, ai.replace: a state of one machine
	roleEvent        // on, ai.send, ai.send_to, agent:send
	rolePath         // ai.active, a renamed entry: a state path or a bare name
	roleRequire      // require("x")
)

// stringRole finds what the string token i names, from the tokens before
// it: the key it is the value of, or the call it is an argument of.
func stringRole(toks []token, i int) role {
	if i >= 1 && toks[i-1].is("=") && i >= 2 {
		if i >= 4 && toks[i-2].is("]") && toks[i-3].kind == tokString && toks[i-4].is("[") {
			return rolePath // ["old.path"] = "new.path", in renamed
		}
		switch toks[i-2].text {
		case "to", "push", "initial":
			if toks[i-2].kind == tokName {
				return roleState
			}
		case "on":
			if toks[i-2].kind == tokName {
				return roleEvent
			}
		}
		return roleNone
	}
	if i >= 4 && toks[i-1].is("]") && toks[i-2].kind == tokString && toks[i-3].is("[") {
		return roleNone
	}
	if i >= 1 && toks[i-1].is("[") && i+2 < len(toks) && toks[i+1].is("]") && toks[i+2].is("=") {
		return rolePath // the key of a renamed entry
	}
	// An argument: find the call's ( and which argument this is.
	arg, depth := 0, 0
	j := i - 1
	for ; j >= 0; j-- {
		t := toks[j]
		switch {
		case t.is(")") || t.is("]") || t.is("}"):
			depth++
		case t.is("(") || t.is("[") || t.is("{"):
			if depth == 0 {
				goto found
			}
			depth--
		case t.is(",") && depth == 0:
			arg++
		case depth == 0 && (t.is("=") || t.is(";") || t.kind == tokName && isStatementWord(t.text)):
			return roleNone
		}
		if i-j > 64 {
			return roleNone
		}
	}
	return roleNone
found:
	if !toks[j].is("(") || j < 1 || toks[j-1].kind != tokName {
		return roleNone
	}
	method := j >= 2 && (toks[j-2].is(".") || toks[j-2].is(":"))
	switch toks[j-1].text {
	case "require":
		if arg == 0 && !method {
			return roleRequire
		}
	case "push", "replace":
		if arg == 0 && method {
			return roleState
		}
	case "send":
		if arg == 0 && method {
			return roleEvent
		}
	case "send_to":
		if arg == 1 && method {
			return roleEvent
		}
	case "active":
		if arg == 0 && method {
			return rolePath
		}
	}
	return roleNone
}

func isStatementWord(s string) bool {
	switch s {
	case "local", "return", "if", "then", "else", "elseif", "end", "do", "while", "for", "function", "repeat", "until":
		return true
	}
	return false
}

// stringAt is the string token holding byte offset off (between its
// quotes, or on an open string's line), or -1.
func stringAt(src *source, off int) int {
	i := src.tokenAt(off)
	if i < 0 {
		i = src.tokenBefore(off)
	}
	if i < 0 || i >= len(src.toks) {
		return -1
	}
	t := src.toks[i]
	if t.kind != tokString || off < t.cStart || off > t.cEnd {
		return -1
	}
	return i
}

// machineFor is the machine whose states a string at token i names, for
// a string of roleState: the machine holding the state whose transition
// it is in (to, push), the machine it is the initial of, or for
// ai.push/ai.replace the nearest fsm holding the state whose hook it is
// in. nil when no machine is known.
func (o *outline) machineFor(i int) *stateNode {
	toks := o.src.toks
	n := o.stateAt(i)
	if n == nil {
		return nil
	}
	if i >= 2 && toks[i-1].is("=") && toks[i-2].is("initial") {
		return n
	}
	if i >= 2 && toks[i-1].is("=") {
		return n.parent // to, push: a sibling
	}
	for m := n.parent; m != nil; m = m.parent {
		if m.kind == "fsm" {
			return m
		}
	}
	return nil
}

// resolveState is the state a string of roleState or rolePath names.
func (o *outline) resolveState(i int, r role) *stateNode {
	name := o.src.toks[i].text
	if r == roleState {
		if m := o.machineFor(i); m != nil {
			if c := m.child(name); c != nil {
				return c
			}
			return nil
		}
	}
	return o.findState(name)
}

// stateKeyAt is the state whose name is written at token i (its key in
// states), or nil.
func (o *outline) stateKeyAt(i int) *stateNode {
	for _, n := range o.states {
		if n.nameTok == i {
			return n
		}
	}
	return nil
}

// ctxPrefix finds a context field being typed at off: after ctx. (or the
// first parameter of a callback), with the part of the name typed so far.
func (o *outline) ctxPrefix(off int) (start int, ok bool) {
	toks := o.src.toks
	j := o.src.tokenBefore(off)
	if j < 0 {
		return 0, false
	}
	start = off
	if toks[j].kind == tokName && toks[j].end == off {
		start = toks[j].start
		j--
	}
	if j < 1 || !toks[j].is(".") || toks[j].end > start || toks[j-1].kind != tokName {
		return 0, false
	}
	if toks[j-1].text == "ctx" || o.callbackParam(j-1) {
		return start, true
	}
	return 0, false
}

// callbackParam reports whether name token i is the first parameter of a
// function written inside a machine (a hook, a condition) that holds it.
func (o *outline) callbackParam(i int) bool {
	toks := o.src.toks
	name := toks[i].text
	for j := i - 1; j >= 2; j-- {
		if toks[j].kind == tokName && toks[j].text == name && toks[j-1].is("(") && toks[j-2].is("function") {
			return o.stateAt(j) != nil
		}
	}
	return false
}

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, o, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return s.complete(d, o, o.src.offset(p.Position)), nil
}

// complete lists what may be written at byte offset off: inside a string,
// the names it may hold; after ctx., the context's fields.
func (s *server) complete(d *document, o *outline, off int) protocol.CompletionList {
	list := protocol.CompletionList{Items: []protocol.CompletionItem{}}
	if i := stringAt(o.src, off); i >= 0 {
		s.completeString(&list, d, o, i, off)
		return list
	}
	if start, ok := o.ctxPrefix(off); ok {
		completeContext(&list, d, o, start, off)
	}
	return list
}

// completeString lists the names the string token i may hold: a state of
// its machine, a state path, an event, a tree node's name.
func (s *server) completeString(list *protocol.CompletionList, d *document, o *outline, i, off int) {
	src := o.src
	t := src.toks[i]
	edit := src.rangeOf(t.cStart, off)
	add := func(label string, kind protocol.CompletionItemKind, detail string) {
		k, det := kind, detail
		list.Items = append(list.Items, protocol.CompletionItem{Label: label, Kind: &k, Detail: &det,
			TextEdit: protocol.TextEdit{Range: edit, NewText: label}})
	}
	if i >= 2 && src.toks[i-1].is("=") && src.toks[i-2].is("name") {
		// A tree node's name: the one the engine gives it now, so that
		// naming it keeps the running paths saves and reloads hold.
		if tb := o.tableAt(i); tb != nil {
			if n := o.treeTables[tb.open]; n != nil {
				add(n.defName, protocol.CompletionItemKindValue, "tree node ("+n.kind+"): its name now, kept by saves and reloads")
			}
		}
		return
	}
	switch r := stringRole(src.toks, i); r {
	case roleState:
		if m := o.machineFor(i); m != nil {
			for _, c := range m.kids {
				add(c.name, protocol.CompletionItemKindEnumMember, "state "+c.path+" ("+c.kind+")")
			}
			break
		}
		seen := map[string]bool{}
		for _, n := range o.states {
			if n.nameTok >= 0 && !seen[n.name] {
				seen[n.name] = true
				add(n.name, protocol.CompletionItemKindEnumMember, "state "+n.path+" ("+n.kind+")")
			}
		}
	case rolePath:
		for _, n := range o.states {
			if n.nameTok >= 0 {
				add(n.path, protocol.CompletionItemKindEnumMember, "state ("+n.kind+")")
			}
		}
	case roleEvent:
		for _, ev := range s.events(d, o) {
			add(ev, protocol.CompletionItemKindEvent, "event")
		}
	}
}

// completeContext lists the context's fields for a name typed after ctx.
// (from byte offset start to off), with their types and defaults.
func completeContext(list *protocol.CompletionList, d *document, o *outline, start, off int) {
	src := o.src
	edit := src.rangeOf(start, off)
	d.mu.Lock()
	types := d.ctxTypes
	d.mu.Unlock()
	seen := map[string]bool{}
	add := func(name, typ, value string) {
		detail := typ
		if value != "" {
			detail += " = " + value
		}
		if detail == "" {
			detail = "context default"
		}
		k := protocol.CompletionItemKindField
		list.Items = append(list.Items, protocol.CompletionItem{Label: name, Kind: &k, Detail: &detail,
			TextEdit: protocol.TextEdit{Range: edit, NewText: name}})
		seen[name] = true
	}
	for _, f := range o.context {
		typ, value := f.typ, f.value
		if t, ok := types[f.name]; ok {
			typ = t.typ
			if t.value != "" {
				value = t.value
			}
		}
		add(f.name, typ, value)
	}
	names := make([]string, 0, len(types))
	for k := range types {
		if !seen[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		add(k, types[k].typ, types[k].value)
	}
}

// events is every event name the buffer, its folder's other scripts and
// its trees use.
func (s *server) events(d *document, o *outline) []string {
	set := map[string]bool{}
	for _, e := range o.events {
		set[e] = true
	}
	if d.path != "" {
		for _, e := range s.folders.events(filepath.Dir(d.path), d.path) {
			set[e] = true
		}
	}
	for _, n := range o.states {
		if n.kind == "tree" {
			set["tree:success"], set["tree:failure"] = true, true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (s *server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	d, o, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := o.src.offset(p.Position)
	i := stringAt(o.src, off)
	if i < 0 {
		return nil, nil
	}
	switch r := stringRole(o.src.toks, i); r {
	case roleState, rolePath:
		if n := o.resolveState(i, r); n != nil {
			return protocol.Location{URI: d.uri, Range: o.nameRange(n)}, nil
		}
	case roleRequire:
		if f := s.moduleFile(d, o.src.toks[i].text); f != "" {
			return protocol.Location{URI: pathURI(f), Range: protocol.Range{}}, nil
		}
	}
	return nil, nil
}

// nameRange is the range of a state's name where it is written.
func (o *outline) nameRange(n *stateNode) protocol.Range {
	if n.nameTok < 0 {
		if n.table != nil {
			return o.src.rangeOf(o.src.toks[n.table.open].start, o.src.toks[n.table.open].end)
		}
		return protocol.Range{}
	}
	t := o.src.toks[n.nameTok]
	if t.kind == tokString {
		return o.src.rangeOf(t.cStart, t.cEnd)
	}
	return o.src.rangeOf(t.start, t.end)
}

// moduleFile is the file require(name) loads from the document: its
// folder, then the roots ("luaai" is the editor definitions of
// types/luaai.lua where the workspace has them).
func (s *server) moduleFile(d *document, name string) string {
	rel := strings.ReplaceAll(name, ".", string(filepath.Separator)) + ".lua"
	dirs := []string{filepath.Dir(d.path)}
	dirs = append(dirs, s.roots()...)
	if name == "luaai" {
		rel = filepath.Join("types", "luaai.lua")
		s.mu.Lock()
		dirs = []string{filepath.Dir(d.path), s.root, "."}
		s.mu.Unlock()
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, rel)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			abs, _ := filepath.Abs(p)
			return abs
		}
	}
	return ""
}
