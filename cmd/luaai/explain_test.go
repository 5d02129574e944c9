package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// check --explain lists each function with whether it compiles, and why
// not: the first construct that keeps it in the VM, with its line.
func TestCheckExplain(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "guard.lua")
	require.NoError(t, os.WriteFile(script, []byte(`local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  context = { hp = 100, x = 0, seen = {} },
  states = {
    idle = {
      update = function(ctx, dt) ctx.x = ctx.x + 2 * dt end,
      transitions = { { to = "flee", when = function(ctx) return ctx.hp < 30 and ctx.x ~= nil end } },
    },
    flee = {
      update = function(ctx)
        for i = 1, 3 do ctx.x = ctx.x - i end
      end,
      transitions = { { to = "idle", when = function(ctx) return ctx.seen.name .. "!" == "x!" end } },
    },
  },
}
`), 0o644))
	code, stdout, stderr := luaai("check", "--explain", script)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, script+":7: compiled\n"+
		script+":8: compiled\n"+
		script+":11: VM: line 12: a loop\n"+
		script+":14: VM: line 14: string concatenation (..)\n"+
		"ok: 1 file\n", stdout)
	// Without the flag: only check's summary of a clean script.
	code, stdout, _ = luaai("check", script)
	require.Equal(t, 0, code)
	require.Equal(t, "ok: 1 file\n", stdout)
}
