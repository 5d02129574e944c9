package host_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// evil.lua tries every way one mod could reach another through shared
// globals; the refused ones are recorded as errors in ctx.refused.
const evilMod = `local ai = require("luaai")
local tostring, pcall = tostring, pcall
local lib = require("lib")
lib.value = "changed by evil"
_G.x = "evil"
rawset(_G, "y", "evil")
setmetatable(_G, { __index = function() return "evil" end })
_G.tostring = function() return "evil" end
load("shared_global = 'evil'")()
package.loaded.lib = "evil"
local refused = {}
local function try(name, fn)
  local ok, err = pcall(fn)
  if ok then refused[#refused + 1] = name .. ": allowed" end
  if not ok and not tostring(err):find("read%-only") and not tostring(err):find("protected") then
    refused[#refused + 1] = name .. ": " .. tostring(err)
  end
end
try("string.format", function() string.format = function() return "evil" end end)
try("string.new", function() string.evil = true end)
try("ai.fsm", function() ai.fsm = function() return "evil" end end)
try("math.floor", function() math.floor = nil end)
try("os.time", function() os.time = nil end)
try("table.insert", function() table.insert = nil end)
try("coroutine.wrap", function() coroutine.wrap = nil end)
try("rawset string", function() rawset(string, "format", print) end)
try("setmetatable string", function() setmetatable(string, {}) end)
try("setmetatable ai", function() setmetatable(ai, {}) end)
try("table.insert into math", function() table.insert(math, 1) end)
if getmetatable("") ~= "string" then refused[#refused + 1] = "the string metatable is reachable" end
return ai.fsm { initial = "s", context = { refused = table.concat(refused, "; ") }, states = { s = {} } }`

// good.lua checks, at load and at every tick, that nothing evil did shows.
const goodMod = `local ai = require("luaai")
local lib = require("lib")
local function check()
  assert(x == nil and y == nil and _G.x == nil, "a global leaked")
  assert(undefined_name == nil, "a metatable on another mod's _G leaked")
  assert(tostring(1) == "1", "tostring replaced")
  assert(string.format("%d", 3) == "3", "string.format replaced")
  assert(string.evil == nil and ("x"):rep(2) == "xx", "string table changed")
  assert(math.floor(1.5) == 1 and math[1] == nil, "math changed")
  assert(type(ai.fsm) == "function", "ai.fsm replaced")
  assert(shared_global == nil, "a loaded chunk's global leaked")
  assert(package.loaded.lib == nil, "package.loaded is shared")
  assert(lib.value == "original", "a required module is shared: " .. tostring(lib.value))
end
check()
return ai.fsm { initial = "s", context = { ok = 0 }, states = { s = {
  update = function(ctx) check(); ctx.ok = ctx.ok + 1 end } } }`

// Two mods in one host, one trying every way to change what the other
// sees: the other runs unchanged, with 1, 2 and 4 workers.
func TestModsAreIsolated(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"evil.lua": evilMod, "good.lua": goodMod,
		"lib.lua": `return { value = "original" }`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	for _, workers := range []int{1, 2, 4} {
		h, err := host.New(host.Options{Workers: workers})
		require.NoError(t, err)
		evil, err := h.LoadFile(filepath.Join(dir, "evil.lua"))
		require.NoError(t, err)
		good, err := h.LoadFile(filepath.Join(dir, "good.lua"))
		require.NoError(t, err)
		e, err := h.Spawn(evil, nil)
		require.NoError(t, err)
		refused, _ := e.Text("refused")
		require.Empty(t, refused, "attacks that were not refused as read-only")
		var goods []*host.Agent
		for i := 0; i < 130; i++ {
			a, err := h.Spawn(good, nil)
			require.NoError(t, err)
			goods = append(goods, a)
		}
		for i := 0; i < 3; i++ {
			require.NoError(t, h.Tick(0.1))
		}
		for _, a := range goods {
			require.Empty(t, a.TakeErrors())
			n, _ := a.Number("ok")
			require.Equal(t, 3.0, n)
		}
		// A reload of good starts afresh and stays clean.
		require.NoError(t, good.Reload())
		require.NoError(t, h.Tick(0.1))
		require.Empty(t, goods[0].TakeErrors())
		h.Close()
	}
}

// Go modules are read-only to scripts, shared by every mod, and a bad
// name is refused.
func TestGoModules(t *testing.T) {
	calls := 0
	h, err := host.New(host.Options{Modules: map[string]map[string]lua.LGFunction{
		"game": {"ping": func(L *lua.LState) int { calls++; L.Push(lua.LString("pong")); return 1 }},
	}})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("m.lua", `local ai = require("luaai")
local game = require("game")
local ok, err = pcall(function() game.ping = nil end)
assert(not ok and err:find("the game library is read%-only"), tostring(err))
return ai.fsm { initial = "s", context = { got = "" }, states = { s = {
  update = function(ctx) ctx.got = game.ping() end } } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Tick(0.1))
	got, _ := a.Text("got")
	require.Equal(t, "pong", got)
	require.Equal(t, 1, calls)
	for _, name := range []string{"luaai", ""} {
		_, err := host.New(host.Options{Modules: map[string]map[string]lua.LGFunction{name: {}}})
		require.ErrorContains(t, err, "may not be named")
	}
}
