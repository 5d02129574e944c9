package defs

import (
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luabind/internal/srcpos"
)

// Place is where a state is written: the line of its key in the parent
// machine's `states`, and of each entry of its `transitions`. Zero
// positions are unknown.
type Place struct {
	Line  scripterr.Pos
	Trans []scripterr.Pos
	// Fields: where each `name = …` entry of a plain-table state is.
	Fields map[string]scripterr.Pos
}

// Sources finds where the states of a machine are written, by reading the
// script a definition names (its Pos.File) and looking into the table
// constructor of its ai.fsm/ai.utility call. Definitions record only the
// line of that call (and of `when` functions), so a problem or warning
// about a leaf state or a native condition would otherwise point there.
// Files are read once per Sources; a file that cannot be read places
// nothing. A Sources is used by one goroutine.
type Sources struct {
	files  map[string][]srcpos.Token // nil: unreadable
	layout map[*State]map[string]Place
}

// NewSources returns an empty cache.
func NewSources() *Sources {
	return &Sources{files: map[string][]srcpos.Token{}, layout: map[*State]map[string]Place{}}
}

// Children returns where each child of machine m is written, by name. The
// result is used only when it matches the definition exactly (the same
// state names); a child whose transitions are not as many as the entries
// found gets no transition lines. nil when nothing is known.
func (s *Sources) Children(m *State) map[string]Place {
	if kids, ok := s.layout[m]; ok {
		return kids
	}
	kids := s.locate(m)
	s.layout[m] = kids
	return kids
}

func (s *Sources) locate(m *State) map[string]Place {
	if m.Pos.File == "" || m.Pos.Line <= 0 {
		return nil
	}
	written := srcpos.Machine(s.tokens(m.Pos.File), m.Pos.Line, m.Kind.String())
	if written == nil || len(written) != len(m.Children) {
		return nil
	}
	kids := make(map[string]Place, len(written))
	for _, w := range written {
		p := Place{Line: scripterr.Pos{File: m.Pos.File, Line: w.Line}}
		for name, line := range w.Fields {
			if p.Fields == nil {
				p.Fields = map[string]scripterr.Pos{}
			}
			p.Fields[name] = scripterr.Pos{File: m.Pos.File, Line: line}
		}
		for _, line := range w.Trans {
			p.Trans = append(p.Trans, scripterr.Pos{File: m.Pos.File, Line: line})
		}
		kids[w.Name] = p
	}
	for _, c := range m.Children {
		p, ok := kids[c.Name]
		if !ok {
			return nil
		}
		if len(p.Trans) != len(c.Def.Transitions) {
			p.Trans = nil
			kids[c.Name] = p
		}
	}
	return kids
}

// Fields returns where each `name = …` entry of machine m's own table is
// written (its ai.fsm/ai.utility/ai.regions/ai.tree call), by name; nil
// when nothing is known.
func (s *Sources) Fields(m *State) map[string]scripterr.Pos {
	if m.Pos.File == "" || m.Pos.Line <= 0 {
		return nil
	}
	toks := s.tokens(m.Pos.File)
	var out map[string]scripterr.Pos
	for name, line := range srcpos.Fields(toks, m.Pos.Line, m.Kind.String()) {
		if out == nil {
			out = map[string]scripterr.Pos{}
		}
		out[name] = scripterr.Pos{File: m.Pos.File, Line: line}
	}
	return out
}

// tokens is file's tokens, read once (nil when it cannot be read).
func (s *Sources) tokens(file string) []srcpos.Token {
	toks, ok := s.files[file]
	if !ok {
		if src, err := luabind.ReadScript(file); err == nil {
			toks = srcpos.Tokenize(src)
		}
		s.files[file] = toks
	}
	return toks
}
