package luabind

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	lua "github.com/yuin/gopher-lua"
)

// Differences from PUC Lua 5.1 a modder meets, fixed: each result is what
// lua5.1 prints for the same code.
func TestLua51Behaviours(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"pcall(error) is false, nil", `local ok, e = pcall(error) return tostring(ok) .. " " .. tostring(e) .. " " .. select("#", pcall(error))`, "false nil 2"},
		{"error with a table keeps it", `local t = {} local _, e = pcall(error, t) return tostring(e == t)`, "true"},
		{"%q escapes as Lua 5.1", `return string.format("%q", "a\nb\0c\r\"\\")`, "\"a\\\nb\\000c\\r\\\"\\\\\""},
		{"%q of a number", `return string.format("[%q]", 12)`, `["12"]`},
		{"%q among other specs", `return string.format("%d %q %s", 1, "x\n", "y")`, "1 \"x\\\n\" y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := sandboxRun(t, Options{}, tc.src)
			require.NoError(t, err)
			require.Equal(t, lua.LString(tc.want), v)
		})
	}
}

// A first line starting with # is skipped in a script file, as lua does,
// and line numbers stay right.
func TestShebangLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tool.lua")
	require.NoError(t, os.WriteFile(path, []byte("#!/usr/bin/env luaai\nlocal x = 1\nerror(\"here\")\n"), 0o644))
	vm := NewVM(Options{})
	defer vm.Close()
	_, err := vm.RunFile(path)
	require.ErrorContains(t, err, path+":3: here")
}
