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

// A removed agent (Remove, Despawn) and the agents of a closed host refuse
// what would act on them with ErrClosed; reading them still works.
func TestRemovedAgentIsClosed(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	b, err := h.LoadString("door.lua", doorScript)
	require.NoError(t, err)
	gone, err := h.Spawn(b, nil)
	require.NoError(t, err)
	despawned, err := h.Spawn(b, nil)
	require.NoError(t, err)
	alive, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, h.Remove(gone))
	require.NoError(t, h.Despawn(despawned))
	for _, a := range []*host.Agent{gone, despawned} {
		require.ErrorIs(t, a.Tick(0.1), host.ErrClosed)
		require.ErrorIs(t, a.Send("knock", nil), host.ErrClosed)
		require.ErrorIs(t, a.Set("x", 1), host.ErrClosed)
		require.ErrorIs(t, a.Bind("x", &struct{}{}), host.ErrClosed)
		_, err := a.Snapshot()
		require.ErrorIs(t, err, host.ErrClosed)
		require.ErrorIs(t, h.Remove(a), host.ErrClosed, "removed twice")
		require.ErrorIs(t, h.Despawn(a), host.ErrClosed)
		require.Contains(t, a.Tick(0.1).Error(), "removed from its host")
	}
	require.Equal(t, "closed", gone.Path(), "reading still works")
	require.Equal(t, "", despawned.Path(), "Despawn left every state")
	require.Equal(t, []*host.Agent{alive}, h.Agents())
	h.Close()
	require.ErrorIs(t, alive.Tick(0.1), host.ErrClosed)
	require.ErrorIs(t, alive.Send("knock", nil), host.ErrClosed)
	require.ErrorIs(t, h.Tick(0.1), host.ErrClosed)
	_, err = h.Spawn(b, nil)
	require.ErrorIs(t, err, host.ErrClosed)
}

// A struct given by value would be bound as a copy: Lua's changes would be
// lost. Bind, Set and Spawn refuse it; a pointer binds.
func TestStructByValueRefused(t *testing.T) {
	type body struct{ X float64 }
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("door.lua", doorScript)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	err = a.Bind("me", body{1})
	require.ErrorIs(t, err, host.ErrBindByValue)
	require.Contains(t, err.Error(), `bind "me": host_test.body`)
	require.ErrorIs(t, a.Bind("me", host.Shared(body{1})), host.ErrBindByValue)
	require.ErrorIs(t, a.Set("me", body{1}), host.ErrBindByValue)
	require.ErrorIs(t, a.Set("list", map[string]any{"me": body{1}}), host.ErrBindByValue)
	_, err = h.Spawn(b, map[string]any{"me": body{1}})
	require.ErrorIs(t, err, host.ErrBindByValue)
	require.NoError(t, a.Bind("me", &body{1}))
	require.NoError(t, a.Set("pos", [2]float64{1, 2}), "plain data converts")
}
