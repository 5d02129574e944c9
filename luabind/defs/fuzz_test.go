package defs

// Fuzz tests. A short pass runs the seeds with `go test`; a real run:
//
//	go test ./luabind -run XXX -fuzz FuzzCompileAndLoad -fuzztime 60s
//	go test ./luabind -run XXX -fuzz FuzzDefinition -fuzztime 60s
//	go test ./luabind -run XXX -fuzz FuzzPattern -fuzztime 60s
//
// Crashers found are kept under testdata/fuzz/<FuzzName>/ and run as
// regression tests by every `go test`.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/internal/fuzzgen"
	"github.com/luaai/luaai/internal/scripterr"
	"github.com/luaai/luaai/luabind"
)

// fuzzVM is the VM the fuzz targets load into: short budgets, a small string
// cap, print to nowhere.
func fuzzVM() *VM {
	return NewVM(luabind.Options{Budget: 10 * time.Millisecond, LoadBudget: 10 * time.Millisecond, MaxString: 1 << 20, Stdout: io.Discard})
}

// checkLoadError checks an error from Compile or LoadProto: an ErrorList
// (a *BudgetError unwraps to one) whose entries name the file, and not a Go
// runtime panic of luabind's own code surfacing as a script error.
func checkLoadError(t *testing.T, err error, file string, needLine bool) {
	t.Helper()
	var list scripterr.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is a %T, not an ErrorList: %v", err, err)
	}
	if len(list) == 0 {
		t.Fatalf("empty ErrorList")
	}
	for _, e := range list {
		if e.Pos.File == "" {
			t.Fatalf("error without a file: %q", e.Msg)
		}
		// Two errors have no line to give: a script that returns no machine,
		// and gopher-lua's "register overflow", which it reports at the line
		// the function was defined, 0 for the main chunk.
		if needLine && e.Pos.Line <= 0 && !strings.HasPrefix(e.Msg, "the script must return") && !strings.HasPrefix(e.Msg, "register overflow") {
			t.Fatalf("error without a line: %v", e)
		}
		if strings.Contains(e.Msg, "runtime error:") || strings.Contains(e.Msg, "invalid memory address") {
			t.Fatalf("a Go panic surfaced as a script error: %v", e)
		}
	}
}

func addLuaSeeds(f *testing.F) {
	for _, glob := range []string{"../../scripts/*.lua", "../../examples/*/*.lua", "../testdata/dialect/*.lua"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			if src, err := os.ReadFile(file); err == nil && len(src) < 8<<10 {
				f.Add(string(src))
			}
		}
	}
	for _, s := range []string{
		"", "return", "return 1", "local ai = require('luaai') return ai.fsm{initial = 'a', states = {a = {}}}",
		"while true do end", "local function f() return f() end return f()", "local function f() return f() + 1 end f()",
		"return ('x'):rep(2^40)", "return string.format('%999d', 1)", "error({})", "error('x', 0)", "error()",
		"goto l ::l::", "local a, b = 1 a, b = b, a", "return ...", "return function(...) return select('#', ...) end",
		"x = ", "return 1 +", "(", "'", "[[", "--[[", "return 0x", "return 1e", "for i = 1, 2, 0 do end",
		"return unpack({}, 1, 1e7)", "return ('a'):rep(1e5):find('a*b')", "setmetatable(1, {})",
		"return load(function() return nil end)", "return coroutine.wrap(function() while true do end end)()",
		"return require('/etc/passwd')", "return require('../x')", "local t = setmetatable({}, {__index = function(t, k) return t[k] end}) return t.x",
	} {
		f.Add(s)
	}
}

func FuzzCompileAndLoad(f *testing.F) {
	addLuaSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		const name = "scripts/fuzz.lua"
		proto, err := luabind.Compile(strings.NewReader(src), name)
		if err != nil {
			checkLoadError(t, err, name, true)
			return
		}
		vm := fuzzVM()
		defer vm.Close()
		top := vm.L.GetTop()
		if _, err := vm.LoadProto(proto); err != nil {
			checkLoadError(t, err, name, false)
		}
		if vm.L.GetTop() != top {
			t.Fatalf("stack not balanced: %d, was %d", vm.L.GetTop(), top)
		}
	})
}

func FuzzDefinition(f *testing.F) {
	for _, seed := range []string{
		"", "\x00", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a",
		strings.Repeat("\x02\x01\x00", 20), strings.Repeat("\xff\x7f\x33", 30),
		"\x01\x03\x02\x00\x00\x02\x00\x04\x00\x00\x01\x00", "fsm utility states transitions score",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "scripts/def.lua"
		src := fuzzgen.Definition(data)
		proto, err := luabind.Compile(strings.NewReader(src), name)
		if err != nil {
			t.Fatalf("the generator wrote invalid Lua: %v\n%s", err, src)
		}
		vm := fuzzVM()
		defer vm.Close()
		m, err := vm.LoadProto(proto)
		if err != nil {
			checkLoadError(t, err, name, true)
			return
		}
		if m == nil {
			t.Fatalf("no machine and no error:\n%s", src)
		}
		for _, w := range Warnings(m) {
			if w.Pos.File == "" {
				t.Fatalf("warning without a file: %v", w)
			}
		}
	})
}

// TestFuzzGeneratorWritesLua checks the definition generator writes valid
// Lua for assorted bytes.
func TestFuzzGeneratorWritesLua(t *testing.T) {
	for i := 0; i < 200; i++ {
		data := []byte(fmt.Sprintf("%d-%x-%d", i, i*7919, i*i))
		src := fuzzgen.Definition(data)
		_, err := luabind.Compile(strings.NewReader(src), "gen.lua")
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
	}
}
