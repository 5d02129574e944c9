package host

import (
	"bytes"
	"fmt"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// shapeSrcs are behaviours whose contexts change shape from agent to
// agent and tick to tick: keys added out of order and deleted, keys that
// read as numbers, long keys, tables inside (flat, lists, emptied, shared,
// the context itself), a synced body.
var shapeSrcs = []string{
	`local ai = require("luaai")
return ai.fsm { initial = "s", context = { x = 0, player = "none" }, states = { s = {
  update = function(ctx)
    local id = ai.id()
    ctx.x = ctx.x + 1
    if id % 2 == 0 then ctx.player = nil end
    if id % 3 == 0 then ctx["10"] = id; ctx["2"] = "two" end
    if id % 4 == 0 then ctx.aaa = { k = id, list = nil } end
    if id % 5 == 0 then ctx[string.rep("long", 12)] = id end
    if id % 7 == 0 then ctx.inner = { b = 1, a = 2 }; ctx.inner.b = nil end
    if id % 11 == 0 then ctx.list = { 1, 2, 3 }; ctx.list.k = 1; ctx.list.k = nil end
  end } } }`,
	`local ai = require("luaai")
return ai.fsm { initial = "s", context = { z = 1, a = "first", m = true }, states = { s = {
  update = function(ctx)
    local id = ai.id()
    ctx.tags = { "t" .. (id % 3), "fresh" .. id }
    if id % 2 == 1 then ctx.same = ctx.tags end
    if id % 3 == 1 then ctx.me = ctx end
    if id % 4 == 1 then ctx.empty = {} end
    if id % 5 == 1 then ctx.n = { x = 1, y = 2, hp = id } end
  end } } }`,
	`local ai = require("luaai")
return ai.fsm { initial = "s", states = { s = {
  update = function(ctx) ctx.body.x = ctx.body.x + 1; ctx.seen = (ctx.seen or 0) + 1 end } } }`,
}

// syncedBody is a struct synced into contexts.
type syncedBody struct {
	X     float64 `lua:"x"`
	HP    int     `lua:"hp"`
	Enemy int     `lua:"enemy"`
}

// A whole binary save (agents of several behaviours, interleaved, their
// contexts of many shapes, some with requests, messages and events pending) is the bytes the general walk writes for every
// context: the flat path's plans carried across agents change nothing.
func TestBinarySaveFlatLikeWalk(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var behs []*Behaviour
	for i, src := range shapeSrcs {
		b, err := h.LoadString(fmt.Sprintf("shape%d.lua", i), src)
		if err != nil {
			t.Fatal(err)
		}
		behs = append(behs, b)
	}
	pending, err := h.LoadString("pending.lua", pendingSrc)
	if err != nil {
		t.Fatal(err)
	}
	behs = append(behs, pending) // agents with something pending between the flat ones
	for i := range 60 {
		b := behs[i%len(behs)]
		opts := SpawnOptions{}
		if b == behs[2] {
			opts.Sync = map[string]any{"body": &syncedBody{HP: i, Enemy: i % 4}}
		}
		if _, err := h.SpawnWith(b, opts); err != nil {
			t.Fatal(err)
		}
	}
	for tick := range 3 {
		if err := h.Tick(0.1); err != nil {
			t.Fatal(err)
		}
		got, err := h.binarySave()
		if err != nil {
			t.Fatal(err)
		}
		got = bytes.Clone(got)
		enc := &encoder{noFlat: true}
		copies := make([]saveCopy, len(h.agents))
		for i, a := range h.agents {
			if err := a.copyForSave(enc, &copies[i], &saveArena{}, true, false); err != nil {
				t.Fatal(err)
			}
		}
		want := appendBinary(nil, copies)
		flat, pend := 0, 0
		for _, a := range h.agents {
			if a.hasPending() {
				pend++
			}
			if probe := (&encoder{once: true, seen: []*lua.LTable{a.ctx}}); probe.flatBin(a.ctx) {
				flat++
			}
		}
		if pend == 0 {
			t.Fatalf("tick %d: no agent has anything pending", tick)
		}
		if flat < 20 || flat == len(h.agents) {
			t.Fatalf("tick %d: %d contexts of %d take the flat path", tick, flat, len(h.agents))
		}
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Fatalf("tick %d: the save differs from the walk's at byte %d of %d:\n% x\nwant\n% x", tick, i, len(want), got[max(i-16, 0):min(i+32, len(got))], want[max(i-16, 0):min(i+32, len(want))])
		}
	}
}
