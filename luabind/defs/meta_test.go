package defs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/luaai/luaai/luabind"
	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// The editor definitions (types/luaai.lua, LuaLS ---@meta) must name exactly
// the functions the luaai module exports, and every agent method.
const metaFile = "../../types/luaai.lua"

func TestMetaFileCoversTheModule(t *testing.T) {
	src, err := os.ReadFile(metaFile)
	require.NoError(t, err)
	_, err = luabind.CompileFile(metaFile)
	require.NoError(t, err, "the definition file must be valid Lua 5.1")

	declared := matches(src, `(?m)^function luaai\.(\w+)\(`)
	vm := NewVM(luabind.Options{})
	defer vm.Close()
	exports := vm.Exports()
	require.NotEmpty(t, exports)
	for _, name := range exports {
		require.Contains(t, declared, name, "ai.%s is exported but missing from %s", name, metaFile)
	}
	for _, name := range declared {
		require.Contains(t, exports, name, "%s declares luaai.%s, which the module does not export", metaFile, name)
	}

	// Agent methods: every declared one resolves on a real agent userdata,
	// and every method the engine has is declared.
	methods := matches(src, `(?m)^function Agent:(\w+)\(`)
	require.Equal(t, []string{"active", "errors", "id", "send", "state", "tick"}, methods)
	L := vm.L
	ud := L.NewUserData()
	ud.Value = metaAgent{}
	L.SetMetatable(ud, L.GetTypeMetatable(agentTypeName))
	for _, m := range methods {
		v := L.GetField(ud, m)
		require.Equal(t, lua.LTFunction, v.Type(), "agent:%s", m)
	}

	for _, class := range []string{"luaai", "luaai.State", "luaai.Machine", "luaai.MachineDef", "luaai.Transition",
		"luaai.Agent", "luaai.Cond", "luaai.Scorer", "luaai.Curve", "luaai.CallbackError"} {
		require.Regexp(t, `(?m)^---@class `+regexp.QuoteMeta(class)+`\b`, string(src))
	}
	for _, hook := range []string{`fun(ctx: luaai.Context)`, `fun(ctx: luaai.Context, dt: number)`} {
		require.Contains(t, string(src), hook)
	}
	for _, field := range []string{"enter", "exit", "update", "pause", "resume", "lock", "every", "transitions", "score"} {
		require.Contains(t, string(src), "---@field "+field+"? ", "luaai.State.%s", field)
	}
}

// scripts/.luarc.json points LuaLS at the definitions, as Lua 5.1, with the
// busted globals.
func TestLuarc(t *testing.T) {
	data, err := os.ReadFile("../../scripts/.luarc.json")
	require.NoError(t, err)
	var cfg map[string]any
	require.NoError(t, json.Unmarshal(data, &cfg))
	require.Equal(t, "Lua 5.1", cfg["runtime.version"])
	libs, _ := cfg["workspace.library"].([]any)
	require.NotEmpty(t, libs)
	dir, _ := libs[0].(string)
	_, err = os.Stat(filepath.Join("../../scripts", dir, "luaai.lua"))
	require.NoError(t, err, "workspace.library[0] must be the folder of luaai.lua, relative to scripts/")
	require.Contains(t, libs, "${3rd}/busted/library")
	globals, _ := cfg["diagnostics.globals"].([]any)
	for _, g := range []string{"describe", "it", "before_each", "after_each"} {
		require.Contains(t, globals, g)
	}
}

func matches(src []byte, pattern string) []string {
	var out []string
	for _, m := range regexp.MustCompile(pattern).FindAllSubmatch(src, -1) {
		out = append(out, string(m[1]))
	}
	sort.Strings(out)
	return out
}

// metaAgent is enough of an agent for its metatable to resolve methods.
type metaAgent struct{}

func (metaAgent) ID() int                       { return 1 }
func (metaAgent) Tick(float64) error            { return nil }
func (metaAgent) State() (string, bool)         { return "", false }
func (metaAgent) Active(string) bool            { return false }
func (metaAgent) Ctx() *lua.LTable              { return nil }
func (metaAgent) Send(string, lua.LValue) error { return nil }
func (metaAgent) Errors() []CallbackError       { return nil }

// The curve kinds are listed once (CurveKinds); the editor definitions
// name each.
func TestMetaFileNamesEveryCurveKind(t *testing.T) {
	src, err := os.ReadFile(metaFile)
	require.NoError(t, err)
	var quoted []string
	for _, k := range CurveKinds() {
		quoted = append(quoted, `"`+k+`"`)
	}
	require.Contains(t, string(src), "---@field kind "+strings.Join(quoted, "|"))
	require.Equal(t, "linear, polynomial, logistic, logit, normal, sine or step", curveKindList)
}
