package srcpos

import "strings"

// Written is where one state of a machine is written: the line of its key
// in the machine's `states`, and the line of each entry of its
// `transitions`.
type Written struct {
	Name  string
	Line  int
	Trans []int
	// Fields is the line of each `name = …` entry of a plain-table state
	// (hooks, every, steps, …).
	Fields map[string]int
}

// Machine finds the table constructor of the ai.<kind> call on the given
// line (the first `{` after the word kind, a call may put its table on a
// later line) and lists where each entry of its `states` is written. nil
// when there is no such constructor, or an entry of `states` has no name
// key.
func Machine(toks []Token, line int, kind string) []Written {
	open := callTable(toks, line, kind)
	if open < 0 {
		return nil
	}
	return machineStates(toks, open)
}

// Fields finds the table constructor of the ai.<kind> call on the given
// line, as Machine does, and returns the line of each of its `name = …`
// entries (initial, context, states, a misspelt field…). nil when there
// is no such constructor.
func Fields(toks []Token, line int, kind string) map[string]int {
	open := callTable(toks, line, kind)
	if open < 0 {
		return nil
	}
	out := map[string]int{}
	for _, e := range tableEntries(toks, open) {
		if e.key != "" {
			out[e.key] = toks[e.start].line
		}
	}
	return out
}

// callTable is the index of the `{` of the ai.<kind> call on line, or -1.
func callTable(toks []Token, line int, kind string) int {
	open := -1
	for i := 0; i+1 < len(toks) && open < 0; i++ {
		t := toks[i]
		if t.line < line {
			continue
		}
		if t.line > line {
			break
		}
		if t.kind == tokName && t.text == kind {
			for j := i + 1; j < len(toks); j++ {
				if toks[j].punct("{") {
					open = j
					break
				}
				if !toks[j].punct("(") {
					break
				}
			}
		}
	}
	return open
}

// machineStates lists where each entry of the `states` of the machine
// constructor at toks[open] is written.
func machineStates(toks []Token, open int) []Written {
	states, ok := field(toks, open, "states")
	if !ok || !toks[states].punct("{") {
		return nil
	}
	var out []Written
	for _, e := range tableEntries(toks, states) {
		if e.key == "" {
			return nil
		}
		w := Written{Name: e.key, Line: toks[e.start].line}
		if t := valueTable(toks, e.value, e.end); t >= 0 {
			for _, f := range tableEntries(toks, t) {
				if f.key != "" {
					if w.Fields == nil {
						w.Fields = map[string]int{}
					}
					w.Fields[f.key] = toks[f.start].line
				}
			}
			if list, ok := field(toks, t, "transitions"); ok && toks[list].punct("{") {
				for _, tr := range tableEntries(toks, list) {
					w.Trans = append(w.Trans, toks[tr.start].line)
				}
			}
		}
		out = append(out, w)
	}
	return out
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
func tableEntries(toks []Token, open int) []entry {
	var out []entry
	depth := 0
	start := open + 1
	flush := func(end int) {
		if end <= start {
			return
		}
		e := entry{start: start, end: end, value: start}
		switch {
		case end-start >= 2 && toks[start].kind == tokName && toks[start+1].punct("="):
			e.key, e.value = toks[start].text, start+2
		case end-start >= 4 && toks[start].punct("[") && toks[start+1].kind == tokString &&
			toks[start+2].punct("]") && toks[start+3].punct("="):
			e.key, e.value = toks[start+1].text, start+4
		}
		out = append(out, e)
	}
	for i := open + 1; i < len(toks); i++ {
		if toks[i].kind != tokOther {
			continue // a string "}" closes nothing
		}
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
func field(toks []Token, open int, key string) (int, bool) {
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
func valueTable(toks []Token, from, end int) int {
	for i := from; i < end; i++ {
		switch t := toks[i]; {
		case t.punct("{"):
			return i
		case t.kind == tokName, t.punct("."), t.punct("("):
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

// Token is a name, a string or a piece of punctuation, with its line.
type Token struct {
	kind tokKind
	text string // a string's contents, without quotes or escapes resolved
	line int
}

// punct reports whether t is the punctuation p (not a string holding it).
func (t Token) punct(p string) bool { return t.kind == tokOther && t.text == p }

// Tokenize splits Lua 5.1 source into names, strings and punctuation (with
// "==" kept whole), skipping comments, numbers' insides and whitespace.
// It never fails: odd input gives odd tokens, which locate rejects.
//
// It is long because it is the whole Lua tokenizer, one switch over the
// first character of a token.
func Tokenize(src []byte) []Token {
	var toks []Token
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
			toks = append(toks, Token{kind: tokString, text: string(src[start:min(i, n)]), line: l})
			i++
		case c == '[' && longBracket(i) >= 0:
			l := line
			start := i
			i = skipLong(i, longBracket(i))
			toks = append(toks, Token{kind: tokString, text: string(src[start:min(i, n)]), line: l})
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			start := i
			for i < n && (src[i] == '_' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z' || src[i] >= '0' && src[i] <= '9') {
				i++
			}
			toks = append(toks, Token{kind: tokName, text: string(src[start:i]), line: line})
		case c >= '0' && c <= '9':
			for i < n && (src[i] == '.' || src[i] == '_' || src[i] >= '0' && src[i] <= '9' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z') {
				i++
			}
			toks = append(toks, Token{text: "0", line: line})
		case c == '=' && i+1 < n && src[i+1] == '=':
			toks = append(toks, Token{text: "==", line: line})
			i += 2
		default:
			toks = append(toks, Token{text: string(c), line: line})
			i++
		}
	}
	return toks
}
