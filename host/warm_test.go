package host

import (
	"slices"
	"testing"
)

// The lookahead predicts the agents a host tick ticks: after each ticked
// agent, the next four that are neither suspended nor off their interval.
func TestLookaheadPredictsDueAgents(t *testing.T) {
	tests := []struct {
		name      string
		interval  func(id int) int
		suspended func(id int) bool
	}{
		{"all", func(int) int { return 1 }, func(int) bool { return false }},
		{"interval 4", func(int) int { return 4 }, func(int) bool { return false }},
		{"mixed", func(id int) int { return 1 + id%3 }, func(id int) bool { return id%7 == 0 }},
		{"none", func(int) int { return 1 }, func(int) bool { return true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const tn = 12
			var ags []*Agent
			var due []int
			for i := range 40 {
				a := &Agent{id: i + 1, interval: tt.interval(i + 1)}
				if tt.suspended(a.id) {
					a.suspension = SuspendedByHost
				}
				if a.suspension == NotSuspended && a.due(tn) {
					due = append(due, i)
				}
				ags = append(ags, a)
			}
			var l lookahead
			l.start(ags, tn)
			for x, k := range due {
				l.warm(k)
				want := due[x+1 : min(x+5, len(due))]
				if got := l.due[:l.n]; !slices.Equal(got, want) {
					t.Fatalf("after agent %d: predicted %v, want %v", k, got, want)
				}
			}
		})
	}
}
