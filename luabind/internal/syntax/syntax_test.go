package syntax

import (
	"os"
	"path/filepath"
	"testing"

	"bytes"
	"github.com/stretchr/testify/require"
	"github.com/yuin/gopher-lua/parse"
)

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int
		msg  string
	}{
		{"local t = {\n  a = 1\n  b = 2,\n}\n", 3, "',' or '}' expected near 'b' (a comma missing after line 2?)"},
		{"local x = {1, 2\nlocal y = 3\n", 2, "'}' expected (to close '{' at line 1) near 'local'"},
		{"if x then\n  y = 1\n", 0, "'end' expected (to close 'if' at line 1) near <eof>"},
		{"local function f()\n  return 1\n\nreturn f\n", 0, "'end' expected (to close 'function' at line 1) near <eof>"},
		{"x = f(1, 2\nreturn x\n", 2, "')' expected (to close '(' at line 1) near 'return'"},
		{"local t = {\n  b = f(1, 2\n}\n", 3, "')' expected (to close '(' at line 2) near '}'"},
		{"for i = 1, 3\n  x = i\nend\n", 2, "'do' expected near 'x'"},
		{"while a and\n  b\n  x = 1\nend\n", 3, "'do' expected near 'x'"},
		{"if x y = 1 end\n", 1, "'then' expected near 'y'"},
		{"if a then\nelseif b\n  y = 1\nend\n", 3, "'then' expected near 'y'"},
		{"local x = 1\nend\n", 2, "'<eof>' expected near 'end' (nothing is open here to close)"},
		{"repeat\n  x = 1\nend\n", 3, "'until' expected (to close 'repeat' at line 1) near 'end'"},
		{"f(a b)\n", 1, "',' or ')' expected near 'b' (a comma missing before 'b'?)"},
	} {
		_, perr := parse.Parse(bytes.NewReader([]byte(tc.src)), "x")
		require.Error(t, perr, tc.src)
		line, msg, ok := Explain([]byte(tc.src), 0)
		require.True(t, ok, tc.src)
		require.Equal(t, tc.msg, msg, tc.src)
		require.Equal(t, tc.line, line, tc.src)
	}
}

// An answer past the parser's line is not taken.
func TestExplainNeverLater(t *testing.T) {
	_, _, ok := Explain([]byte("local x = = 1\nlocal t = {\n"), 1)
	require.False(t, ok)
}

// Valid chunks (the shipped scripts, real libraries, calls without
// brackets, multi-line conditions) draw no explanation: Explain has no
// false alarms on what parses.
func TestExplainQuietOnValidCode(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../../scripts/*.lua", "../../../cmd/luaai/testdata/libs/*/*.lua", "../../../cmd/luaai/testdata/libs/*/*/*.lua", "../../../cmd/luaai/testdata/libs/*/*/*/*.lua"} {
		m, err := filepath.Glob(glob)
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.Greater(t, len(files), 15)
	srcs := [][]byte{
		[]byte("f \"a\" f {1} t = {f \"x\", g {2}, h[1], (k)(1)}\nwhile a and\n b do end\nif a\n then end\nfor i = 1, 2 do end\nrepeat until x\nlocal t = {a = function() end, b = 1}\n"),
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		srcs = append(srcs, src)
	}
	for i, src := range srcs {
		if _, err := parse.Parse(bytes.NewReader(src), "x"); err != nil {
			continue // a file that does not parse is not a valid chunk
		}
		line, msg, ok := Explain(src, 0)
		require.False(t, ok, "%d: %d: %s", i, line, msg)
	}
}

// Explain never panics, and says nothing of a chunk that parses.
func FuzzExplain(f *testing.F) {
	for _, s := range []string{"if x then", "t = {a = 1 b = 2}", "f(a b)", "repeat end", "for i = 1, 2 x = 1 end", "local s = [[", "x = 1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		line, msg, ok := Explain(src, 0)
		if _, err := parse.Parse(bytes.NewReader(src), "x"); err == nil && ok {
			t.Fatalf("valid chunk explained as %d: %s", line, msg)
		}
	})
}
