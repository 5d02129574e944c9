package inspector_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"github.com/luaai/luaai/inspector"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inspected is a behaviour with every part the inspector shows: an fsm
// with a push, a utility machine with curves, every, logs and errors.
const inspected = `
local ai = require("luaai")
return ai.fsm {
  initial = "idle",
  context = { hunger = 0.25, energy = 0.5, n = 0, nested = { depth = 1 } },
  states = {
    idle = {
      every = 0.2,
      update = function(ctx) ctx.n = ctx.n + 1; ai.log("n is " .. ctx.n) end,
      transitions = {
        { on = "alarm", to = "busy" },
        { on = "look", push = "look" },
        { on = "boom", run = function() error("boom went wrong") end },
      },
    },
    look = { transitions = { { on = "done", pop = true } } },
    busy = ai.utility {
      states = {
        eat = { score = ai.curve(ai.field("hunger"), { kind = "logistic", k = 1 }) },
        rest = { score = ai.inverse(ai.field("energy")) },
      },
    },
  },
}
`

type inspectorRig struct {
	t   *testing.T
	h   *host.Host
	ih  *inspector.Handler
	srv *httptest.Server
	as  []*host.Agent
}

func newInspectorRig(t *testing.T, n int, opts inspector.Options) *inspectorRig {
	t.Helper()
	h, err := host.New(host.Options{Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7})
	require.NoError(t, err)
	t.Cleanup(h.Close)
	b, err := h.LoadString("inspected.lua", inspected)
	require.NoError(t, err)
	r := &inspectorRig{t: t, h: h}
	for range n {
		a, err := h.Spawn(b, nil)
		require.NoError(t, err)
		r.as = append(r.as, a)
	}
	if opts.Token == "" {
		opts.AllowUnauthenticated = true // the test server listens on loopback
	}
	r.ih = inspector.New(h, opts)
	r.srv = httptest.NewServer(r.ih)
	t.Cleanup(r.srv.Close)
	return r
}

func (r *inspectorRig) tick(n int) {
	r.t.Helper()
	for range n {
		require.NoError(r.t, r.h.Tick(0.1))
	}
}

func (r *inspectorRig) post(body string) (int, string) {
	r.t.Helper()
	res, err := http.Post(r.srv.URL+"/api/command", "application/json", strings.NewReader(body))
	require.NoError(r.t, err)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

func (r *inspectorRig) get(path string) (int, string) {
	r.t.Helper()
	res, err := http.Get(r.srv.URL + path)
	require.NoError(r.t, err)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

// sse reads a stream's events in the background.
type sse struct {
	mu      sync.Mutex
	events  []sseEvent
	arrived chan struct{} // closed when the next event arrives
	ended   chan struct{} // closed when the stream ends
	res     *http.Response
}

type sseEvent struct{ name, data string }

func (r *inspectorRig) stream(query string) *sse {
	r.t.Helper()
	res, err := http.Get(r.srv.URL + "/api/stream?" + query)
	require.NoError(r.t, err)
	require.Equal(r.t, http.StatusOK, res.StatusCode)
	require.Equal(r.t, "text/event-stream", res.Header.Get("Content-Type"))
	s := &sse{res: res, arrived: make(chan struct{}), ended: make(chan struct{})}
	r.t.Cleanup(func() { res.Body.Close() })
	go func() {
		defer close(s.ended)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				s.mu.Lock()
				s.events = append(s.events, sseEvent{name, strings.TrimPrefix(line, "data: ")})
				close(s.arrived)
				s.arrived = make(chan struct{})
				s.mu.Unlock()
			}
		}
	}()
	return s
}

// wait returns the data of the first event named name for which ok holds,
// looking again at each event that arrives (tick, if not nil, keeps the
// host ticking meanwhile). It has no clock: it fails when the stream ends
// first, and otherwise waits as long as the events take.
func (s *sse) wait(t *testing.T, name string, tick func(), ok func(data string) bool) string {
	t.Helper()
	for {
		s.mu.Lock()
		for _, e := range s.events {
			if e.name == name && ok(e.data) {
				s.mu.Unlock()
				return e.data
			}
		}
		arrived := s.arrived
		s.mu.Unlock()
		if tick != nil {
			tick()
		}
		select {
		case <-arrived:
		case <-s.ended:
			s.mu.Lock()
			for _, e := range s.events {
				if e.name == name {
					if ok(e.data) {
						s.mu.Unlock()
						return e.data
					}
					t.Logf("seen: %.400s", e.data)
				}
			}
			s.mu.Unlock()
			t.Fatalf("the stream ended with no %s event as wanted", name)
			return ""
		}
	}
}

func TestInspectorStreamsFrames(t *testing.T) {
	r := newInspectorRig(t, 3, inspector.Options{})
	s := r.stream("agents=2")
	r.tick(3)
	list := s.wait(t, "list", nil, func(string) bool { return true })
	var l struct {
		Total int `json:"total"`
		Rows  []struct {
			ID   int    `json:"id"`
			Path string `json:"path"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(list), &l))
	assert.Equal(t, 3, l.Total)
	require.Len(t, l.Rows, 3)
	assert.Equal(t, "idle", l.Rows[0].Path)

	data := s.wait(t, "agent", nil, func(d string) bool { return strings.Contains(d, `"tick":3`) })
	var a struct {
		First, Last int
		Frame       struct {
			ID      int            `json:"id"`
			Tick    int            `json:"tick"`
			Path    string         `json:"path"`
			Context map[string]any `json:"context"`
			Logs    []struct{ Msg string }
			Timers  []struct {
				State      string
				Every, Acc float64
			}
			Structure int `json:"structure"`
		} `json:"frame"`
	}
	require.NoError(t, json.Unmarshal([]byte(data), &a))
	assert.Equal(t, 2, a.Frame.ID)
	assert.Equal(t, "idle", a.Frame.Path)
	assert.Equal(t, 1.0, a.Frame.Context["n"], "every = 0.2 at dt 0.1: updated at tick 2 only so far")
	require.Len(t, a.Frame.Timers, 1)
	assert.Equal(t, 0.2, a.Frame.Timers[0].Every)
	assert.Equal(t, 0, a.First, "auto-followed from its spawn")
	st := s.wait(t, "structure", nil, func(string) bool { return true })
	assert.Contains(t, st, `"name":"busy"`)
	assert.Contains(t, st, `"curve":"logistic`)
	code, hist := r.get("/api/history?agent=2&tick=2")
	require.Equal(t, http.StatusOK, code, hist)
	assert.Contains(t, hist, `"frame":{"id":2,"tick":2`)
	assert.Contains(t, hist, `"prev":{"id":2,"tick":1`)
	assert.Contains(t, hist, `"msg":"n is 1"`, "the frame of tick 2 holds its log line")
}

func TestInspectorCommands(t *testing.T) {
	r := newInspectorRig(t, 2, inspector.Options{})
	r.tick(1)
	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{`{"op":"pause"}`, 202, `"seq":1`},
		{`{"op":"step","n":2}`, 202, `"seq":2`},
		{`{"op":"send","agent":1,"event":"alarm"}`, 202, ``},
		{`{"op":"set","agent":"*","path":"nested.depth","value":7}`, 202, ``},
		{`{"op":"set","agent":[2],"path":"hunger","value":0.9}`, 202, ``},
		{`{"op":"send","agent":9,"event":"x"}`, 404, `agent 9: no such agent`},
		{`{"op":"send","agent":1}`, 400, `event must be a name`},
		{`{"op":"fly"}`, 400, `unknown op`},
		{`{"op":"step","n":-1}`, 400, `n must be from 1`},
		{`{"op":"rate","hz":5}`, 400, `sets its own tick rate`},
		{`{"op":"set","agent":1,"path":"a..b","value":1}`, 400, `empty key`},
		{`{"op":"set","agent":1,"path":"hunger"}`, 400, `value is missing`},
		{`{"op":"send","agent":1,"event":"x","payload":` + strings.Repeat("[", 150) + strings.Repeat("]", 150) + `}`, 400, `nested more than 100`},
		{`{"op":"send","agent":1,"event":"x"} {}`, 400, `one JSON object`},
		{`{"op":"send","agent":"all","event":"x"}`, 400, `want an id`},
		{`{"op":"send","agent":1,"event":"x","lua":"os.exit()"}`, 400, `unknown field`},
		{`not json`, 400, `bad inspector command`},
	} {
		code, body := r.post(c.body)
		assert.Equal(t, c.code, code, c.body+" → "+body)
		assert.Contains(t, body, c.want, c.body)
	}
	// Paused with two ticks of step: four Ticks run two, and the two that
	// did not run say so.
	var paused int
	for range 4 {
		before := r.h.TickNumber()
		require.NoError(t, r.h.Tick(0.1))
		if r.h.TickNumber() == before {
			paused++
		}
	}
	assert.Equal(t, 2, paused)
	assert.True(t, r.h.Paused())
	assert.Equal(t, 3, r.as[0].Ticks())
	assert.Equal(t, "busy.rest", r.as[0].Path(), "the alarm was sent before the first stepped tick")
	depth := r.as[1].Get("nested")
	assert.Equal(t, map[string]any{"depth": 7.0}, depth)
	hunger := r.as[1].Get("hunger")
	assert.Equal(t, 0.9, hunger)
	code, _ := r.post(`{"op":"resume"}`)
	require.Equal(t, 202, code)
	r.tick(2)
	assert.Equal(t, 5, r.as[0].Ticks())

	// A set that fails is reported in the status, and the game goes on.
	code, _ = r.post(`{"op":"set","agent":1,"path":"hunger.x","value":1}`)
	require.Equal(t, 202, code)
	s := r.stream("")
	r.tick(1)
	s.wait(t, "status", nil, func(d string) bool {
		return strings.Contains(d, `hunger: not a table`) || strings.Contains(d, `"op":"set","error"`)
	})
	assert.Equal(t, 6, r.as[0].Ticks())
}

func TestInspectorSecurity(t *testing.T) {
	r := newInspectorRig(t, 1, inspector.Options{Token: "s3cret"})
	for _, c := range []struct {
		name   string
		method string
		path   string
		header map[string]string
		code   int
	}{
		{"no token", "GET", "/", nil, 401},
		{"wrong token", "GET", "/?token=nope", nil, 401},
		{"token in the URL", "GET", "/?token=s3cret", nil, 200},
		{"token as a header", "GET", "/app.js", map[string]string{"Authorization": "Bearer s3cret"}, 200},
		{"a command from another site", "POST", "/api/command?token=s3cret", map[string]string{"Origin": "http://evil.example", "Content-Type": "application/json"}, 401},
		{"a command as a form", "POST", "/api/command?token=s3cret", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 401},
		{"a command from the page", "POST", "/api/command?token=s3cret", map[string]string{"Origin": r.srv.URL, "Content-Type": "application/json"}, 202},
		{"GET on a command", "GET", "/api/command?token=s3cret", nil, 405},
		{"an unknown page", "GET", "/etc/passwd?token=s3cret", nil, 404},
		{"a stream of too many agents", "GET", "/api/stream?token=s3cret&agents=1,2,3,4,5,6,7,8,9", nil, 400},
		{"a history of an unknown agent", "GET", "/api/history?token=s3cret&agent=5&tick=1", nil, 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, r.srv.URL+c.path, strings.NewReader(`{"op":"pause"}`))
			require.NoError(t, err)
			for k, v := range c.header {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			assert.Equal(t, c.code, res.StatusCode, string(body))
			if c.code >= 400 {
				assert.Contains(t, string(body), `"error":"inspector: `)
			}
		})
	}

	// Without a token, a request naming another host (DNS rebinding) is
	// refused.
	open := newInspectorRig(t, 1, inspector.Options{})
	req, _ := http.NewRequest("GET", open.srv.URL+"/", nil)
	req.Host = "attacker.example:7070"
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	code, page := open.get("/")
	assert.Equal(t, 200, code)
	assert.Contains(t, page, "<title>luaai inspector</title>")

	// The library's default: no token, no AllowUnauthenticated, nothing
	// answered, even on loopback (a proxy on this machine would forward
	// the world).
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	closed := httptest.NewServer(inspector.New(h, inspector.Options{}))
	defer closed.Close()
	for _, path := range []string{"/", "/api/stream", "/api/command"} {
		res, err := http.Post(closed.URL+path, "application/json", strings.NewReader(`{"op":"pause"}`))
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Contains(t, []int{401, 403}, res.StatusCode, path)
		assert.Contains(t, string(body), "has no token", path)
	}
	require.False(t, h.Paused())
}

func TestInspectorOnCommand(t *testing.T) {
	var mu sync.Mutex
	var got []inspector.Command
	r := newInspectorRig(t, 1, inspector.Options{RateControl: true, OnCommand: func(c inspector.Command) {
		mu.Lock()
		got = append(got, c)
		mu.Unlock()
	}})
	code, _ := r.post(`{"op":"pause"}`)
	require.Equal(t, 202, code)
	code, _ = r.post(`{"op":"rate","hz":20}`)
	require.Equal(t, 202, code)
	code, _ = r.post(`{"op":"send","agent":"*","event":"alarm","payload":{"n":1}}`)
	require.Equal(t, 202, code)
	r.tick(1)
	assert.Equal(t, 1, r.as[0].Ticks(), "with OnCommand the game loop pauses, not Tick")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 3)
	assert.Equal(t, inspector.OpPause, got[0].Op)
	assert.Equal(t, 20.0, got[1].Hz)
	assert.Equal(t, inspector.Command{Op: "send", All: true, Event: "alarm", Payload: map[string]any{"n": 1.0}, Seq: 3}, got[2])
	require.NoError(t, inspector.ApplyCommand(r.h, got[2]))
	// A send or set is shown done only when the game says so, with its
	// error when it was refused.
	s := r.stream("")
	r.ih.Done(got[2].Seq, nil)
	r.ih.Done(99, errors.New("no such command: ignored"))
	mu.Unlock()
	code, _ = r.post(`{"op":"set","agent":1,"path":"hunger.x","value":1}`)
	require.Equal(t, 202, code)
	mu.Lock()
	require.Len(t, got, 4)
	r.ih.Done(got[3].Seq, inspector.ApplyCommand(r.h, got[3]))
	s.wait(t, "status", nil, func(d string) bool {
		return strings.Contains(d, `{"seq":3,"op":"send"}`) && strings.Contains(d, `"seq":4,"op":"set","error":"agent 1: \"hunger\" is a number, not a table"`)
	})
	r.tick(1)
	assert.True(t, r.as[0].Active("busy"))
	assert.ErrorIs(t, inspector.ApplyCommand(r.h, inspector.Command{Op: "send", Agents: []int{42}, Event: "x"}), inspector.ErrUnknownAgent)
	assert.ErrorIs(t, inspector.ApplyCommand(r.h, inspector.Command{Op: "pause"}), inspector.ErrBadCommand)
}

func TestInspectorPicksAmongMany(t *testing.T) {
	r := newInspectorRig(t, 40, inspector.Options{History: 5})
	r.tick(2)
	code, _ := r.get("/api/history?agent=7&tick=2")
	assert.Equal(t, 404, code, "with more agents than AutoWatch, only picked agents are followed")
	s := r.stream("agents=7&filter=idle&sort=id&offset=10&limit=5")
	r.tick(1)
	data := s.wait(t, "agent", nil, func(d string) bool { return strings.Contains(d, `"id":7`) })
	assert.Contains(t, data, `"first":3`, "followed from when it was picked")
	list := s.wait(t, "list", nil, func(string) bool { return true })
	assert.Contains(t, list, `"total":40,"matched":40,"offset":10`)
	assert.Contains(t, list, `"rows":[{"id":11,`)
	r.tick(10)
	code, hist := r.get("/api/history?agent=7&tick=100")
	require.Equal(t, 200, code)
	assert.Contains(t, hist, `"first":9,"last":13`, "History: 5 keeps five ticks")

	// An error is counted in the list, and the filter finds it.
	require.NoError(t, r.as[3].Send("boom", nil))
	r.tick(1)
	s2 := r.stream("errors=1")
	r.tick(1)
	list = s2.wait(t, "list", nil, func(d string) bool { return strings.Contains(d, `"matched":1`) })
	assert.Contains(t, list, `"id":4`)
	assert.Contains(t, list, `"errors":1`)
}

func TestInspectorClose(t *testing.T) {
	r := newInspectorRig(t, 1, inspector.Options{})
	s := r.stream("agents=1")
	r.tick(1)
	s.wait(t, "agent", nil, func(string) bool { return true })
	r.ih.Close()
	r.ih.Close() // twice is fine
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, s.res.Body)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the stream")
	}
	r.tick(1)
	_, ok := r.as[0].LastDecision("busy")
	assert.False(t, ok)
	code, _ := r.get("/api/stream")
	assert.Equal(t, http.StatusServiceUnavailable, code)
}

// TestInspectorWithWorkers reads streams and posts commands while four
// workers tick: under -race, the HTTP side never touches what they do.
func TestInspectorWithWorkers(t *testing.T) {
	h, err := host.New(host.Options{Workers: 4, Budget: -1, MemoryLimit: -1, BudgetSteps: 1e7})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("inspected.lua", inspected)
	require.NoError(t, err)
	for range 64 {
		_, err := h.Spawn(b, nil)
		require.NoError(t, err)
	}
	ih := inspector.New(h, inspector.Options{AllowUnauthenticated: true})
	srv := httptest.NewServer(ih)
	defer srv.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := http.Post(srv.URL+"/api/command", "application/json", strings.NewReader(`{"op":"send","agent":"*","event":"look"}`))
				if err == nil {
					res.Body.Close()
				}
				res, err = http.Get(srv.URL + "/api/history?agent=" + string(rune('1'+i)) + "&tick=3")
				if err == nil {
					res.Body.Close()
				}
			}
		}()
	}
	res, err := http.Get(srv.URL + "/api/stream?agents=1,2,3")
	require.NoError(t, err)
	go io.Copy(io.Discard, res.Body)
	for range 50 {
		require.NoError(t, h.Tick(0.1))
	}
	close(stop)
	wg.Wait()
	// The senders may have had no turn on a loaded machine: one more send,
	// applied at the start of the next tick, whatever the timing.
	sent, err := http.Post(srv.URL+"/api/command", "application/json", strings.NewReader(`{"op":"send","agent":"*","event":"look"}`))
	require.NoError(t, err)
	sent.Body.Close()
	require.NoError(t, h.Tick(0.1))
	res.Body.Close()
	ih.Close()
	assert.True(t, h.Agents()[0].Active("look"))
}

func TestParseCommand(t *testing.T) {
	c, err := inspector.ParseCommand([]byte(`{"op":"set","agent":[1,2],"path":"a.b","value":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, inspector.Command{Op: "set", Agents: []int{1, 2}, Path: []string{"a", "b"}, Value: "x"}, c)
	_, err = inspector.ParseCommand([]byte(`{"op":""}`))
	assert.True(t, errors.Is(err, inspector.ErrBadCommand))
}

// TestInspectorHostileAgent: an agent whose context is shared a billion
// ways, which queues thousands of events with huge names and logs without
// end, still gets a bounded frame, and the game goes on.
func TestInspectorHostileAgent(t *testing.T) {
	h, err := host.New(host.Options{Budget: -1, MemoryLimit: -1, BudgetSteps: 1e8})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("hostile.lua", `
local ai = require("luaai")
return ai.fsm {
  initial = "a",
  states = { a = { update = function(ctx)
    local t = { x = 1 }
    for _ = 1, 40 do t = { l = t, r = t } end
    ctx.shared = t
    local name = string.rep("n", 100000)
    for _ = 1, 5000 do ai.send(name) end
    for i = 1, 1000 do ai.log("line " .. i) end
  end } },
}`)
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	ih := inspector.New(h, inspector.Options{AllowUnauthenticated: true})
	defer ih.Close()
	srv := httptest.NewServer(ih)
	defer srv.Close()
	require.NoError(t, h.Tick(0.1))
	require.NoError(t, h.Tick(0.1))
	res, err := http.Get(srv.URL + "/api/history?agent=1&tick=2")
	require.NoError(t, err)
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	assert.Less(t, len(data), 2*(256<<10)+100<<10, "two frames of at most 256 KiB each, with bounded events")
	assert.Contains(t, string(data), "too large to show")
	var out struct {
		Frame struct {
			Events []struct{ Name string }
			Logs   []struct{ Msg string }
		}
	}
	require.NoError(t, json.Unmarshal(data, &out))
	assert.LessOrEqual(t, len(out.Frame.Events), 100)
	assert.LessOrEqual(t, len(out.Frame.Logs), 100)
}

// A frame stays within its size whatever a script queues: a 4 MiB payload
// sent every tick is shown as too large, not kept in every frame of the
// history.
func TestInspectorClipsPayloads(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("big.lua", `local ai = require("luaai")
local big = string.rep("x", 4 * 1024 * 1024)
return ai.fsm { initial = "a", states = { a = {
  update = function(ctx)
    ai.send("noise", { data = big })
    ai.push("a")
  end } } }`)
	require.NoError(t, err)
	_, err = h.Spawn(b, nil)
	require.NoError(t, err)
	ih := inspector.New(h, inspector.Options{AllowUnauthenticated: true})
	defer ih.Close()
	srv := httptest.NewServer(ih)
	defer srv.Close()
	for range 5 {
		require.NoError(t, h.Tick(0.1))
	}
	res, err := http.Get(srv.URL + "/api/history?agent=1&tick=5")
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode, string(body))
	require.Less(t, len(body), 2*256<<10)
	require.Contains(t, string(body), "(too large to show)")
	require.Contains(t, string(body), `"name":"noise"`)
}

// Idle connections cannot lock the page out: with 32 streams open, the
// 33rd is served and the oldest is ended.
func TestInspectorStreamsMakeRoom(t *testing.T) {
	r := newInspectorRig(t, 1, inspector.Options{})
	var first *http.Response
	for i := range 32 {
		res, err := http.Get(r.srv.URL + "/api/stream")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode)
		t.Cleanup(func() { res.Body.Close() })
		if i == 0 {
			first = res
		}
	}
	s := r.stream("") // the 33rd
	s.wait(t, "status", nil, func(string) bool { return true })
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, first.Body)
		done <- err
	}()
	select {
	case <-done: // the oldest stream ended
	case <-time.After(5 * time.Second):
		t.Fatal("the oldest stream was not ended")
	}
}

// The page's set follows the rule of every write from outside the
// scripts: an unknown key or a value of another type is refused, with the
// messages luaai run gives.
func TestInspectorSetFollowsTheRule(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("inspected.lua", inspected)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	set := func(path []string, v any) error {
		return inspector.ApplyCommand(h, inspector.Command{Op: "set", Agents: []int{a.ID()}, Path: path, Value: v})
	}
	require.EqualError(t, set([]string{"hungr"}, 1.0), `agent 1: "hungr" is not a key of the context (did you mean "hunger"?)`)
	require.ErrorIs(t, set([]string{"hungr"}, 1.0), host.ErrUnknownKey)
	require.EqualError(t, set([]string{"hunger"}, "lots"), `agent 1: the default is a number, got the string "lots"`)
	require.EqualError(t, set([]string{"nested", "dept"}, 2.0), `agent 1: "nested.dept" is not a key of the context (did you mean "nested.depth"?)`)
	require.NoError(t, set([]string{"nested", "depth"}, 2.0))
	require.Equal(t, map[string]any{"depth": 2.0}, a.Get("nested"))
	require.Equal(t, 0.25, a.Get("hunger"), "refused writes change nothing")
}

// The page's resume with agents lets suspended agents tick again; without
// agents it resumes the game.
func TestInspectorResumeAgents(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("inspected.lua", inspected)
	require.NoError(t, err)
	a1, err := h.Spawn(b, nil)
	require.NoError(t, err)
	a2, err := h.Spawn(b, nil)
	require.NoError(t, err)
	require.NoError(t, a1.Suspend())
	require.NoError(t, a2.Suspend())

	c, err := inspector.ParseCommand([]byte(`{"op":"resume","agent":1}`))
	require.NoError(t, err)
	require.True(t, c.ForAgents())
	require.NoError(t, inspector.ApplyCommand(h, c))
	require.False(t, a1.Suspended())
	require.True(t, a2.Suspended())
	require.EqualError(t, inspector.ApplyCommand(h, c), "agent 1: not suspended")

	c, err = inspector.ParseCommand([]byte(`{"op":"resume","agent":"*"}`))
	require.NoError(t, err)
	require.NoError(t, inspector.ApplyCommand(h, c))
	require.False(t, a2.Suspended())

	c, err = inspector.ParseCommand([]byte(`{"op":"resume"}`))
	require.NoError(t, err)
	require.False(t, c.ForAgents(), "resume alone is the game's")
}

// With more agents than AutoWatch, a picked agent's history outlives the
// page that picked it: a reloaded page (a new stream) finds the ticks from
// before the reload.
func TestInspectorHistorySurvivesAPageReload(t *testing.T) {
	// Histories bounded by neither count nor bytes: the ticks below run
	// until the server has seen the page go, however many that takes.
	r := newInspectorRig(t, 40, inspector.Options{History: 1 << 30, HistoryBytes: -1})
	s := r.stream("agents=20")
	r.tick(1)
	s.wait(t, "agent", nil, func(d string) bool { return strings.Contains(d, `"id":20`) })
	r.tick(3)
	s.res.Body.Close() // the page reloads
	// Ticks while no page is open: the server sees the closed stream at a
	// write, and then shows agent 20 to nobody.
	for inspector.Shown(r.ih, 20) {
		r.tick(1)
		runtime.Gosched()
	}
	code, body := r.get("/api/history?agent=20&tick=2")
	require.Equal(t, 200, code, "followed on after the page closed: %s", body)
	s2 := r.stream("agents=20")
	r.tick(1)
	data := s2.wait(t, "agent", nil, func(d string) bool { return strings.Contains(d, `"id":20`) })
	require.Contains(t, data, `"first":1`, "the history goes back to before the reload")
}

// The page's reset and respawn take agents back to their initial state,
// keeping the context or making a new one; a set on all reaches the
// agents whose context has the key, as luaai run --set does, and is
// refused only when none has it.
func TestInspectorResetRespawnAndSetOnAll(t *testing.T) {
	h, err := host.New(host.Options{})
	require.NoError(t, err)
	defer h.Close()
	b, err := h.LoadString("inspected.lua", inspected)
	require.NoError(t, err)
	other, err := h.LoadString("other.lua", `local ai = require("luaai")
return ai.fsm { initial = "x", context = { mood = "calm" }, states = { x = {} } }`)
	require.NoError(t, err)
	a, err := h.Spawn(b, nil)
	require.NoError(t, err)
	o, err := h.Spawn(other, nil)
	require.NoError(t, err)
	for _, text := range []string{`{"op":"reset","agent":1}`, `{"op":"respawn","agent":"*"}`} {
		c, err := inspector.ParseCommand([]byte(text))
		require.NoError(t, err, text)
		require.True(t, c.ForAgents(), text)
	}
	_, err = inspector.ParseCommand([]byte(`{"op":"reset"}`))
	require.ErrorIs(t, err, inspector.ErrBadCommand, "reset names its agents")

	require.NoError(t, inspector.ApplyCommand(h, inspector.Command{Op: "set", All: true, Path: []string{"hunger"}, Value: 0.75}))
	require.Equal(t, 0.75, a.Get("hunger"))
	require.Nil(t, o.Get("hunger"), "not a key of the other script: not written")
	err = inspector.ApplyCommand(h, inspector.Command{Op: "set", All: true, Path: []string{"hungr"}, Value: 1.0})
	require.ErrorIs(t, err, host.ErrUnknownKey)
	require.Contains(t, err.Error(), "no agent's context has the key")

	require.NoError(t, inspector.ApplyCommand(h, inspector.Command{Op: "reset", Agents: []int{a.ID()}}))
	require.Equal(t, 0.75, a.Get("hunger"), "reset keeps the context")
	require.NoError(t, inspector.ApplyCommand(h, inspector.Command{Op: "respawn", All: true}))
	require.Equal(t, 0.25, a.Get("hunger"), "respawn: the defaults")
	require.Equal(t, "calm", o.Get("mood"))
}
