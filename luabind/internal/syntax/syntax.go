package syntax

import (
	"bytes"
	"fmt"

	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// opening is a block or bracket not closed yet.
type opening struct {
	tok    string // "function", "if", "while", "for", "do", "repeat", "(", "{", "["
	line   int
	awaits bool // a while or for whose "do", an if whose "then", has not come yet
}

var closers = map[string]string{"(": ")", "{": "}", "[": "]", "repeat": "until"}

func (o opening) closer() string {
	if c, ok := closers[o.tok]; ok {
		return c
	}
	return "end"
}

func (o opening) bracket() bool { return o.tok == "(" || o.tok == "{" || o.tok == "[" }

// Explain looks at a chunk the parser refused at line errLine (0: at the
// end) and returns a better message and its line, or ok false when it has
// nothing better to say.
//
// It is long because it is one scan over the tokens that tracks the open
// blocks and brackets, with a case per mistake it explains.
func Explain(src []byte, errLine int) (line int, msg string, ok bool) {
	sc := parse.NewScanner(bytes.NewReader(src), "")
	var lx parse.Lexer
	var stack []opening
	var prev ast.Token
	found := func(l int, format string, args ...any) (int, string, bool) {
		if errLine > 0 && l > errLine {
			return 0, "", false
		}
		return l, fmt.Sprintf(format, args...), true
	}
	unclosed := func(near string, l int) (int, string, bool) {
		top := stack[len(stack)-1]
		return found(l, "'%s' expected (to close '%s' at line %d) near %s", top.closer(), top.tok, top.line, near)
	}
	for {
		tok, err := sc.Scan(&lx)
		if err != nil {
			return 0, "", false // the scanner's own message says it
		}
		lx.PrevTokenType = tok.Type
		near := "'" + tok.Str + "'"
		l := tok.Pos.Line
		if tok.Type == parse.EOF {
			if len(stack) == 0 || (errLine > 0 && prev.Pos.Line > errLine) {
				return 0, "", false
			}
			return unclosed("<eof>", 0) // line 0: the end of the chunk
		}
		inBracket := len(stack) > 0 && stack[len(stack)-1].bracket()
		switch tok.Type {
		case parse.TLocal, parse.TReturn, parse.TBreak, parse.TIf, parse.TWhile, parse.TFor,
			parse.TRepeat, parse.TGoto, parse.TThen, parse.TDo, parse.TElse, parse.TElseIf, parse.TUntil, parse.TEnd:
			// A statement word inside a bracket: the bracket was not closed.
			if inBracket {
				return unclosed(near, l)
			}
		}
		if n := len(stack); n > 0 && stack[n-1].awaits && valueEnds(prev) && valueStarts(tok) {
			// The condition has ended, and no "do" or "then" came.
			word := "do"
			if stack[n-1].tok == "if" {
				word = "then"
			}
			return found(l, "'%s' expected near %s", word, near)
		}
		if inBracket && valueEnds(prev) && valueStarts(tok) {
			top := stack[len(stack)-1]
			if top.tok == "{" || top.tok == "(" {
				if prev.Pos.Line == l {
					return found(l, "',' or '%s' expected near %s (a comma missing before %s?)", top.closer(), near, near)
				}
				return found(l, "',' or '%s' expected near %s (a comma missing after line %d?)", top.closer(), near, prev.Pos.Line)
			}
		}
		switch tok.Type {
		case parse.TFunction:
			stack = append(stack, opening{tok: "function", line: l})
		case parse.TIf:
			stack = append(stack, opening{tok: "if", line: l, awaits: true})
		case parse.TElseIf:
			if n := len(stack); n > 0 && stack[n-1].tok == "if" {
				stack[n-1].awaits = true
			}
		case parse.TThen:
			if n := len(stack); n > 0 && stack[n-1].tok == "if" {
				stack[n-1].awaits = false
			}
		case parse.TWhile:
			stack = append(stack, opening{tok: "while", line: l, awaits: true})
		case parse.TFor:
			stack = append(stack, opening{tok: "for", line: l, awaits: true})
		case parse.TRepeat:
			stack = append(stack, opening{tok: "repeat", line: l})
		case parse.TDo:
			if n := len(stack); n > 0 && stack[n-1].awaits {
				stack[n-1].awaits = false
			} else {
				stack = append(stack, opening{tok: "do", line: l})
			}
		case '(', '{', '[':
			stack = append(stack, opening{tok: string(rune(tok.Type)), line: l})
		case parse.TEnd, parse.TUntil, ')', '}', ']':
			word := tok.Str
			if len(stack) == 0 {
				return found(l, "'<eof>' expected near %s (nothing is open here to close)", near)
			}
			if top := stack[len(stack)-1]; top.closer() != word {
				return unclosed(near, l)
			}
			stack = stack[:len(stack)-1]
		}
		prev = tok
	}
}

// valueEnds: prev can end an expression.
func valueEnds(t ast.Token) bool {
	switch t.Type {
	case parse.TIdent, parse.TNumber, parse.TString, parse.TTrue, parse.TFalse, parse.TNil, parse.T3Comma, parse.TEnd, ')', '}', ']':
		return true
	}
	return false
}

// valueStarts: t starts an expression that cannot continue the previous
// one (a string, a table or a bracket after a value is a call or an index).
func valueStarts(t ast.Token) bool {
	switch t.Type {
	case parse.TIdent, parse.TNumber, parse.TTrue, parse.TFalse, parse.TNil, parse.TFunction, parse.TNot, parse.T3Comma, '#':
		return true
	}
	return false
}
