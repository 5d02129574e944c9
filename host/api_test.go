package host_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// Files lists a behaviour's own script and modules, not another mod's,
// and follows a reload that requires other modules.
func TestBehaviourFilesAreItsOwn(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
		return p
	}
	write("shared.lua", `return { speed = 2 }`)
	write("only_a.lua", `return { x = 1 }`)
	write("only_b.lua", `return { y = 1 }`)
	a := write("a.lua", `local ai = require("luaai")
local s = require("shared") local o = require("only_a")
return ai.fsm { initial = "x", states = { x = {} } }`)
	b := write("b.lua", `local ai = require("luaai")
local s = require("shared") local o = require("only_b")
return ai.fsm { initial = "x", states = { x = {} } }`)
	h, err := host.New(host.Options{Workers: 2})
	require.NoError(t, err)
	defer h.Close()
	ba, err := h.LoadFile(a)
	require.NoError(t, err)
	bb, err := h.LoadFile(b)
	require.NoError(t, err)
	abs := func(name string) string { p, _ := filepath.Abs(filepath.Join(dir, name)); return p }
	require.Equal(t, []string{a, abs("only_a.lua"), abs("shared.lua")}, ba.Files())
	require.Equal(t, []string{b, abs("only_b.lua"), abs("shared.lua")}, bb.Files())

	require.NoError(t, ba.ReloadSource(`local ai = require("luaai")
return ai.fsm { initial = "x", states = { x = {} } }`))
	require.Equal(t, []string{a}, ba.Files(), "the reloaded version requires nothing")
	require.Equal(t, []string{b, abs("only_b.lua"), abs("shared.lua")}, bb.Files(), "the other mod keeps its modules")
	require.Error(t, ba.ReloadSource(`local x = require("only_a") error("broken")`))
	require.Equal(t, []string{a}, ba.Files(), "a failed reload leaves the files as they were")
}

func TestBadDt(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	for _, dt := range []float64{-1, math.NaN(), math.Inf(1)} {
		require.ErrorIs(t, h.Tick(dt), host.ErrBadDt, "dt %v", dt)
	}
	require.NoError(t, h.Tick(0))
}
