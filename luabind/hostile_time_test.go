package luabind

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// hostileTime are scripts that make Go work long on their behalf. Each is
// a runaway the budget must stop: the test tells stopped from hung (a
// loaded machine makes exact times flaky); the times are logged, and the
// README records what they measure.
var hostileTime = []struct{ name, src string }{
	{"load of a huge chunk", `local s = string.rep("local a = 1 ", 1398101) return assert(load(s))`},
	{"load of a 512 KiB chunk", `local s = string.rep("local a = 1 ", 43000) while true do load(s) end`},
	{"os.date with a huge format", `local f = string.rep("%c", 8000000) return os.date(f)`},
	{"self-nesting coroutine.wrap", `local function f() return coroutine.wrap(f)() end return f()`},
	{"self-nesting coroutine.resume", `local function f() local co = coroutine.create(f) return assert(coroutine.resume(co)) end return f()`},
	{"pattern", `return ("a"):rep(5000):find(".-.-.-.-.-b")`},
	{"gsub", `return (("a"):rep(4e6)):gsub("[%a%d]", "b")`},
	{"table.concat", `local t = {} for i = 1, 1e6 do t[i] = "x" end for i = 1, 100 do table.concat(t) end`},
	{"string.rep loop", `local s = "" for i = 1, 1e9 do s = string.rep("x", 1e6) end`},
	{"tostring loop", `while true do tostring({}) end`},
	{"sort with a slow comparator", `local t = {} for i = 1, 2e5 do t[i] = -i end table.sort(t, function(a, b) for i = 1, 100 do end return a < b end)`},
	{"unpack", `local t = {} for i = 1, 2e5 do t[i] = i end while true do local x = {unpack(t)} end`},
	{"string.format %s of a big string", `local s = ("x"):rep(4e6) while true do local y = string.format("%s%s", s, s) end`},
}

func TestHostileTimeIsBudgeted(t *testing.T) {
	const budget = 50 * time.Millisecond
	for _, tc := range hostileTime {
		t.Run(tc.name, func(t *testing.T) {
			vm := NewVM(Options{Budget: budget})
			defer vm.Close()
			proto, err := Compile(stringsReader(`local f = function() `+tc.src+` end return f`), "hostile.lua")
			require.NoError(t, err)
			fn, err := vm.RunProto(proto)
			require.NoError(t, err)
			start := time.Now()
			done := make(chan error, 1)
			go func() {
				_, err := vm.Call(fn.(*lfn))
				done <- err
			}()
			select {
			case err := <-done:
				took := time.Since(start)
				t.Logf("%s: %q after %v", tc.name, firstLine(err), took)
				require.Error(t, err)
			case <-time.After(30 * time.Second):
				t.Fatal("not stopped: hung")
			}
		})
	}
}

type lfn = lua.LFunction

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

func firstLine(err error) string {
	if err == nil {
		return ""
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
