package host_test

import (
	"bytes"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/require"
)

// restoreAttaching saves h in format and restores it into a new host of
// src, attach given to RestoreOptions.
func restoreAttaching(t *testing.T, h *host.Host, format host.SnapshotFormat, src string, workers int, attach func(*host.Agent, []string) error) (*host.Host, []*host.Agent, error) {
	t.Helper()
	var save bytes.Buffer
	require.NoError(t, h.WriteSnapshotWith(&save, host.SaveOptions{Format: format}))
	h2, err := host.New(host.Options{Workers: workers})
	require.NoError(t, err)
	t.Cleanup(h2.Close)
	b2, err := h2.LoadString("unit.lua", src)
	require.NoError(t, err)
	got, err := h2.RestoreFrom(&save, host.RestoreOptions{Attach: attach}, b2)
	return h2, got, err
}

// A synced key whose saved table a script made the context itself, or the
// table of another synced key: Sync in Attach does not write the struct's
// fields into the context's own, nor sync two structs through one table.
func TestAttachSyncTableNotTheContext(t *testing.T) {
	src := `local ai = require("luaai")
return ai.fsm { initial = "s", context = { hp = "mine", x = "mine too" }, states = { s = {
  enter = function(ctx) ctx.body = ctx; ctx.other = ctx.twin end } } }`
	for _, format := range []host.SnapshotFormat{host.SnapshotJSON, host.SnapshotBinary} {
		h, err := host.New(host.Options{})
		require.NoError(t, err)
		b, err := h.LoadString("unit.lua", src)
		require.NoError(t, err)
		_, err = h.SpawnWith(b, host.SpawnOptions{Sync: map[string]any{"body": &body{HP: 7}, "twin": &body{HP: 8}, "other": &body{HP: 9}}})
		require.NoError(t, err)
		one, two, three := &body{X: 1, HP: 1}, &body{X: 2, HP: 2}, &body{X: 3, HP: 3}
		_, got, err := restoreAttaching(t, h, format, src, 1, func(a *host.Agent, synced []string) error {
			require.ElementsMatch(t, []string{"body", "twin", "other"}, synced)
			if err := a.Sync("body", one); err != nil {
				return err
			}
			if err := a.Sync("twin", two); err != nil {
				return err
			}
			return a.Sync("other", three)
		})
		require.NoError(t, err)
		a := got[0]
		require.Equal(t, "mine", a.Get("hp"), "format %d: Sync wrote into the context", format)
		require.Equal(t, "mine too", a.Get("x"), "format %d: Sync wrote into the context", format)
		require.Equal(t, 2.0, a.Get("twin").(map[string]any)["hp"], "format %d", format)
		require.Equal(t, 3.0, a.Get("other").(map[string]any)["hp"], "format %d: two structs share one table", format)
		h.Close()
	}
}

// Sync in Attach reuses only the attached agent's table at a key saved as
// synced: Sync twice there keeps one table, Sync of another key or of an
// agent restored before it makes a new one, and with two workers each
// agent's struct is its own.
func TestAttachSyncReuseIsScoped(t *testing.T) {
	src := `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  enter = function(ctx) ctx.body.note = "n" .. ctx.body.hp end,
  update = function(ctx) ctx.body.x = ctx.body.x + 1 end } } }`
	for _, format := range []host.SnapshotFormat{host.SnapshotJSON, host.SnapshotBinary} {
		h, err := host.New(host.Options{Workers: 2})
		require.NoError(t, err)
		b, err := h.LoadString("unit.lua", src)
		require.NoError(t, err)
		for i := range 4 {
			_, err = h.SpawnWith(b, host.SpawnOptions{Sync: map[string]any{"body": &body{HP: float64(i)}}})
			require.NoError(t, err)
		}
		bodies := map[int]*body{}
		var prev *host.Agent
		h2, got, err := restoreAttaching(t, h, format, src, 2, func(a *host.Agent, synced []string) error {
			if prev != nil {
				// Another agent (restored, not being attached): a new table.
				if err := prev.Sync("extra", &body{HP: -1}); err != nil {
					return err
				}
			}
			bd := &body{X: float64(10 * a.ID())}
			if err := a.Sync("body", &body{}); err != nil {
				return err
			}
			if err := a.Sync("body", bd); err != nil { // twice: the same table
				return err
			}
			if err := a.Sync("fresh", &body{HP: 5}); err != nil { // not saved as synced
				return err
			}
			bodies[a.ID()], prev = bd, a
			return nil
		})
		require.NoError(t, err)
		require.NoError(t, h2.Tick(0.1))
		for i, a := range got {
			bd := a.Get("body").(map[string]any)
			require.Equal(t, "n"+map[int]string{0: "0", 1: "1", 2: "2", 3: "3"}[i], bd["note"], "format %d agent %d", format, a.ID())
			require.Equal(t, float64(10*a.ID()+1), bodies[a.ID()].X, "format %d agent %d: the struct is not synced", format, a.ID())
			require.Equal(t, 5.0, a.Get("fresh").(map[string]any)["hp"])
			if i < len(got)-1 {
				require.Equal(t, map[string]any{"x": 0.0, "hp": -1.0}, a.Get("extra"))
			}
		}
		h.Close()
	}
}

// The value saved at a synced key may be anything a script put there: not
// a table (Sync in Attach then puts a new one), or a table whose fields
// have the wrong types (the struct's values replace them).
func TestAttachSyncOddSavedValues(t *testing.T) {
	for _, set := range []string{`ctx.body = 5`, `ctx.body = nil`, `ctx.body = "s"`, `ctx.body = { 1, 2, x = {}, hp = "str", [3] = true }`, `ctx.body.x = nil; ctx.body.hp = false`} {
		src := `local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = { enter = function(ctx) ` + set + ` end,
  update = function(ctx) ctx.body.x = ctx.body.x + 1 end } } }`
		for _, format := range []host.SnapshotFormat{host.SnapshotJSON, host.SnapshotBinary} {
			h, err := host.New(host.Options{})
			require.NoError(t, err)
			b, err := h.LoadString("unit.lua", src)
			require.NoError(t, err)
			_, err = h.SpawnWith(b, host.SpawnOptions{Sync: map[string]any{"body": &body{HP: 7}}})
			require.NoError(t, err)
			bd := &body{X: 10, HP: 3}
			h2, got, err := restoreAttaching(t, h, format, src, 1, func(a *host.Agent, synced []string) error {
				return a.Sync("body", bd)
			})
			require.NoError(t, err, set)
			require.Equal(t, 3.0, got[0].Get("body").(map[string]any)["hp"], set)
			require.NoError(t, h2.Tick(0.1))
			require.Equal(t, 11.0, bd.X, "%s (format %d): the struct is not synced", set, format)
			h.Close()
		}
	}
}
