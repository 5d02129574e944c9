package explore

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/luabind"
	"github.com/luaai/luaai/luatest"
)

// TestPath is where WriteTest writes the tests of script: in dir,
// <name>_explore_test.lua.
func TestPath(script, dir string) string {
	base := strings.TrimSuffix(filepath.Base(script), ".lua")
	return filepath.Join(dir, base+"_explore_test.lua")
}

// WriteTest writes a busted-style test file with one test per finding —
// its inputs replayed on fresh agents, failing while the failure is there
// — to TestPath(r.Script, dir), replacing any earlier one, then runs each
// test by itself and records whether it failed as it should (Verified).
// It returns the file's path; with no findings it writes nothing.
func (r *Report) WriteTest(dir string) (string, error) {
	if len(r.Findings) == 0 {
		return "", nil
	}
	path := TestPath(r.Script, dir)
	src := r.testSource(spawnPath(r.Script, dir))
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		return "", err
	}
	for _, f := range r.Findings {
		ok, err := failsAlone(path, f.Test, r.game)
		if err != nil {
			return path, err
		}
		f.Verified = ok
	}
	return path, nil
}

// spawnPath is how the test names the script: relative to the test's
// folder when the script is inside it, else as given (ai.spawn also looks
// in the folder luaai test runs from).
func spawnPath(script, dir string) string {
	as, err1 := filepath.Abs(script)
	ad, err2 := filepath.Abs(dir)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(ad, as); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(script)
}

// testName is the name of the test of the i-th finding (1-based).
func testName(i int, f *Finding) string {
	msg := f.Message
	if len(msg) > 60 {
		msg = strings.ToValidUTF8(msg[:60], "") + "..."
	}
	return fmt.Sprintf("failure %d: %s", i, oneLine(msg))
}

func (r *Report) testSource(spawn string) string {
	var b strings.Builder
	name := filepath.Base(r.Script)
	fmt.Fprintf(&b, "-- Written by luaai explore (seed %d, %d agent%s). Each test replays the\n", r.Seed, r.Agents, plural(r.Agents))
	fmt.Fprintf(&b, "-- fewest inputs found that make %s fail, on fresh agents, and fails\n", name)
	b.WriteString("-- until the script is fixed: keep them as regression tests. Run one by\n")
	b.WriteString("-- itself (luaai test --filter \"failure 1:\") to replay it exactly.\n")
	b.WriteString("local ai = require(\"luaai\")\n\n")
	b.WriteString("-- no_errors fails with the first error the agent reported.\n")
	b.WriteString("local function no_errors(agent)\n")
	b.WriteString("  local errs = agent:errors()\n")
	b.WriteString("  local first = errs[1]\n")
	b.WriteString("  assert.are.equal(0, #errs, first and (first.message .. \" (state \" .. first.state .. \", \" .. first.callback .. \")\"))\n")
	b.WriteString("end\n\n")
	fmt.Fprintf(&b, "describe(%s, function()\n", luabind.Quote(name+" explored"))
	for i, f := range r.Findings {
		f.Test = testName(i+1, f)
		comment(&b, fmt.Sprintf("%s (state %s, %s; agent %d)", oneLine(f.Message), f.State, f.Callback, f.Agent))
		comment(&b, "inputs: "+oneLine(f.Words))
		fmt.Fprintf(&b, "  it(%s, function()\n", luabind.Quote(f.Test))
		for a := 1; a <= r.Agents; a++ {
			fmt.Fprintf(&b, "    local a%d = ai.spawn(%s)\n", a, luabind.Quote(spawn))
		}
		for _, s := range f.Inputs {
			writeStep(&b, s, r.Agents)
		}
		for a := 1; a <= r.Agents; a++ {
			fmt.Fprintf(&b, "    no_errors(a%d)\n", a)
		}
		b.WriteString("  end)\n")
		if i < len(r.Findings)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString("end)\n")
	return b.String()
}

// comment writes text as Lua comments of at most about 100 characters a
// line, broken at spaces.
func comment(b *strings.Builder, text string) {
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > 96 {
			fmt.Fprintf(b, "  -- %s\n", line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	fmt.Fprintf(b, "  -- %s\n", line)
}

func writeStep(b *strings.Builder, s Step, agents int) {
	switch s.Op {
	case OpTick:
		var ticks []string
		for a := 1; a <= agents; a++ {
			ticks = append(ticks, fmt.Sprintf("a%d:tick(%s)", a, luaNumber(s.Dt)))
		}
		if s.N == 1 {
			fmt.Fprintf(b, "    %s\n", strings.Join(ticks, "; "))
			return
		}
		fmt.Fprintf(b, "    for _ = 1, %d do %s end\n", s.N, strings.Join(ticks, "; "))
	case OpSend:
		payload := ""
		if s.Payload != nil {
			payload = ", " + s.Payload.lua()
		}
		fmt.Fprintf(b, "    a%d:send(%s%s)\n", s.Agent%agents+1, luabind.Quote(s.Event), payload)
	case OpSet:
		fmt.Fprintf(b, "    a%d.ctx%s = %s\n", s.Agent%agents+1, fieldAccess(s.Key), s.Value.lua())
	}
}

func fieldAccess(key string) string {
	if luabind.IsName(key) {
		return "." + key
	}
	return "[" + luabind.Quote(key) + "]"
}

// oneLine makes a message safe in a Lua comment: every control character
// (a "\r" would end the comment, and what follows would run) becomes a
// space.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// verifyBudget is how long one callback of a written test may run when
// WriteTest runs it.
var verifyBudget = 2 * time.Second

// failsAlone runs the one test named name of the file at path, by itself
// in a fresh host as luaai test --filter would (with the game's modules
// and functions), and tells whether it failed.
func failsAlone(path, name string, game host.Options) (bool, error) {
	h, err := host.New(host.Options{
		Roots: []string{filepath.Dir(path), "."}, Budget: verifyBudget, Stdout: io.Discard,
		Modules: game.Modules, Funcs: game.Funcs,
	})
	if err != nil {
		return false, err
	}
	defer h.Close()
	res := luatest.RunFile(h, path, io.Discard, luatest.Options{Filter: literalPattern(name) + "$"})
	return res.Failed == 1 && res.Passed == 0, nil
}

// literalPattern is a Lua pattern matching s literally.
func literalPattern(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c < 0x80 && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == ' ') {
			b.WriteByte('%')
		}
		b.WriteRune(c)
	}
	return b.String()
}
