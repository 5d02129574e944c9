package inspector_test

import (
	"github.com/luaai/luaai/inspector"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
)

// BenchmarkInspector measures what the web inspector costs a tick of
// 10,000 guards: attached with no page open, and with a page open that
// shows the list (built ten times a second) and two picked agents in
// full. page_open_vs_none ticks a host with the page open and one without
// in turn, in the same run, and reports the ratio of their tick times.
func BenchmarkInspector(b *testing.B) {
	open := func(b *testing.B, h *host.Host) (*inspector.Handler, func()) {
		ih := inspector.New(h, inspector.Options{AllowUnauthenticated: true})
		srv := httptest.NewServer(ih)
		res, err := http.Get(srv.URL + "/api/stream?agents=1,2&limit=100")
		if err != nil {
			b.Fatal(err)
		}
		go io.Copy(io.Discard, res.Body)
		return ih, func() {
			res.Body.Close()
			srv.Close()
			ih.Close()
		}
	}
	b.Run("none", func(b *testing.B) { tickGuards(b, newGuards(b, benchAgents), benchAgents) })
	b.Run("attached", func(b *testing.B) {
		h := newGuards(b, benchAgents)
		inspector.New(h, inspector.Options{AllowUnauthenticated: true})
		tickGuards(b, h, benchAgents)
	})
	b.Run("page_open", func(b *testing.B) {
		h := newGuards(b, benchAgents)
		_, closeIt := open(b, h)
		defer closeIt()
		tickGuards(b, h, benchAgents)
	})
	b.Run("page_open_vs_none", func(b *testing.B) {
		// One host, ticked with its inspector (page open) and without it
		// in turn: the same agents in the same memory, so the ratio is
		// the inspector's cost, not the layout of two hosts.
		h := newGuards(b, benchAgents)
		defer h.Close()
		ih, closeIt := open(b, h)
		defer closeIt()
		var tNone, tPage time.Duration
		ratios := make([]float64, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			reattach := inspector.Detach(ih)
			t0 := time.Now()
			_ = h.Tick(0.016)
			d0 := time.Since(t0)
			reattach()
			t1 := time.Now()
			_ = h.Tick(0.016)
			d1 := time.Since(t1)
			tNone += d0
			tPage += d1
			ratios = append(ratios, float64(d1)/float64(d0))
		}
		// The median of the per-pair ratios: a tick that the machine
		// slowed for other reasons moves it little.
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], "ratio")
		b.ReportMetric(float64(tNone.Nanoseconds())/float64(b.N)/benchAgents, "ns/agent-tick-none")
		b.ReportMetric(float64(tPage.Nanoseconds())/float64(b.N)/benchAgents, "ns/agent-tick-page")
	})
}

const benchAgents = 10000

// newGuards is a host of n agents running the shipped guard, ticked once.
func newGuards(b *testing.B, n int) *host.Host {
	h, err := host.New(host.Options{Roots: []string{"../scripts"}})
	if err != nil {
		b.Fatal(err)
	}
	beh, err := h.LoadFile("../scripts/guard.lua")
	if err != nil {
		b.Fatal(err)
	}
	for range n {
		if _, err := h.Spawn(beh, nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := h.Tick(0.016); err != nil {
		b.Fatal(err)
	}
	return h
}

// tickGuards ticks h b.N times and reports the time per agent-tick. It
// closes h.
func tickGuards(b *testing.B, h *host.Host, agents int) {
	defer h.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = h.Tick(0.016)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(agents), "ns/agent-tick")
}
