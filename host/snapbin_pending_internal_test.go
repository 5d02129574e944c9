package host

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// pendingSrc leaves, at every save, a request (its payload sharing a
// table with the context), a message to the next agent and an event to
// itself (both with that table too).
const pendingSrc = `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { t = { 1 } }, states = {
  idle = { update = function(ctx)
    ai.push("look", { n = 7, a = ctx.t })
    ai.send_to(ai.id() % 3 + 1, "hello", { from = ai.id(), shared = ctx.t })
    ai.send("self", ctx.t)
  end },
  look = { update = function(ctx) ai.pop({ n = 9 }) end },
} }`

// quietSrc has nothing pending, ever.
const quietSrc = `return require("luaai").fsm { initial = "s", states = { s = {} } }`

// pendingHost is a host of three agents of pendingSrc and one that has
// nothing pending, ticked so that the three have each kind pending, and
// an event from the game.
func pendingHost(t *testing.T) *Host {
	t.Helper()
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	b, err := h.LoadString("pending.lua", pendingSrc)
	if err != nil {
		t.Fatal(err)
	}
	quiet, err := h.LoadString("quiet.lua", quietSrc)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := h.Spawn(b, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Spawn(quiet, nil); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := h.Tick(0.1); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Agents()[0].Send("poke", map[string]any{"n": 1}); err != nil {
		t.Fatal(err)
	}
	return h
}

// recordTags are the tags of a binary save's agent records.
func recordTags(t *testing.T, data []byte) []int {
	t.Helper()
	var tags []int
	err := readBinary("test", data, func(*agentSnapshot) error {
		tags = append(tags, binRecJSON)
		return nil
	}, func(r *binReader, s *agentSnapshot, rng []byte, pending bool) error {
		tags = append(tags, map[bool]int{false: binRecAgent, true: binRecPending}[pending])
		// Skip the rest of the record: a host of the same behaviours reads it.
		h2, err := New(Options{})
		if err != nil {
			return err
		}
		defer h2.Close()
		behs := loadPendingKinds(t, h2)
		b := behaviourNamed(behs, s.Behaviour)
		_, _, err = h2.restoreBin(b, r, s, rng, pending, s.ID, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tags
}

// An agent with something pending is a binary record (tag 3), and what is
// pending comes back: the JSON save after a binary load is the original's.
func TestPendingAgentsAreBinaryRecords(t *testing.T) {
	h := pendingHost(t)
	want, err := h.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{`"events"`, `"messages"`, `"request"`, `"$ref"`} {
		if !bytes.Contains(want, []byte(p)) {
			t.Fatalf("the save has no %s: %s", p, want)
		}
	}
	bin, err := h.binarySave()
	if err != nil {
		t.Fatal(err)
	}
	bin = slices.Clone(bin)
	if got := recordTags(t, bin); !slices.Equal(got, []int{binRecPending, binRecPending, binRecPending, binRecAgent}) {
		t.Fatalf("record tags %v", got)
	}
	if again := reloadedJSON(t, bin); string(again) != string(want) {
		t.Fatalf("binary load, JSON save:\n%s\nwant\n%s", again, want)
	}
}

// A binary save in which an agent with something pending is a JSON record
// (tag 2, as saves were written before tag 3) still loads.
func TestBinaryJSONRecordsStillLoad(t *testing.T) {
	h := pendingHost(t)
	want, err := h.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	// Write the save as it was written then: pending agents as JSON records.
	b := appendBinaryHead(nil, len(h.agents))
	w := newBinWriter()
	enc := &encoder{}
	for _, a := range h.agents {
		var c saveCopy
		if !a.hasPending() {
			if err := a.copyForSave(enc, &c, &saveArena{}, true, false); err != nil {
				t.Fatal(err)
			}
			b = w.record(b, &c)
			continue
		}
		if err := a.copyForSave(enc, &c, &saveArena{}, false, false); err != nil {
			t.Fatal(err)
		}
		places := slices.Clone(c.t.places)
		slices.SortFunc(places, func(x, y *place) int { return strings.Compare(x.path, y.path) })
		b = append(b, binRecJSON, 0, 0, 0, 0)
		start := len(b)
		b = c.appendJSON(b, places)
		binary.LittleEndian.PutUint32(b[start-4:], uint32(len(b)-start))
	}
	if got := recordTags(t, b); !slices.Equal(got, []int{binRecJSON, binRecJSON, binRecJSON, binRecAgent}) {
		t.Fatalf("record tags %v", got)
	}
	if again := reloadedJSON(t, b); string(again) != string(want) {
		t.Fatalf("load of JSON records, JSON save:\n%s\nwant\n%s", again, want)
	}
}

// loadPendingKinds loads pendingHost's behaviours into h.
func loadPendingKinds(t *testing.T, h *Host) []*Behaviour {
	t.Helper()
	var out []*Behaviour
	for _, src := range []struct{ name, src string }{{"pending.lua", pendingSrc}, {"quiet.lua", quietSrc}} {
		b, err := h.LoadString(src.name, src.src)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// reloadedJSON is the JSON save of a host of pendingHost's behaviours
// that restored data.
func reloadedJSON(t *testing.T, data []byte) []byte {
	t.Helper()
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Restore(data, loadPendingKinds(t, h)...); err != nil {
		t.Fatal(err)
	}
	out, err := h.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
