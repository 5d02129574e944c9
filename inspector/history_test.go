package inspector_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/inspector"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bulky is a behaviour whose context the game fills with a large string,
// so that each of its frames is large.
const bulky = `
local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  context = { n = 0 },
  states = { idle = { update = function(ctx) ctx.n = ctx.n + 1 end } },
}
`

// heapNow is the live heap after a full collection.
func heapNow() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestInspectorHistoryBytes follows many agents with large contexts for
// long enough that their histories would hold far more than the bound
// (agents × ticks × frame: 24 × 50 × 48 KB, 57 MB), and checks that the
// inspector's account stays under the bound, that the account is what the
// frames hold, that the heap grows by no more than the bound and a margin,
// and that frames go in order: first those of the agents no page picked,
// then the agent picked earlier, and the agent picked last keeps the most.
func TestInspectorHistoryBytes(t *testing.T) {
	const (
		agents  = 24
		blob    = 48_000
		ticks   = 50
		margin  = 6 << 20 // the host's garbage, the HTTP side's buffers, the rings' map
		earlier = 5       // picked by a page first
		latest  = 9       // picked by a page last
	)
	for _, c := range []struct {
		bound int64
		// whole: the agent picked last keeps every frame since it was
		// followed (its history fits); else it keeps at least least.
		whole bool
		least int
	}{
		{bound: 2 << 20, least: 30}, // 2 MiB: 42 frames of 49 KB, less the other page's one
		{bound: 6 << 20, whole: true},
	} {
		t.Run(fmt.Sprintf("%dMiB", c.bound>>20), func(t *testing.T) {
			h, err := host.New(host.Options{Budget: -1, MemoryLimit: -1})
			require.NoError(t, err)
			t.Cleanup(h.Close)
			b, err := h.LoadString("bulky.lua", bulky)
			require.NoError(t, err)
			for i := range agents {
				_, err := h.Spawn(b, map[string]any{"blob": strings.Repeat(string(rune('a'+i)), blob)})
				require.NoError(t, err)
			}
			before := heapNow()
			ih := inspector.New(h, inspector.Options{AutoWatch: 64, HistoryBytes: c.bound, AllowUnauthenticated: true})
			t.Cleanup(ih.Close)
			r := &inspectorRig{t: t, h: h, ih: ih, srv: httptest.NewServer(ih)}
			t.Cleanup(r.srv.Close) // after the streams' ends (cleanups run last first)

			r.stream(fmt.Sprintf("agents=%d", earlier))
			waitShown(t, r, earlier)
			r.stream(fmt.Sprintf("agents=%d", latest))
			waitShown(t, r, latest)
			for range ticks {
				r.tick(1)
				account, counted := inspector.HistoryBytes(ih)
				require.Equal(t, counted, account, "the running account is what the frames hold")
				require.LessOrEqual(t, account, c.bound, "the histories stay within the bound")
			}
			grown := heapNow() - before
			t.Logf("bound %d MiB: the heap grew by %.1f MiB", c.bound>>20, float64(grown)/(1<<20))
			assert.Less(t, grown, c.bound+margin, "the heap grows by at most the bound and a margin")

			first, last, n := inspector.History(ih, latest)
			a, _ := h.Agent(latest)
			assert.Equal(t, a.Ticks(), last, "the latest frame is kept")
			assert.Equal(t, n, last-first+1, "no gap")
			if c.whole {
				assert.Equal(t, 0, first, "the agent picked last keeps its whole history")
			} else {
				assert.GreaterOrEqual(t, n, c.least, "the agent picked last keeps most of the bound")
			}
			_, _, nEarlier := inspector.History(ih, earlier)
			assert.GreaterOrEqual(t, nEarlier, 1, "a shown agent keeps its latest frame")
			assert.LessOrEqual(t, nEarlier, n, "the agent picked earlier loses frames first")
			prev := 0
			for id := 1; id <= agents; id++ {
				if id == earlier || id == latest {
					continue
				}
				_, _, k := inspector.History(ih, id)
				assert.LessOrEqual(t, k, nEarlier, "agent %d, never picked, loses its frames before a picked one", id)
				assert.GreaterOrEqual(t, k, prev, "agent %d: the agents no page picked lose frames in id order", id)
				prev = k
			}
			if !c.whole {
				assert.Equal(t, 1, nEarlier, "past the bound, the agent picked earlier keeps only its latest frame")
				assert.Zero(t, prev, "past the bound, the agents no page picked keep nothing")
			}
			code, body := r.get(fmt.Sprintf("/api/history?agent=%d&tick=%d", latest, first))
			require.Equal(t, 200, code, body)
			if !c.whole {
				code, body = r.get("/api/history?agent=1&tick=1")
				assert.Equal(t, 404, code)
				assert.Contains(t, body, "dropped to keep the inspector's history within its bound")
			}
		})
	}
}

// waitShown ticks until a page shows agent id.
func waitShown(t *testing.T, r *inspectorRig, id int) {
	t.Helper()
	for !inspector.Shown(r.ih, id) {
		r.tick(1)
		runtime.Gosched()
	}
}

// TestInspectorHistoryBeforeItsStart asks for ticks before an agent's
// history while the game ticks and refreshes: under -race, the answer
// reads nothing of the ring after unlocking.
func TestInspectorHistoryBeforeItsStart(t *testing.T) {
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			h, err := host.New(host.Options{Workers: workers, Budget: -1, MemoryLimit: -1})
			require.NoError(t, err)
			t.Cleanup(h.Close)
			b, err := h.LoadString("inspected.lua", inspected)
			require.NoError(t, err)
			for range 4 {
				_, err := h.Spawn(b, nil)
				require.NoError(t, err)
			}
			ih := inspector.New(h, inspector.Options{History: 2, AllowUnauthenticated: true})
			t.Cleanup(ih.Close)
			r := &inspectorRig{t: t, h: h, ih: ih, srv: httptest.NewServer(ih)}
			t.Cleanup(r.srv.Close) // after the streams' ends (cleanups run last first)
			r.tick(3)

			var asked atomic.Int64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var bad atomic.Value
			for id := 1; id <= 2; id++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						res, err := http.Get(fmt.Sprintf("%s/api/history?agent=%d&tick=0", r.srv.URL, id))
						if err != nil {
							bad.Store(err.Error())
							return
						}
						data, _ := io.ReadAll(res.Body)
						res.Body.Close()
						if res.StatusCode != 404 || !strings.Contains(string(data), "is before its history (from tick ") {
							bad.Store(fmt.Sprintf("%d %s", res.StatusCode, data))
						}
						asked.Add(1)
					}
				}()
			}
			for asked.Load() < 200 && bad.Load() == nil {
				r.tick(1)
				ih.Refresh()
			}
			close(stop)
			wg.Wait()
			assert.Nil(t, bad.Load())
		})
	}
}
