package lsp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// bigMachine is a machine of n states, each with a transition to the
// next; the last one's to string is where completion is asked.
func bigMachine(n int) string {
	var b strings.Builder
	b.WriteString("local ai = require(\"luaai\")\nreturn ai.fsm {\n  initial = \"s0\",\n  context = { hp = 100 },\n  states = {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    s%d = { transitions = { { to = \"s%d\", on = \"e%d\" } } },\n", i, (i+1)%n, i%50)
	}
	b.WriteString("  },\n}\n")
	return b.String()
}

// BenchmarkCompletion10000States: completion of the states inside a to
// string of a 10,000-state machine, on a buffer already read (the
// request alone).
func BenchmarkCompletion10000States(b *testing.B) {
	text := bigMachine(10000)
	d := &document{text: text}
	o := d.outline()
	s := newServer(Options{})
	off := strings.LastIndex(text, `to = "`) + 6
	require.Len(b, s.complete(d, o, off).Items, 10000)
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		s.complete(d, o, off)
	}
	reportCPU(b, cpu)
}

// BenchmarkCompletion10000StatesAfterEdit: the same after an edit, so the
// buffer is read again first (what a completion costs as one types).
func BenchmarkCompletion10000StatesAfterEdit(b *testing.B) {
	text := bigMachine(10000)
	s := newServer(Options{})
	off := strings.LastIndex(text, `to = "`) + 6
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		d := &document{text: text}
		s.complete(d, d.outline(), off)
	}
	reportCPU(b, cpu)
}

// reportCPU adds cpu-ns/op beside ns/op: on a machine shared with other
// work, the wall time per operation grows and the CPU time does not.
func reportCPU(b *testing.B, since time.Duration) {
	if used := cpuTime() - since; since > 0 && b.N > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkCompletion10000StatesJSON: the request as the editor gets it,
// the list of 10,000 items encoded as the answer's JSON.
func BenchmarkCompletion10000StatesJSON(b *testing.B) {
	text := bigMachine(10000)
	d := &document{text: text}
	o := d.outline()
	s := newServer(Options{})
	off := strings.LastIndex(text, `to = "`) + 6
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := json.Marshal(s.complete(d, o, off)); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}
