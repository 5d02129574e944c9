package luabind

// The differential test of the pattern functions: generated subjects and
// patterns go through string.find, match, gmatch and gsub in PUC Lua 5.1
// (the lua5.1 command) and in a luaai VM, and the printed results, error
// messages included, must be the same.

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// patternTokens are what generated patterns are made of: every kind of
// item, quantifier, anchor and capture, and the malformed ones.
var patternTokens = []string{
	"a", "b", "x", ".", "%a", "%d", "%s", "%w", "%p", "%u", "%l", "%c", "%x", "%A", "%S", "%.", "%%",
	"[ab]", "[^a]", "[a-c]", "[%d%s]", "[]]", "[^]]", "[a-]", "%b()", "%bab", "%f[%a]", "%f[%s]",
	"(", ")", "()", "*", "+", "-", "?", "^", "$", "%1", "%2", "%", "[", "]", "%b", "%f",
}

// subjectBytes are what generated subjects are made of.
const subjectBytes = "aab(x).%- []^$1A\t\x00\xff"

// luaBytes writes s as a Lua string literal that means the same bytes in
// any Lua.
func luaBytes(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "\\%03d", c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// patternProgram is a Lua chunk that prints, for each case, what the four
// functions give (errors without their position).
func patternProgram(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString(`local function esc(s)
  local t = {}
  for i = 1, #s do
    local c = s:byte(i)
    if c < 32 or c > 126 then t[#t + 1] = "\\" .. c else t[#t + 1] = string.char(c) end
  end
  return table.concat(t)
end
local function show(...)
  local t = {}
  for i = 1, select("#", ...) do t[#t + 1] = esc(tostring((select(i, ...)))) end
  return table.concat(t, " ")
end
local function try(f, ...)
  local r = { pcall(f, ...) }
  if not r[1] then
    local msg = tostring(r[2])
    local at = msg:find(": ", 1, true)
    if at and msg:sub(1, 12) == "patterns.lua" then msg = msg:sub(at + 2) end
    return "error: " .. esc(msg)
  end
  return show(unpack(r, 2, table.maxn(r)))
end
local function gm(s, p)
  local out, n = {}, 0
  for a, b2, c in string.gmatch(s, p) do
    n = n + 1
    out[#out + 1] = show(a, b2, c)
    if n == 8 then break end
  end
  return table.concat(out, "|")
end
local function fn(...) return "{" .. show(...) .. "}" end
local cases = {
`)
	for i := 0; i < n; i++ {
		var s, p strings.Builder
		for j := r.IntN(12); j > 0; j-- {
			s.WriteByte(subjectBytes[r.IntN(len(subjectBytes))])
		}
		for j := r.IntN(6); j >= 0; j-- {
			p.WriteString(patternTokens[r.IntN(len(patternTokens))])
		}
		init := r.IntN(s.Len()+5) - 3
		fmt.Fprintf(&b, "{%s, %s, %d},\n", luaBytes(s.String()), luaBytes(p.String()), init)
	}
	b.WriteString(`}
for i, c in ipairs(cases) do
  local s, p, init = c[1], c[2], c[3]
  print(i, try(string.find, s, p, init))
  print(i, try(string.match, s, p, init))
  print(i, try(gm, s, p))
  print(i, try(string.gsub, s, p, "<%0>"))
  print(i, try(string.gsub, s, p, fn, 3))
  print(i, try(string.gsub, s, p, { a = "A", [""] = "E" }))
end
`)
	return b.String()
}

func TestPatternsAgainstLua51(t *testing.T) {
	bin, err := exec.LookPath("lua5.1")
	if err != nil {
		t.Skip("lua5.1 not on PATH (apt-get install lua5.1)")
	}
	for seed := uint64(1); seed <= 4; seed++ {
		src := patternProgram(rand.New(rand.NewPCG(seed, 99)), 1500)
		want := dlRunLua51(bin, t.TempDir(), "patterns.lua", src, time.Minute)
		require.Empty(t, want.err, "lua5.1 failed")

		vm := NewVM(Options{Budget: time.Minute})
		var out strings.Builder
		vm.opts.Stdout = &out
		_, err := vm.RunString("patterns.lua", src)
		vm.Close()
		require.NoError(t, err)

		gotLines, wantLines := strings.Split(out.String(), "\n"), strings.Split(want.out, "\n")
		require.Equal(t, len(wantLines), len(gotLines), "seed %d: line counts differ", seed)
		var diffs []string
		for i := range wantLines {
			if gotLines[i] != wantLines[i] {
				caseNo := strings.SplitN(wantLines[i], "\t", 2)[0]
				diffs = append(diffs, fmt.Sprintf("case %s:\n  lua5.1: %q\n  luaai:  %q", caseNo, wantLines[i], gotLines[i]))
			}
		}
		if len(diffs) > 0 {
			t.Errorf("seed %d: %d of %d results differ; the first:\n%s\n(cases are in the generated program)", seed, len(diffs), len(wantLines), strings.Join(diffs[:min(len(diffs), 12)], "\n"))
		}
	}
}
