package host

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// craftedSrc has an fsm at the root and a utility machine in its state
// "flee" (a machine no request reaches).
const craftedSrc = `local ai = require("luaai")
return ai.fsm { initial = "idle", context = { t = { 1 } }, states = {
  idle = {},
  look = {},
  flee = ai.utility { states = { run = { score = 1 }, hide = { score = 0 } } },
} }`

// craftedPayload is a payload of one value: nil.
var craftedPayload = []byte{1, 0, 0, 0, binNil}

// craftedSave is a binary save of one agent of craftedSrc whose record is
// tag 3 with p pending; raw, when not nil, replaces what pending writes.
func craftedSave(t *testing.T, p *binPending, raw []byte) []byte {
	t.Helper()
	h, b := craftedHost(t)
	a, err := h.Spawn(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	var c saveCopy
	if err := a.copyForSave(&encoder{}, &c, &saveArena{}, true, false); err != nil {
		t.Fatal(err)
	}
	w := newBinWriter()
	doc := append(appendBinaryHead(nil, 1), binRecPending)
	doc = w.agent(doc, &c)
	if raw != nil {
		return append(doc, raw...)
	}
	return w.pending(doc, p)
}

// A tag 3 record that lies is refused as a bad snapshot naming what is
// wrong, never a panic: requests twice, for a machine that takes none,
// of an unknown kind or state; senders out of range; messages out of
// order; payloads whose lengths lie; counts past the bytes.
func TestBinaryPendingCraftedRecords(t *testing.T) {
	req := func(path, kind, target string) binRequest {
		return binRequest{path: path, kind: kind, target: target, payload: craftedPayload}
	}
	ev := func(from, age int) binEvent {
		return binEvent{name: "e", from: from, age: age, payload: craftedPayload}
	}
	cases := []struct {
		name string
		p    *binPending
		raw  []byte
		want string // in the error; "" loads
	}{
		{name: "good", p: &binPending{reqs: []binRequest{req("", "push", "look")}, events: []binEvent{ev(0, 0)}, messages: []binEvent{ev(1, 3), ev(1, 3), ev(1, 0)}}},
		{name: "twice", p: &binPending{reqs: []binRequest{req("", "push", "look"), req("", "pop", "")}}, want: "two requests"},
		{name: "utility", p: &binPending{reqs: []binRequest{req("flee", "push", "run")}}, want: "utility machine takes no request"},
		{name: "not a machine", p: &binPending{reqs: []binRequest{req("idle", "pop", "")}}, want: "not in behaviour"},
		{name: "no machine", p: &binPending{reqs: []binRequest{req("nowhere", "pop", "")}}, want: "not in behaviour"},
		{name: "kind", p: &binPending{reqs: []binRequest{req("", "jump", "look")}}, want: `request kind "jump"`},
		{name: "target", p: &binPending{reqs: []binRequest{req("", "replace", "nowhere")}}, want: `state "nowhere"`},
		{name: "where", p: &binPending{reqs: []binRequest{{kind: "pop", where: strings.Repeat("w", 1025), payload: craftedPayload}}}, want: "where is 1025 bytes"},
		{name: "sender below", p: &binPending{events: []binEvent{ev(-1, 0)}}, want: "sender -1"},
		{name: "sender above", p: &binPending{messages: []binEvent{ev(MaxID+1, 0)}}, want: "not an agent id"},
		{name: "ages", p: &binPending{messages: []binEvent{ev(1, 1), ev(1, 2)}}, want: "age 2 after a message of age 1"},
		{name: "age", p: &binPending{messages: []binEvent{ev(1, maxSnapshotCount+1)}}, want: "out of range"},
		{name: "payload long", p: &binPending{events: []binEvent{{name: "e", payload: []byte{200, 0, 0, 0, binNil}}}}, want: "bytes in the"},
		{name: "payload short", p: &binPending{events: []binEvent{{name: "e", payload: []byte{0, 0, 0, 0, binNil}}}}, want: "ends at byte"},
		{name: "payload past", p: &binPending{events: []binEvent{{name: "e", payload: []byte{2, 0, 0, 0, binNil, binNil}}}}, want: "ends at byte"},
		{name: "payload ref", p: &binPending{events: []binEvent{{name: "e", payload: []byte{2, 0, 0, 0, binRef, 9}}}}, want: "table 9 named before"},
		{name: "payload cut", p: &binPending{events: []binEvent{{name: "e", payload: []byte{1, 0}}}}},
		{name: "requests past the bytes", raw: binary.AppendUvarint(nil, 1<<40)},
		{name: "events past the bytes", raw: append([]byte{0}, binary.AppendUvarint(nil, 1<<20)...)},
		{name: "messages past the bytes", raw: append([]byte{0, 0}, binary.AppendUvarint(nil, 1<<62)...)},
		{name: "nothing", raw: []byte{}},
		{name: "trailing", raw: []byte{0, 0, 0, 7}, want: "byte"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := craftedSave(t, tc.p, tc.raw)
			h, b := craftedHost(t)
			_, err := h.Restore(doc, b)
			if tc.name == "good" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				a := h.Agents()[0]
				if len(a.inbox) != 3 || len(a.incoming) != 1 || !a.ms[0].req.pending {
					t.Fatalf("read %d messages, %d events, request %v", len(a.inbox), len(a.incoming), a.ms[0].req.pending)
				}
				return
			}
			if err == nil {
				t.Fatal("loaded")
			}
			if !errors.Is(err, ErrBadSnapshot) {
				t.Fatalf("not a bad snapshot: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
			if len(h.Agents()) != 0 {
				t.Fatalf("a refused load left %d agents", len(h.Agents()))
			}
		})
	}
}

// craftedHost is a host with craftedSrc loaded and no agent, closed when
// the test ends.
func craftedHost(t *testing.T) (*Host, *Behaviour) {
	t.Helper()
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	b, err := h.LoadString("crafted.lua", craftedSrc)
	if err != nil {
		t.Fatal(err)
	}
	return h, b
}

// A load takes as many events waiting for an agent as it can be sent
// (MaxPendingEvents) and refuses a file with more, in either format, as a
// bad snapshot that names the count.
func TestRestorePendingEventsCapped(t *testing.T) {
	h, b := craftedHost(t)
	a, err := h.Spawn(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxPendingEvents {
		if err := a.Send("e", i); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Send("e", 0); err == nil {
		t.Fatal("a send past MaxPendingEvents was taken")
	}
	for _, f := range []SnapshotFormat{SnapshotJSON, SnapshotBinary} {
		var full bytes.Buffer
		if err := h.WriteSnapshotWith(&full, SaveOptions{Format: f}); err != nil {
			t.Fatal(err)
		}
		h2, b2 := craftedHost(t)
		got, err := h2.Restore(full.Bytes(), b2)
		if err != nil || len(got) != 1 || len(got[0].incoming) != MaxPendingEvents {
			t.Fatalf("format %d: the full queue did not load: %v", f, err)
		}
	}

	// One event more than a running agent can hold, crafted in each format.
	var doc map[string]any
	js, err := h.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	ag := doc["agents"].([]any)[0].(map[string]any)
	ag["events"] = append(ag["events"].([]any), ag["events"].([]any)[0])
	over, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	events := make([]binEvent, MaxPendingEvents+1)
	for i := range events {
		events[i] = binEvent{name: "e", payload: craftedPayload}
	}
	for name, data := range map[string][]byte{
		"json":   over,
		"binary": craftedSave(t, &binPending{events: events}, nil),
	} {
		h2, b2 := craftedHost(t)
		_, err := h2.Restore(data, b2)
		if !errors.Is(err, ErrBadSnapshot) || !strings.Contains(err.Error(), "65537 events") {
			t.Fatalf("%s: %v", name, err)
		}
		if len(h2.Agents()) != 0 {
			t.Fatalf("%s: an agent was left behind", name)
		}
	}
}
