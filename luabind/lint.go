package luabind

import (
	"fmt"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lint returns every warning about a valid behaviour, sorted by position:
// the definition's own (unknown fields, a score outside a utility machine),
// and what `luaai check` finds by looking at the whole tree:
//
//   - a state of an fsm that no transition reaches: not the initial state,
//     and not the target of a sibling's `to` or `push`, directly or through
//     states that are themselves reached (ai.push and ai.replace could still
//     reach it: they cannot be seen without running the script);
//   - a transition that can never fire because an earlier one of the same
//     state always fires (no `when`, or `when = true`, no `on`, no `after`),
//     and a transition whose `when` is false;
//   - a native condition or scorer reading a context field that is not in
//     any machine's `context` defaults (only the first segment of a dotted
//     path is checked: nested tables are often filled at run time).
//
// Lua functions are not looked into. A definition placed in several parents
// is reported once, under the first path found (children in name order).
//
// Positions: where the script file can be read (Pos.File), a warning about
// a state points at its key in the machine's `states`, and one about a
// transition at its entry; otherwise at the positions the definition
// recorded (the ai.fsm/ai.utility call, or a `when` function).
func Lint(root *State) ErrorList {
	if root == nil {
		return nil
	}
	out := Warnings(root)
	l := &linter{defaults: contextKeys(root), seen: map[*State]bool{}, src: newSources()}
	l.walk(root, "", place{line: root.Pos})
	out = append(out, l.out...)
	out.Sort()
	return out
}

type linter struct {
	defaults map[string]bool
	seen     map[*State]bool
	src      *sources
	out      ErrorList
}

// place is where a state is written: the line of its key in the parent's
// states, and of each of its transitions. Zero positions are unknown.
type place struct {
	line  Pos
	trans []Pos
}

// at returns p, or def when p is unknown.
func at(p, def Pos) Pos {
	if p.Line > 0 {
		return p
	}
	return def
}

func (l *linter) warn(pos Pos, format string, args ...any) { l.out.Add(pos, format, args...) }

func (l *linter) walk(s *State, path string, where place) {
	if l.seen[s] {
		return
	}
	l.seen[s] = true
	what := stateWhat(path)
	pos := at(where.line, s.Pos)
	l.fields(pos, what+": lock", s.Lock)
	l.fields(pos, what+": score", s.Score)
	l.transitions(s, what, where.trans)
	var kids map[string]place
	if s.IsMachine() {
		kids = l.src.children(s)
	}
	if s.Kind == KindFSM {
		l.unreachable(s, path, kids)
	}
	for _, c := range s.Children {
		l.walk(c.Def, joinPath(path, c.Name), kids[c.Name])
	}
}

// stateWhat names a state in a message, as the decoder does.
func stateWhat(path string) string {
	if path == "" {
		return "the root machine"
	}
	return fmt.Sprintf("state %q", path)
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// transitions warns about transitions that never fire, and about fields
// their native conditions read.
func (l *linter) transitions(s *State, what string, lines []Pos) {
	always := -1 // index of the first transition that always fires
	for i, tr := range s.Transitions {
		pos := tr.Pos
		if len(lines) == len(s.Transitions) {
			pos = at(lines[i], tr.Pos)
		}
		label := fmt.Sprintf("%s: transition %d (%s)", what, i+1, transitionSummary(tr))
		l.fields(pos, label+": when", tr.When)
		if always >= 0 {
			l.warn(pos, "%s can never fire: transition %d (%s) always fires first",
				label, always+1, transitionSummary(s.Transitions[always]))
			continue
		}
		if c, ok := tr.When.(ConstCond); ok && !bool(c) {
			l.warn(pos, "%s never fires: its when is false", label)
			continue
		}
		if AlwaysFires(tr) {
			always = i
		}
	}
}

// AlwaysFires reports whether a transition fires whenever it is tried: no
// `when` (or `when = true`), no `on` and no `after`. Every transition after
// it in the same list is dead.
func AlwaysFires(tr Transition) bool {
	if tr.On != "" || tr.After > 0 {
		return false
	}
	if tr.When == nil {
		return true
	}
	c, ok := tr.When.(ConstCond)
	return ok && bool(c)
}

// transitionSummary is "to combat", "push investigate" or "pop".
func transitionSummary(tr Transition) string {
	if tr.Kind == Pop {
		return "pop"
	}
	return tr.Kind.String() + " " + tr.Target
}

// fields warns about each context field a native reads that no context
// default declares.
func (l *linter) fields(pos Pos, what string, native any) {
	if native == nil {
		return
	}
	for _, f := range NativeFields(native) {
		top, _, _ := strings.Cut(f, ".")
		if !l.defaults[top] {
			l.warn(pos, "%s reads ctx.%s, but %q is in no context defaults (a typo, or set by the game?)", what, f, top)
		}
	}
}

// unreachable warns about the children of fsm m that no transition reaches
// from its initial state.
func (l *linter) unreachable(m *State, path string, kids map[string]place) {
	reached := map[string]bool{}
	var queue []string
	if m.Child(m.Initial) >= 0 {
		reached[m.Initial] = true
		queue = append(queue, m.Initial)
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		for _, tr := range m.Children[m.Child(name)].Def.Transitions {
			if tr.Kind == Pop || reached[tr.Target] || m.Child(tr.Target) < 0 {
				continue
			}
			reached[tr.Target] = true
			queue = append(queue, tr.Target)
		}
	}
	for _, c := range m.Children {
		if reached[c.Name] {
			continue
		}
		var from []string // siblings (themselves unreached) with a transition to c
		for _, o := range m.Children {
			if o.Name == c.Name {
				continue
			}
			for _, tr := range o.Def.Transitions {
				if tr.Kind != Pop && tr.Target == c.Name {
					from = append(from, o.Name)
					break
				}
			}
		}
		what := stateWhat(joinPath(path, c.Name))
		pos := at(kids[c.Name].line, c.Def.Pos)
		if len(from) == 0 {
			l.warn(pos, "%s: no transition reaches it (only ai.push/ai.replace could)", what)
		} else {
			l.warn(pos, "%s: no transition reaches it from the initial state, only from %s, which nothing reaches (only ai.push/ai.replace could)",
				what, strings.Join(from, ", "))
		}
	}
}

// contextKeys is the set of top-level string keys of every machine's
// context defaults: the keys of the merged defaults an agent starts with.
func contextKeys(root *State) map[string]bool {
	keys := map[string]bool{}
	seen := map[*State]bool{}
	var walk func(s *State)
	walk = func(s *State) {
		if seen[s] {
			return
		}
		seen[s] = true
		if s.Context != nil {
			s.Context.ForEach(func(k, _ lua.LValue) {
				if ks, ok := k.(lua.LString); ok {
					keys[string(ks)] = true
				}
			})
		}
		for _, c := range s.Children {
			walk(c.Def)
		}
	}
	walk(root)
	return keys
}

// NativeFields lists the context fields a native condition or scorer reads
// (dotted paths as written: "target.distance"), sorted, each once. Lua
// functions, constants and anything else contribute nothing: what a Lua
// function reads cannot be known without running it.
func NativeFields(v any) []string {
	set := map[string]bool{}
	collectFields(v, set)
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func collectFields(v any, set map[string]bool) {
	switch n := v.(type) {
	case *isCond:
		set[n.path.name] = true
	case *eqCond:
		set[n.path.name] = true
	case *numCond:
		set[n.path.name] = true
	case *listCond:
		for _, c := range n.cs {
			collectFields(c, set)
		}
	case *nonCond:
		collectFields(n.c, set)
	case *fieldScore:
		set[n.path.name] = true
	case *condScore:
		collectFields(n.c, set)
	case *inverseScore:
		collectFields(n.s, set)
	case *listScore:
		for _, s := range n.ss {
			collectFields(s, set)
		}
	case *weightScore:
		collectFields(n.s, set)
	case *normalizeScore:
		collectFields(n.s, set)
	case *curveScore:
		collectFields(n.s, set)
	}
}

// Describe names a condition or scorer as traces and graphs show it: a
// native as "gt(hunger, 0.5)", a constant as "true" or "0.5", a Lua
// function as "fn@file:line". nil gives "".
func Describe(v any) string {
	switch v := v.(type) {
	case Scorer:
		return scorerName(v)
	case Cond:
		return condName(v)
	}
	return ""
}

// ---- where things are written ----
//
// Definitions record the line of each ai.fsm/ai.utility call, and a
// transition the line of its `when` function: a leaf state or a transition
// with a native condition only has its machine's line. To point warnings at
// the right line, sources reads the script (the definition's Pos.File) and
// finds, in the machine's table constructor, the key of each state and the
// entries of its transitions. The result is used only when it matches the
// definition exactly (the same state names, as many transitions); otherwise
// the recorded positions stay.

type sources struct {
	files  map[string][]token // nil: unreadable
	layout map[*State]map[string]place
}

func newSources() *sources {
	return &sources{files: map[string][]token{}, layout: map[*State]map[string]place{}}
}

func (s *sources) tokens(file string) []token {
	toks, ok := s.files[file]
	if !ok {
		if src, err := ReadScript(file); err == nil {
			toks = tokenize(src)
		}
		s.files[file] = toks
	}
	return toks
}

// children finds where each child of machine m is written.
func (s *sources) children(m *State) map[string]place {
	if kids, ok := s.layout[m]; ok {
		return kids
	}
	kids := s.locate(m)
	s.layout[m] = kids
	return kids
}

func (s *sources) locate(m *State) map[string]place {
	if m.Pos.File == "" || m.Pos.Line <= 0 {
		return nil
	}
	toks := s.tokens(m.Pos.File)
	// The constructor: the first `{` after `fsm` or `utility` on the line
	// of the call (a call may put its table on a later line).
	open := -1
	for i := 0; i+1 < len(toks) && open < 0; i++ {
		t := toks[i]
		if t.line < m.Pos.Line {
			continue
		}
		if t.line > m.Pos.Line {
			break
		}
		if t.kind == tokName && t.text == m.Kind.String() {
			for j := i + 1; j < len(toks); j++ {
				if toks[j].text == "{" {
					open = j
					break
				}
				if toks[j].text != "(" {
					break
				}
			}
		}
	}
	if open < 0 {
		return nil
	}
	states, ok := field(toks, open, "states")
	if !ok || toks[states].text != "{" {
		return nil
	}
	entries := tableEntries(toks, states)
	kids := map[string]place{}
	for _, e := range entries {
		if e.key == "" {
			return nil
		}
		p := place{line: Pos{File: m.Pos.File, Line: toks[e.start].line}}
		if t := valueTable(toks, e.value, e.end); t >= 0 {
			if list, ok := field(toks, t, "transitions"); ok && toks[list].text == "{" {
				for _, tr := range tableEntries(toks, list) {
					p.trans = append(p.trans, Pos{File: m.Pos.File, Line: toks[tr.start].line})
				}
			}
		}
		kids[e.key] = p
	}
	// Trust the layout only if it is this machine's.
	if len(kids) != len(m.Children) {
		return nil
	}
	for _, c := range m.Children {
		p, ok := kids[c.Name]
		if !ok {
			return nil
		}
		if len(p.trans) != len(c.Def.Transitions) {
			p.trans = nil
			kids[c.Name] = p
		}
	}
	return kids
}

// entry is one entry of a table constructor: tokens start..end (exclusive),
// its key for `name = value` and `["name"] = value`, and where the value
// starts.
type entry struct {
	key        string
	start, end int
	value      int
}

// tableEntries lists the entries of the constructor opening at toks[open].
func tableEntries(toks []token, open int) []entry {
	var out []entry
	depth := 0
	start := open + 1
	flush := func(end int) {
		if end <= start {
			return
		}
		e := entry{start: start, end: end, value: start}
		switch {
		case end-start >= 2 && toks[start].kind == tokName && toks[start+1].text == "=":
			e.key, e.value = toks[start].text, start+2
		case end-start >= 4 && toks[start].text == "[" && toks[start+1].kind == tokString &&
			toks[start+2].text == "]" && toks[start+3].text == "=":
			e.key, e.value = toks[start+1].text, start+4
		}
		out = append(out, e)
	}
	for i := open + 1; i < len(toks); i++ {
		switch toks[i].text {
		case "{", "(", "[":
			depth++
		case ")", "]":
			depth--
		case "}":
			if depth == 0 {
				flush(i)
				return out
			}
			depth--
		case ",", ";":
			if depth == 0 {
				flush(i)
				start = i + 1
			}
		}
	}
	return nil // unclosed
}

// field finds `key = value` among the entries of the constructor at
// toks[open] and returns where the value starts.
func field(toks []token, open int, key string) (int, bool) {
	for _, e := range tableEntries(toks, open) {
		if e.key == key && e.value < e.end {
			return e.value, true
		}
	}
	return 0, false
}

// valueTable is the constructor a value is written as: `{…}`, or a call
// with a table, `ai.fsm {…}` / `ai.fsm({…})`. -1 for anything else (a
// variable, a function call with other arguments).
func valueTable(toks []token, from, end int) int {
	for i := from; i < end; i++ {
		switch t := toks[i]; {
		case t.text == "{":
			return i
		case t.kind == tokName, t.text == ".", t.text == "(":
		default:
			return -1
		}
	}
	return -1
}

type tokKind uint8

const (
	tokOther tokKind = iota
	tokName
	tokString
)

type token struct {
	kind tokKind
	text string // a string's contents, without quotes or escapes resolved
	line int
}

// tokenize splits Lua 5.1 source into names, strings and punctuation (with
// "==" kept whole), skipping comments, numbers' insides and whitespace.
// It never fails: odd input gives odd tokens, which locate rejects.
func tokenize(src []byte) []token {
	var toks []token
	line := 1
	n := len(src)
	// longBracket returns the level of a long bracket [==[ at i, or -1.
	longBracket := func(i int) int {
		if i >= n || src[i] != '[' {
			return -1
		}
		j := i + 1
		for j < n && src[j] == '=' {
			j++
		}
		if j < n && src[j] == '[' {
			return j - i - 1
		}
		return -1
	}
	// skipLong skips a long bracket of the level at i, returning the index after it.
	skipLong := func(i, level int) int {
		closing := "]" + strings.Repeat("=", level) + "]"
		i += level + 2
		end := strings.Index(string(src[i:]), closing)
		if end < 0 {
			end = n - i
		} else {
			end += len(closing)
		}
		line += strings.Count(string(src[i:i+end]), "\n")
		return i + end
	}
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '-' && i+1 < n && src[i+1] == '-':
			if lvl := longBracket(i + 2); lvl >= 0 {
				i = skipLong(i+2, lvl)
				continue
			}
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			start, l := i+1, line
			i++
			for i < n && src[i] != c {
				if src[i] == '\\' && i+1 < n {
					if src[i+1] == '\n' {
						line++
					}
					i++
				} else if src[i] == '\n' {
					break // unfinished string
				}
				i++
			}
			toks = append(toks, token{kind: tokString, text: string(src[start:min(i, n)]), line: l})
			i++
		case c == '[' && longBracket(i) >= 0:
			l := line
			start := i
			i = skipLong(i, longBracket(i))
			toks = append(toks, token{kind: tokString, text: string(src[start:min(i, n)]), line: l})
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			start := i
			for i < n && (src[i] == '_' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z' || src[i] >= '0' && src[i] <= '9') {
				i++
			}
			toks = append(toks, token{kind: tokName, text: string(src[start:i]), line: line})
		case c >= '0' && c <= '9':
			for i < n && (src[i] == '.' || src[i] == '_' || src[i] >= '0' && src[i] <= '9' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z') {
				i++
			}
			toks = append(toks, token{text: "0", line: line})
		case c == '=' && i+1 < n && src[i+1] == '=':
			toks = append(toks, token{text: "==", line: line})
			i += 2
		default:
			toks = append(toks, token{text: string(c), line: line})
			i++
		}
	}
	return toks
}
