package host

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestAppendSnapshotFileMatchesJSON: the hand-written document is byte for
// byte what encoding/json writes for the same records.
func TestAppendSnapshotFileMatchesJSON(t *testing.T) {
	full := fullAgentSnapshot()
	for _, c := range []struct {
		name   string
		agents []agentSnapshot
	}{
		{"none", []agentSnapshot{}},
		{"zero", []agentSnapshot{{}}},
		{"empty maps", []agentSnapshot{{ID: 1, States: map[string]stateSnapshot{}, Machines: map[string]machineSnapshot{}, Bound: []string{}, Events: []eventSnapshot{}}}},
		{"full", []agentSnapshot{full, {ID: 2, Clock: -1e-300, Owed: 1e20}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := json.Marshal(snapshotFile{Version: SnapshotVersion, Agents: c.agents})
			if err != nil {
				t.Fatal(err)
			}
			if got := appendSnapshotFile(nil, c.agents); string(got) != string(want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestAppendJSONStringMatchesJSON covers every byte and a few runes.
func TestAppendJSONStringMatchesJSON(t *testing.T) {
	var all []string
	for c := 0; c < 256; c++ {
		all = append(all, "x"+string([]byte{byte(c)})+"y")
	}
	all = append(all, "", "é", "\u2028", "\u2029", "\U0001F600", "\xed\xa0\x80", "\xf4\x90\x80\x80")
	for _, s := range all {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

// TestAgentSnapshotFields: a field added to the agent's record must be
// written by appendJSON too (then raise agentSnapshotFields).
func TestAgentSnapshotFields(t *testing.T) {
	if n := reflect.TypeFor[agentSnapshot]().NumField(); n != agentSnapshotFields {
		t.Errorf("agentSnapshot has %d fields, appendJSON writes %d: add the new ones to it", n, agentSnapshotFields)
	}
}

// fullAgentSnapshot is an agent's record with every field set, odd strings
// and extreme numbers.
func fullAgentSnapshot() agentSnapshot {
	cool := 0.0
	cool2 := 1e-9
	odd := "a<b>&c\"d\\e\n\t\r\b\f\x01\x1f\u2028\u2029\xff\xfe é 😀"
	return agentSnapshot{
		ID: 7, Behaviour: odd, Ticks: min(1<<40, math.MaxInt), Clock: 1e21, RNG: "AAE=",
		Ctx: json.RawMessage(`{"a":1,"s":"x\u003cy"}`), Bound: []string{"ctx.body", odd},
		States: map[string]stateSnapshot{
			"b": {Time: 1e-7, Every: 0.1, Step: 3, StepTime: -0.5, StepSeen: true, TreeTime: 123456789012.5,
				Tree: map[string]nodeSnapshot{"1.2": {Running: true, Child: 2, Start: 3.25, Done: "success", Cool: &cool}, "0": {Cool: &cool2}, "9": {}}},
			"a": {},
			odd: {Tree: map[string]nodeSnapshot{}},
		},
		Machines: map[string]machineSnapshot{
			"":  {Stack: []string{"x", "y"}, History: "z", DecideAcc: 5e-324, Request: &requestSnapshot{Kind: "push", Target: "t", Where: "f.lua:3: ", Payload: json.RawMessage(`[1,null]`)}},
			"m": {Stack: []string{}, Request: &requestSnapshot{Kind: "pop"}},
			"n": {},
		},
		Events:    []eventSnapshot{{Name: "hit", Payload: json.RawMessage(`null`), From: 3}, {Name: odd}},
		Messages:  []eventSnapshot{{Name: "order", Payload: json.RawMessage(`{"$ref":1}`)}},
		Suspended: "fault", Overruns: 2, Owed: 0.016, Synced: []string{"me"}, Kind: odd,
	}
}

// TestKeptCopies: a host reuses the copies of its last save only once
// nothing reads them (done closed, or nil), and takes them back while in
// use; a closed host keeps none.
func TestKeptCopies(t *testing.T) {
	h, err := New(Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	s := &saveCopies{}
	h.keepCopies(s, done)
	if got := h.keptCopies(); got == s {
		t.Fatal("copies an asynchronous save still writes from were reused")
	}
	close(done)
	if got := h.keptCopies(); got != s {
		t.Fatal("the copies of a finished save were not reused")
	}
	if got := h.keptCopies(); got == s {
		t.Fatal("copies in use were handed out twice")
	}
	h.keepCopies(s, nil)
	if got := h.keptCopies(); got != s {
		t.Fatal("the copies of a blocking save were not reused")
	}
	h.Close()
	h.keepCopies(s, nil)
	if h.saveKept != nil {
		t.Fatal("a closed host keeps copies")
	}
}
