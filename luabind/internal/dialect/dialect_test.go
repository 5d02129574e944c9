package dialect

import (
	"strings"
	"testing"

	"github.com/yuin/gopher-lua/parse"
)

// The pass counts what it rewrites; statements gopher-lua compiles right
// are left alone (luabind's dialect tests run the rewritten programs
// against PUC Lua 5.1).
func TestPassCounts(t *testing.T) {
	cases := []struct {
		src  string
		want Stats
	}{
		{"local a, b = 1, 2\na, b = 3, 4", Stats{}},
		{"local a, b = 1, 2\na, b = b, a", Stats{Assigns: 1}},
		{"local f = function() return f end", Stats{LocalFuncs: 1}},
		{"local function f() return f end", Stats{}},
		{"for k, v in next, {} do end", Stats{Loops: 1}},
	}
	for _, tc := range cases {
		chunk, err := parse.Parse(strings.NewReader(tc.src), "t.lua")
		if err != nil {
			t.Fatal(err)
		}
		if _, got := Pass(chunk); got != tc.want {
			t.Errorf("%q: got %+v, want %+v", tc.src, got, tc.want)
		}
	}
}
