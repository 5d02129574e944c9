package luabind

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/luaai/luaai/internal/scripterr"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// sandboxRun runs src as scripts/sandbox.lua in a fresh NewVM(opts).
func sandboxRun(t *testing.T, opts Options, src string) (lua.LValue, error) {
	t.Helper()
	vm := NewVM(opts)
	t.Cleanup(vm.Close)
	return vm.RunString("scripts/sandbox.lua", src)
}

// TestSandboxUnreachable checks that each escape is out of a script's
// reach: what is left out is nil, and a use of it (a call, an index of io)
// raises "X is not available to luaai scripts" at the caller's line (a
// refusal reads as one, not as a bug).
func TestSandboxUnreachable(t *testing.T) {
	for _, name := range []string{
		"_printregs", "package.loaders",
		"package.searchers", "package.seeall", "channel",
	} {
		t.Run(name, func(t *testing.T) {
			v, err := sandboxRun(t, Options{}, "return "+name)
			require.NoError(t, err)
			require.Equal(t, lua.LNil, v, "%s is reachable", name)
		})
	}
	for _, tc := range []struct{ call, name string }{
		{`io.open("/etc/passwd")`, "io.open"}, {`io.write("x")`, "io.write"}, {`local f = io.lines`, "io.lines"},
		{`os.execute("echo pwned")`, "os.execute"}, {`os.exit(1)`, "os.exit"},
		{`os.remove("x")`, "os.remove"}, {`os.rename("a", "b")`, "os.rename"}, {`os.getenv("HOME")`, "os.getenv"},
		{`os.setenv("A", "b")`, "os.setenv"}, {`os.tmpname()`, "os.tmpname"}, {`os.setlocale("C")`, "os.setlocale"},
		{`dofile("/etc/passwd")`, "dofile"}, {`loadfile("/etc/passwd")`, "loadfile"}, {`getfenv(1)`, "getfenv"},
		{`setfenv(1, {})`, "setfenv"}, {`debug.getinfo(1)`, "debug.getinfo"}, {`debug.sethook()`, "debug.sethook"},
		{`io:write("x")`, "io.write"}, {`local x = io["open"]`, "io.open"}, {`io.open = print`, "io.open"},
		{`collectgarbage()`, "collectgarbage"}, {`gcinfo()`, "gcinfo"}, {`package.loadlib("x", "y")`, "package.loadlib"},
		{`module("x")`, "module"}, {`string.dump(print)`, "string.dump"},
		{`newproxy(true)`, "newproxy"},
	} {
		t.Run(tc.call, func(t *testing.T) {
			_, err := sandboxRun(t, Options{}, tc.call)
			require.Error(t, err)
			require.Equal(t, "scripts/sandbox.lua:1: "+tc.name+" is not available to luaai scripts", err.Error())
		})
	}
	// Nothing can be put in their place where another mod would see it.
	for _, src := range []string{`rawset(io, "open", print)`, `setmetatable(io, nil)`, `os.execute = print`, `debug.getinfo = print`, `("x").dump(print)`} {
		_, err := sandboxRun(t, Options{}, src)
		require.Error(t, err, src)
	}
}

// What is left out is nil, so the feature tests libraries make work as
// under any Lua without those names, and debug.traceback is there.
func TestSandboxAbsentIsNil(t *testing.T) {
	v, err := sandboxRun(t, Options{}, `
		local out = {}
		out[#out + 1] = tostring(io == nil) .. " " .. tostring(os.execute == nil) .. " " .. tostring(dofile == nil) .. " " .. tostring(setfenv == nil)
		local write = io and io.write or print
		out[#out + 1] = tostring(write == print)
		if debug and debug.getinfo then out[#out + 1] = "getinfo" else out[#out + 1] = "no getinfo" end
		local ok, tb = xpcall(function() error("boom") end, debug.traceback)
		out[#out + 1] = tostring(ok) .. " " .. tostring(tb:find("boom", 1, true) ~= nil) .. " " .. tostring(tb:find("stack traceback", 1, true) ~= nil)
		-- a mod's own global of a missing name is its own
		function collectgarbage() return "mine" end
		out[#out + 1] = collectgarbage()
		return table.concat(out, "|")`)
	require.NoError(t, err)
	require.Equal(t, "true true true true|true|no getinfo|false true true|mine", v.String())
}

// package.path and package.cpath are strings a script may change, as a
// busted spec helper does, to no effect: the script roots decide what
// require loads.
func TestSandboxPackagePath(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "near.lua"), []byte(`return "near"`), 0o644))
	for _, tc := range []struct{ name, src, want string }{
		{"strings", `return type(package.path) .. " " .. type(package.cpath)`, "string string"},
		{"appended", `package.path = package.path .. ";./?/init.lua"; return package.path`, PackagePath + ";./?/init.lua"},
		{"no C modules", `return package.cpath == "" and "none" or package.cpath`, "none"},
		{"changing it loads nothing new", `package.path = "/etc/?;/etc/?.lua"; local ok, err = pcall(require, "passwd"); return tostring(ok)`, "false"},
		{"emptying it keeps the roots", `package.path = ""; return require("near")`, "near"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := NewVM(Options{})
			t.Cleanup(vm.Close)
			v, err := vm.RunString(filepath.Join(dir, "main.lua"), tc.src)
			require.NoError(t, err)
			require.Equal(t, tc.want, v.String())
		})
	}
}

func TestSandboxWhatRemains(t *testing.T) {
	// The whitelist: base, string, table, math, coroutine, os.time/clock/date.
	v, err := sandboxRun(t, Options{}, `
		local names = {"assert", "error", "getmetatable", "ipairs", "load", "loadstring",
			"next", "pairs", "pcall", "print", "rawequal", "rawget", "rawset", "require",
			"select", "setmetatable", "tonumber", "tostring", "type", "unpack", "xpcall"}
		for _, n in ipairs(names) do assert(type(_G[n]) == "function", n) end
		for _, lib in ipairs({"string", "table", "math", "coroutine", "os", "package"}) do
			assert(type(_G[lib]) == "table", lib)
		end
		local os_keys = {}
		for k in pairs(os) do
			if pcall(os[k], 0, 0) or k == "clock" or k == "time" or k == "date" then
				os_keys[#os_keys + 1] = k
			end
		end
		table.sort(os_keys)
		return table.concat(os_keys, ",") .. " " .. os.difftime(10, 4)`)
	require.NoError(t, err)
	require.Equal(t, "clock,date,difftime,time 6", v.String(), "what os really offers (the rest refuses)")
}

func TestSandboxLoadSourceOnly(t *testing.T) {
	t.Run("reader function", func(t *testing.T) {
		_, err := sandboxRun(t, Options{}, `
			local parts = {"return ", "1"}
			local i = 0
			return load(function() i = i + 1 return parts[i] end)`)
		require.Error(t, err)
		require.Contains(t, err.Error(), "scripts/sandbox.lua:4: bad argument #1 to load (only source text can be loaded here (not a function))")
	})
	t.Run("loadstring of a table", func(t *testing.T) {
		_, err := sandboxRun(t, Options{}, `return loadstring({})`)
		require.ErrorContains(t, err, "only source text can be loaded here (not a table)")
	})
	t.Run("binary chunk", func(t *testing.T) {
		v, err := sandboxRun(t, Options{}, `
			local f, err = loadstring("\27LuaQ\0\1\4\8\4\8\0")
			assert(f == nil)
			return err`)
		require.NoError(t, err)
		require.NotEmpty(t, v.String())
	})
	t.Run("source text works", func(t *testing.T) {
		v, err := sandboxRun(t, Options{}, `return loadstring("return 1 + 2")() + load("return 4")()`)
		require.NoError(t, err)
		require.Equal(t, lua.LNumber(7), v)
	})
	t.Run("chunk names are not files", func(t *testing.T) {
		// A chunk named after a file elsewhere must not make require look
		// next to that file.
		dir := t.TempDir()
		outside := filepath.Join(dir, "outside")
		require.NoError(t, os.MkdirAll(outside, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.lua"), []byte(`return "leaked"`), 0o644))
		fake := filepath.Join(outside, "a.lua")
		_, err := sandboxRun(t, Options{}, `
			local f = assert(loadstring("return require('secret')", `+luaQuote(fake)+`))
			return f()`)
		require.Error(t, err)
		require.ErrorContains(t, err, "not found")
		// And errors in it show the name behind "=".
		_, err = sandboxRun(t, Options{}, `assert(loadstring("error('boom')", "named"))()`)
		require.ErrorContains(t, err, "=named:1: boom")
	})
}

func luaQuote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

func TestSandboxRequireRoots(t *testing.T) {
	dir := t.TempDir()
	scripts := filepath.Join(dir, "scripts")
	require.NoError(t, os.MkdirAll(filepath.Join(scripts, "lib"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secret.lua"), []byte(`return "leaked"`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(scripts, "lib", "util.lua"), []byte(`return "ok"`), 0o644))
	main := filepath.Join(scripts, "main.lua")
	abs := filepath.Join(dir, "secret")

	for _, tc := range []struct{ name, want string }{
		{`"lib.util"`, ""},
		{`"lib/util.lua"`, ""},
		{luaQuote(abs), "outside the allowed script roots"},
		{luaQuote(abs + ".lua"), "outside the allowed script roots"},
		{`"../secret"`, "outside the allowed script roots"},
		{`"../secret.lua"`, "outside the allowed script roots"},
		{`"lib/../../secret.lua"`, "outside the allowed script roots"},
		{`"..secret"`, "outside the allowed script roots"},
		{`"/etc/passwd"`, "outside the allowed script roots"},
		{`"secret"`, "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(main, []byte("return require("+tc.name+")"), 0o644))
			vm := NewVM(Options{})
			defer vm.Close()
			v, err := vm.RunFile(main)
			if tc.want == "" {
				require.NoError(t, err)
				require.Equal(t, "ok", v.String())
				return
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.Contains(t, err.Error(), main+":1:")
		})
	}
}

func TestSandboxMetatables(t *testing.T) {
	t.Run("string metatable is locked", func(t *testing.T) {
		v, err := sandboxRun(t, Options{}, `
			assert(("x"):rep(3) == "xxx")
			assert(("%d"):format(5) == "5")
			assert(getmetatable("") == "string")
			assert(getmetatable("").__index == nil)
			return ("abc"):upper()`)
		require.NoError(t, err)
		require.Equal(t, "ABC", v.String())
	})
	for _, src := range []string{
		`setmetatable("", {__index = function() return "pwned" end})`,
		`setmetatable(1, {__index = function() return "pwned" end})`,
		`setmetatable(print, {__index = {}})`,
		`setmetatable(true, {})`,
		`setmetatable(nil, {})`,
	} {
		t.Run(src, func(t *testing.T) {
			_, err := sandboxRun(t, Options{}, src)
			require.Error(t, err)
			require.Contains(t, err.Error(), "bad argument #1 to setmetatable (table expected, got ")
		})
	}
	t.Run("tables still take metatables", func(t *testing.T) {
		v, err := sandboxRun(t, Options{}, `return setmetatable({}, {__index = {x = 5}}).x`)
		require.NoError(t, err)
		require.Equal(t, lua.LNumber(5), v)
	})
	t.Run("the string table is read-only", func(t *testing.T) {
		a := NewVM(Options{})
		defer a.Close()
		_, err := a.RunString("a.lua", `string.upper = function() return "pwned" end`)
		require.ErrorContains(t, err, "a.lua:1: cannot assign string.upper: the string library is read-only")
		v, err := a.RunString("a.lua", `return ("x"):upper() .. ("y"):rep(2)`)
		require.NoError(t, err)
		require.Equal(t, "Xyy", v.String())
	})
}

func TestSandboxStringCap(t *testing.T) {
	// The default cap, 16 MiB: a one-line bomb fails at once.
	for _, src := range []string{`return string.rep("x", 2^40)`, `return ("xy"):rep(1e300)`} {
		start := time.Now()
		_, err := sandboxRun(t, Options{}, src)
		require.ErrorContains(t, err, "scripts/sandbox.lua:1: string.rep: the result would be ")
		require.ErrorContains(t, err, "more than the 16777216-byte limit on strings")
		require.Less(t, time.Since(start), hangLimit, "stopped, not hung")
	}
	// Each builder, under a 1 MiB cap (s is 512 KiB).
	const s = `local s = ("x"):rep(2^19) `
	for _, tc := range []struct{ name, src, want string }{
		{"rep", s + `return s:rep(3)`, "string.rep: the result would be 1572864 bytes, more than the 1048576-byte limit on strings"},
		{"format width", `return string.format("%999999d", 1)`, "invalid format (width or precision too long)"},
		{"format precision", `return string.format("%.100f", 1)`, "invalid format (width or precision too long)"},
		{"format many", s + `return string.format("%s%s%s", s, s, s)`, "string.format: the result would be"},
		{"concat", s + `return table.concat({s, s, s})`, "table.concat: the result would be"},
		{"concat sep", `local t = {} for i = 1, 10 do t[i] = "" end return table.concat(t, ("x"):rep(2^17))`, "table.concat: the result would be"},
		{"gsub string", s + `return (s:gsub("x", "yyy"))`, "string.gsub: the result would be"},
		{"gsub capture", s + `return (s:gsub("x+", "%0%0%0"))`, "string.gsub: the result would be"},
		{"gsub function", s + `return (s:gsub("", function() return s end))`, "string.gsub: the result would be"},
		{"gsub table", `local s = ("x"):rep(2^10) return (s:gsub("x", {x = s .. s}))`, "string.gsub: the result would be"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := sandboxRun(t, Options{MaxString: 1 << 20}, tc.src)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.Regexp(t, `^scripts/sandbox\.lua:1: `, err.Error())
			require.Less(t, time.Since(start), hangLimit, "stopped, not hung")
		})
	}
	t.Run("configurable", func(t *testing.T) {
		_, err := sandboxRun(t, Options{MaxString: 10}, `return ("x"):rep(11)`)
		require.ErrorContains(t, err, "more than the 10-byte limit")
		_, err = sandboxRun(t, Options{MaxString: 10}, `return string.char(65, 65, 65, 65, 65, 65, 65, 65, 65, 65, 65)`)
		require.ErrorContains(t, err, "string.char: the result would be 11 bytes")
		v, err := sandboxRun(t, Options{MaxString: 10}, `return ("x"):rep(5) .. string.char(65) .. table.concat({"a", "b"}, ",")`)
		require.NoError(t, err)
		require.Equal(t, "xxxxxAa,b", v.String())
		_, err = sandboxRun(t, Options{MaxString: 10}, `return ("x"):rep(10) .. string.char(65)`)
		require.ErrorContains(t, err, "scripts/sandbox.lua:1: string concatenation (..): the result would be 11 bytes, more than the 10-byte limit")
	})
	t.Run("ordinary strings", func(t *testing.T) {
		v, err := sandboxRun(t, Options{}, `
			local parts = {}
			for i = 1, 10000 do parts[#parts + 1] = tostring(i) end
			local s = ""
			for i = 1, 10000 do s = s .. "x" end
			local big = table.concat(parts, ",")
			local t = {}
			for i = 1, 131072 do t[i] = "ab" end -- the longest sequence (MaxSequence)
			local joined = table.concat(t)
			local replaced = joined:gsub("a", "c")
			return #s + #big + #joined + #replaced + #string.format("%5.1f %s %q", 1.25, "x", "y")`)
		require.NoError(t, err)
		require.Equal(t, lua.LNumber(10000+48893+2*MaxSequence+2*MaxSequence+11), v)
	})
}

func TestSandboxPatterns(t *testing.T) {
	// Lua 5.1's answers (checked with lua5.1); gopher-lua's own library gives
	// different ones for the lines marked *.
	const src = `
		local out = {}
		local function p(...)
			local t = {...}
			for i = 1, select("#", ...) do t[i] = tostring(t[i]) end
			out[#out + 1] = table.concat(t, " ")
		end
		p(("abc"):find("", 2))                  -- * 1 0
		p(("abc"):find("", 10))                 -- * 1 0
		p(("abc"):find("x", 10))
		p(("hello world"):find("o w"))
		p(("hello world"):find("(o)(%s)"))
		p(("hello"):match("l+"))
		p(select("#", ("a"):match("b")))        -- * 0
		p(("abc"):gsub("b", "%x"))              -- * a%xc
		p(("abc"):gsub("%w", "%0%0"))
		p(("abc"):gsub("(%w)", "[%1]", 2))
		p(("abc"):gsub("", "-"))
		p(("abc"):gsub("%w*", "-"))
		p(("abc"):gsub("b", "x", 0))            -- * axc 1
		p(("abc"):gsub("^a", "x"))
		p(("abc"):gsub("()", "%1"))
		p(("hello world"):gsub("%w+", {hello = "HI"}))
		p(("hello world"):gsub("%w+", function(w) if w == "world" then return 42 end end))
		p(pcall(string.gsub, "abc", "b", function() return {} end)) -- * true ac 1
		p(pcall(string.gsub, "abc", "b", "%2"))
		for k, v in ("a=1, b=2"):gmatch("(%w+)=(%w+)") do p(k, v) end
		for w in ("one two"):gmatch("%a+") do p(w) end
		local n = 0
		for w in ("abc"):gmatch("") do n = n + 1 end
		p(n)
		p(("f(a(b)c)"):find("%b()"))
		p(("  trim  "):match("^%s*(.-)%s*$") .. "|")
		p(("abc"):find("b", -1), ("abc"):find("b", -2))
		p(("x=1"):gsub("(%w)=(%w)", "%2=%1"))
		p(("a.b"):find(".", 1, true), ("a+b"):find("+", 1, true))
		p(pcall(string.find, "abc", "(%"))
		return table.concat(out, "\n")`
	v, err := sandboxRun(t, Options{}, src)
	require.NoError(t, err)
	want := strings.Join([]string{
		"2 1", "4 3", "nil", "5 7", "5 6 o  ", "ll", "1", "axc 1", "aabbcc 3", "[a][b]c 2",
		"-a-b-c- 4", "-- 2", "abc 0", "xbc 1", "1a2b3c4 4", "HI world 2", "hello 42 2",
		"false scripts/sandbox.lua:25: invalid replacement value (a table)",
		"false scripts/sandbox.lua:26: invalid capture index",
		"a 1", "b 2", "one", "two", "4", "2 8", "trim|", "nil 2 2", "1=x 1", "2 2 2",
		"false scripts/sandbox.lua:37: malformed pattern (ends with '%')",
	}, "\n")
	require.Equal(t, want, v.String())
}

func TestSandboxPatternStoppedByBudget(t *testing.T) {
	// gopher-lua's engine takes minutes on these; the copy in sandbox.go
	// stops with the budget.
	for _, src := range []string{
		`return ("a"):rep(1e5):find("a*b")`,
		`return ("a"):rep(1e5):match(".-.-.-b")`,
		`return (("("):rep(1e5):gsub("%b()", ""))`,
		`for w in ("a"):rep(1e5):gmatch("a*b") do end`,
	} {
		t.Run(src, func(t *testing.T) {
			vm := NewVM(Options{Budget: 50 * time.Millisecond})
			defer vm.Close()
			fn := compileFn(t, vm, "scripts/pattern.lua", "return function() "+src+" end")
			start := time.Now()
			_, err := vm.Call(fn)
			require.ErrorIs(t, err, scripterr.ErrBudget)
			require.Equal(t, "scripts/pattern.lua:1: callback ran past its 50ms budget", err.Error())
			require.Less(t, time.Since(start), hangLimit, "stopped, not hung")
		})
	}
}

func TestSandboxRandomReplays(t *testing.T) {
	const src = `
		math.randomseed(42) -- does nothing, raises nothing
		local t = {}
		for i = 1, 5 do t[#t + 1] = math.random(100) end
		t[#t + 1] = math.random(-3, 3)
		t[#t + 1] = math.floor(math.random() * 1000)
		return table.concat(t, ",")`
	run := func(seed uint64) string {
		v, err := sandboxRun(t, Options{Seed: seed}, src)
		require.NoError(t, err)
		return v.String()
	}
	require.Equal(t, run(1), run(1))
	require.NotEqual(t, run(1), run(2))

	for _, bad := range []string{`math.random(0)`, `math.random(3, 2)`, `math.random(1, 2, 3)`, `math.random(2^60)`} {
		_, err := sandboxRun(t, Options{}, bad)
		require.Error(t, err, bad)
	}

	// Inside a tick, the running agent's generator (Options.Rand).
	rng := rand.New(rand.NewPCG(7, 7))
	var inTick bool
	vm := NewVM(Options{Seed: 1, Rand: func() *rand.Rand {
		if inTick {
			return rng
		}
		return nil
	}})
	defer vm.Close()
	fn := compileFn(t, vm, "scripts/r.lua", `return function() return math.random(1000000) end`)
	want := rand.New(rand.NewPCG(7, 7)).Int64N(1000000) + 1
	inTick = true
	v, err := vm.Call(fn)
	inTick = false
	require.NoError(t, err)
	require.Equal(t, lua.LNumber(want), v)
}

func TestSandboxClock(t *testing.T) {
	now := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	v, err := sandboxRun(t, Options{Now: func() time.Time { return now }}, `
		return os.time() .. " " .. os.date("!%Y-%m-%d %H:%M:%S") .. " " .. os.clock()`)
	require.NoError(t, err)
	require.Equal(t, "1714979289 2024-05-06 07:08:09 0", v.String())
}

// compileFn runs src, which returns a function, and returns that function.
func compileFn(t testing.TB, vm *VM, name, src string) *lua.LFunction {
	t.Helper()
	v, err := vm.RunString(name, src)
	require.NoError(t, err)
	fn, ok := v.(*lua.LFunction)
	require.True(t, ok, "%s returns %v", name, v)
	return fn
}

func TestCompileSyntaxDepth(t *testing.T) {
	// Without the bound, the first overflows the Go stack (fatal, no
	// recover) and the second takes minutes in gopher-lua's compiler.
	for name, src := range map[string]string{
		"not":       "return " + strings.Repeat("not ", 1_000_000) + "x",
		"blocks":    strings.Repeat("do ", 100_000) + strings.Repeat("end ", 100_000),
		"functions": "return " + strings.Repeat("function() return ", 5000) + "1" + strings.Repeat(" end", 5000),
		"calls":     "return " + strings.Repeat("f(", 100_000) + strings.Repeat(")", 100_000),
		"sum":       "return 1" + strings.Repeat(" + 1", 100_000),
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := Compile(strings.NewReader(src), "scripts/deep.lua")
			require.Error(t, err)
			require.Regexp(t, `^scripts/deep\.lua:1: chunk has too many syntax levels`, err.Error())
			var list scripterr.ErrorList
			require.ErrorAs(t, err, &list)
			require.Less(t, time.Since(start), hangLimit, "stopped, not hung")
		})
	}
	// Ordinary nesting compiles.
	for name, src := range map[string]string{
		"blocks 150": strings.Repeat("do ", 150) + strings.Repeat("end ", 150),
		"sum 500":    "return 1" + strings.Repeat(" + 1", 500),
		"elseif 900": "local x = 1 if x == 0 then" + strings.Repeat(" elseif x == 0 then", 900) + " end",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Compile(strings.NewReader(src), "scripts/ok.lua")
			require.NoError(t, err)
		})
	}
}

func TestSandboxYieldResultsAreNil(t *testing.T) {
	// gopher-lua leaves the values a yield gets fewer of than it assigns as
	// Go nil, which crashes Go code that reads them (print below did).
	v, err := sandboxRun(t, Options{}, `
		local out = {}
		local co = coroutine.create(function()
			c = coroutine.yield()
			local a, b = coroutine.yield()
			out[#out + 1] = tostring(c) .. " " .. tostring(a) .. " " .. tostring(b)
			out[#out + 1] = select("#", coroutine.yield()) -- any number: not padded
		end)
		coroutine.resume(co)
		coroutine.resume(co)
		coroutine.resume(co, 1)
		coroutine.resume(co)
		local f = coroutine.wrap(function() local x, y = coroutine.yield() out[#out + 1] = type(x) .. " " .. type(y) end)
		f()
		f()
		print(c)
		return table.concat(out, ",")`)
	require.NoError(t, err)
	require.Equal(t, "nil 1 nil,0,nil nil", v.String())
}

func TestRequireRefusesSymlinksOutOfRoots(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "mod.lua"), []byte(`return "outside"`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "ok.lua"), []byte(`return "inside"`), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "sub")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "mod.lua"), filepath.Join(root, "link.lua")))
	require.NoError(t, os.Symlink(filepath.Join(root, "ok.lua"), filepath.Join(root, "alias.lua")))
	for _, tc := range []struct{ name, want string }{
		{`require("sub.mod")`, "symbolic link"},
		{`require("sub/mod")`, "symbolic link"},
		{`require("link")`, "symbolic link"},
		{`require("../x")`, `outside the allowed script roots`},
		{`require("sub/../ok")`, `".." is not allowed`},
		{`return require("alias")`, ""},
	} {
		vm := NewVM(Options{})
		v, err := vm.RunString(filepath.Join(root, "main.lua"), tc.name)
		if tc.want == "" {
			require.NoError(t, err, tc.name)
			require.Equal(t, "inside", v.String(), "a link that stays inside is fine")
		} else {
			require.Error(t, err, tc.name)
			require.Contains(t, err.Error(), tc.want, tc.name)
			require.Contains(t, err.Error(), "main.lua:1:", tc.name)
		}
		vm.Close()
	}
}

func TestBehavioursKeepTheirGlobalsApart(t *testing.T) {
	vm := NewVM(Options{})
	defer vm.Close()
	load := func(name, src string) {
		proto, err := Compile(strings.NewReader(src+`
return true`), name)
		require.NoError(t, err)
		_, _, err = vm.RunMod(proto)
		require.NoError(t, err)
	}
	load("a.lua", `X_FROM_A = "leaked"; print_seen = type(print)`)
	load("b.lua", `assert(X_FROM_A == nil, "a global of a.lua leaked into b.lua")`)
	// The VM's own globals are not a channel between mods either.
	vm.L.SetGlobal("LATE", lua.LString("late"))
	load("c.lua", `assert(LATE == nil and _G.LATE == nil)`)
	require.Equal(t, lua.LNil, vm.L.GetGlobal("X_FROM_A"), "nor into the VM's globals")
}

// A coroutine.wrap function whose body fails is dead afterwards, as in
// Lua 5.1: calling it again says so (in gopher-lua's words), and the thread that called it is the
// running one again (gopher-lua left the failed thread marked as running,
// so every later call said "can not resume a running thread").
func TestWrappedCoroutineDiesOnError(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"error", `local f = coroutine.wrap(function() error("boom") end)
local ok1, e1 = pcall(f)
local ok2, e2 = pcall(f)
return tostring(ok1) .. "|" .. tostring(e1) .. "|" .. tostring(ok2) .. "|" .. tostring(e2) .. "|" .. tostring(coroutine.running())`,
			`false|size.lua:1: boom|false|size.lua:3: can not resume a dead thread|nil`},
		{"error after a yield", `local f = coroutine.wrap(function() coroutine.yield(1) error("late") end)
local a = f()
local ok1, e1 = pcall(f)
local ok2, e2 = pcall(f)
return a .. "|" .. tostring(ok1) .. "|" .. tostring(e1) .. "|" .. tostring(e2)`,
			`1|false|size.lua:1: late|size.lua:4: can not resume a dead thread`},
		{"inside a resumed coroutine", `local co = coroutine.create(function()
  local f = coroutine.wrap(function() error("inner") end)
  local ok = pcall(f)
  return coroutine.running() ~= nil and not ok
end)
local ok, v = coroutine.resume(co)
return tostring(ok) .. "|" .. tostring(v) .. "|" .. coroutine.status(co)`,
			`true|true|dead`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vm := NewVM(Options{})
			defer vm.Close()
			v, err := vm.RunString("size.lua", tc.src)
			require.NoError(t, err)
			require.Equal(t, tc.want, v.String())
		})
	}
}
