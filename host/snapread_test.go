package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
)

// snapReadSeeds are documents and values for the reader's fuzz tests:
// what Save writes, and the JSON corners encoding/json has rules for.
var snapReadSeeds = []string{
	`{"version":1,"agents":[{"id":1,"behaviour":"g.lua","ticks":3,"clock":0.3,"rng":"AAAA","ctx":{"a":[1,2,{"$num":"nan"}],"s":"x\u00e9\"\\\/\b\f\n\r\t"},"states":{"":{"time":0.3,"every":0.3},"s.t":{"time":1,"every":0,"tree":{"selector":{"running":true,"child":1,"start":0.5,"done":"success","cooled_at":2}}}},"machines":{"":{"stack":["s"],"history":"s","decide_acc":0.1,"request":{"kind":"push","target":"t","where":"a.lua:3: ","payload":{"x":1}}}},"events":[{"name":"e","payload":null}],"messages":[{"name":"m","payload":[1],"from":2}],"suspended":"host","overruns":1,"owed":0.5,"interval":3,"synced":["body"],"bound":["ctx.job"]}]}`,
	`{"version":1,"agents":[]}`,
	`{"version":1,"agents":[{"ID":1}]}`,
	`{"version":1,"agents":[{"id":1,"id":2}]}`,
	`{"version":1,"agents":[{"id":1.5}]}`,
	`{"version":1,"agents":[{"id":null,"ctx":null}]}`,
	`{"version":1,"agents":[{"clock":1e400}]}`,
	`{"version":1,"agents":[{"rng":"\ud800\udc00\ud800x\uDFFF"}]}`,
	"{\"version\":1,\"agents\":[{\"behaviour\":\"\xff\xfe\"}]}",
	`{"version":1,"agents":[{"states":{"a":{},"a":{}}}]}`,
	`{"version":1,"agents":[]} x`,
	`{"version":1,"agents":[],}`,
	`[1, 2.5e3, -0, "a", true, false, null, {"k": {"$pairs": [[1, 2]]}}, []]`,
	`{"a": 01}`, `{"a": 1.}`, `{"a": "\x"}`, `{"a" 1}`, `[1,]`, `[1 2]`, `{"a":1,}`, ` `, `"\u12"`,
}

// The fast reader takes what encoding/json takes, as it reads it: any
// document it does not give up on decodes to the same records.
func FuzzSnapshotReader(f *testing.F) {
	for _, s := range snapReadSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, err := readSnapshotFile(data)
		if err != nil {
			if !errors.Is(err, errNotFast) {
				t.Fatalf("an error other than errNotFast: %v", err)
			}
			return
		}
		var slow snapshotFile
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&slow); err != nil {
			t.Fatalf("fast reader took what encoding/json refuses (%v): %q", err, data)
		}
		if _, err := dec.Token(); err != io.EOF {
			t.Fatalf("fast reader took data after the document: %q", data)
		}
		if !reflect.DeepEqual(normal(fast), normal(slow)) {
			t.Fatalf("readers differ on %q:\nfast %+v\nslow %+v", data, fast, slow)
		}
	})
}

// normal makes empty and nil slices and raw values compare equal.
func normal(f snapshotFile) snapshotFile {
	j, _ := json.Marshal(f)
	var out snapshotFile
	_ = json.Unmarshal(j, &out)
	return out
}

// tokReader reads the tokens json.Decoder reads, and fails where it fails.
func FuzzTokReader(f *testing.F) {
	for _, s := range snapReadSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := json.NewDecoder(bytes.NewReader(data))
		want.UseNumber()
		got := &tokReader{s: jsonBytes{b: data}}
		for i := 0; ; i++ {
			wt, werr := want.Token()
			gt, gerr := got.Token()
			if werr != nil {
				if werr == io.EOF && gerr != io.EOF {
					t.Fatalf("token %d: json ended, tokReader gave %v, %v on %q", i, gt, gerr, data)
				}
				if werr != io.EOF && gerr == nil {
					t.Fatalf("token %d: json failed (%v), tokReader gave %#v on %q", i, werr, gt, data)
				}
				return
			}
			if gerr != nil || !reflect.DeepEqual(wt, gt) {
				t.Fatalf("token %d: json gave %#v, tokReader %#v, %v on %q", i, wt, gt, gerr, data)
			}
			if want.More() != got.More() {
				t.Fatalf("token %d: More differs on %q", i, data)
			}
		}
	})
}

// The fast reader reads every document Save writes (every field, odd
// strings, extreme numbers) as encoding/json does, without giving up.
func TestSnapshotReaderTakesSaves(t *testing.T) {
	for _, agents := range [][]agentSnapshot{
		{},
		{{}},
		{{ID: 1, States: map[string]stateSnapshot{}, Machines: map[string]machineSnapshot{}, Bound: []string{}, Events: []eventSnapshot{}}},
		{fullAgentSnapshot(), {ID: 2, Clock: 1e-300, Owed: 1e20, Interval: 4}},
	} {
		doc := appendSnapshotFile(nil, agents)
		fast, err := readSnapshotFile(doc)
		if err != nil {
			t.Fatalf("gave up on %s", doc)
		}
		var slow snapshotFile
		if err := json.Unmarshal(doc, &slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(normal(fast), normal(slow)) {
			t.Fatalf("readers differ on %s:\nfast %+v\nslow %+v", doc, fast, slow)
		}
	}
}

func TestSnapshotReaderFields(t *testing.T) {
	if n := reflect.TypeFor[agentSnapshot]().NumField(); n != readerAgentFields {
		t.Errorf("agentSnapshot has %d fields, readSnapshotFile reads %d: add the new ones to jsonBytes.agent", n, readerAgentFields)
	}
}
