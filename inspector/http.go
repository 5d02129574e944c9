package inspector

// The web inspector's HTTP side: the page, its Server-Sent Events stream,
// agents' histories and the commands. It reads only what the game
// goroutine published (bytes and plain rows) and queues commands for it.

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed page
var pageFiles embed.FS

// agentFrame is a followed agent's frame at one of its ticks.
type agentFrame struct {
	tick      int
	structure int // the id of its behaviour's structure
	data      []byte
}

// frameRing is an agent's last frames, oldest first from start.
type frameRing struct {
	frames []agentFrame
	start  int
}

func (r *frameRing) add(f agentFrame, size int) {
	if n := len(r.frames); n > 0 && r.at(n-1).tick == f.tick {
		r.frames[(r.start+n-1)%len(r.frames)] = f // the same tick again (Refresh): the newer view
		return
	}
	if len(r.frames) < size {
		r.frames = append(r.frames, f)
		return
	}
	r.frames[r.start] = f
	r.start = (r.start + 1) % len(r.frames)
}

func (r *frameRing) at(i int) agentFrame { return r.frames[(r.start+i)%len(r.frames)] }
func (r *frameRing) last() agentFrame    { return r.at(len(r.frames) - 1) }

// find returns the index of the last frame at or before tick, or -1.
func (r *frameRing) find(tick int) int {
	i := sort.Search(len(r.frames), func(i int) bool { return r.at(i).tick > tick })
	return i - 1
}

type statusJSON struct {
	Tick        int          `json:"tick"`
	Agents      int          `json:"agents"`
	Paused      bool         `json:"paused"`
	Hz          float64      `json:"hz"`
	RateControl bool         `json:"rate_control"`
	History     int          `json:"history"`
	Results     []resultJSON `json:"results"`
}

// resultJSON is what became of a command.
type resultJSON struct {
	Seq   int    `json:"seq"`
	Op    string `json:"op"`
	Error string `json:"error,omitempty"`
}

type queued struct {
	seq int
	cmd Command
}

// shared is what the game goroutine publishes and the HTTP side reads,
// under mu.
type shared struct {
	opts Options
	mu   sync.Mutex
	done chan struct{} // closed by close

	closed     bool
	ver        int
	status     statusJSON
	ids        []int // the agents' ids, ascending
	rows       []rowJSON
	rowsVer    int
	hist       map[int]*frameRing
	structures map[int][]byte

	wants        map[int]int // agent id → streams that picked it
	wantsChanged bool
	streams      int
	subs         map[chan struct{}]struct{}
	open         []*openStream // oldest first: the one a new page displaces

	seq  int
	cmds []queued
	sent map[int]string // seq → op, of commands waiting for their result
}

func newShared(o Options) *shared {
	return &shared{
		opts: o, done: make(chan struct{}),
		status:     statusJSON{RateControl: o.RateControl, History: o.History},
		hist:       map[int]*frameRing{},
		structures: map[int][]byte{},
		wants:      map[int]int{},
		subs:       map[chan struct{}]struct{}{},
		sent:       map[int]string{},
	}
}

// install takes a tick's publication. ids is nil when unchanged; rows nil
// when not rebuilt.
func (s *shared) install(tick int, ids []int, rows []rowJSON, frames map[int]agentFrame, paused bool) {
	s.mu.Lock()
	s.ver++
	s.status.Tick = tick
	if s.opts.OnCommand == nil {
		s.status.Paused = paused
	}
	if ids != nil {
		s.ids = ids
		s.status.Agents = len(ids)
	}
	if rows != nil {
		s.rows = rows
		s.rowsVer++
	}
	for id, f := range frames {
		r := s.hist[id]
		if r == nil {
			r = &frameRing{}
			s.hist[id] = r
		}
		r.add(f, s.opts.History)
	}
	for id := range s.hist {
		if _, ok := frames[id]; !ok {
			delete(s.hist, id) // no longer followed
		}
	}
	s.mu.Unlock()
	s.notify()
}

func (s *shared) addStructure(id int, data []byte) {
	s.mu.Lock()
	s.structures[id] = data
	for old := range s.structures {
		if old <= id-64 {
			delete(s.structures, old)
		}
	}
	s.mu.Unlock()
}

// result records what became of command seq.
func (s *shared) result(seq int, err error) {
	s.mu.Lock()
	r := resultJSON{Seq: seq, Op: s.sent[seq]}
	delete(s.sent, seq)
	if err != nil {
		r.Error = clip(err.Error(), 1024)
	}
	s.status.Results = append(s.status.Results, r)
	if n := len(s.status.Results); n > 20 {
		s.status.Results = append([]resultJSON(nil), s.status.Results[n-20:]...)
	}
	s.ver++ // the streams send the status again
	s.mu.Unlock()
}

// notify wakes every stream.
func (s *shared) notify() {
	s.mu.Lock()
	for c := range s.subs {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	s.mu.Unlock()
}

func (s *shared) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
	}
	s.mu.Unlock()
}

// httpError answers an error as {"error": "..."}.
func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": "inspector: " + fmt.Sprintf(format, args...)})
}

func (s *shared) serve(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	if err := s.allowed(r); err != nil {
		code := http.StatusForbidden
		if s.opts.Token != "" {
			code = http.StatusUnauthorized
		}
		httpError(w, code, "%v", err)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	if path == "api/command" {
		if r.Method != http.MethodPost {
			hd.Set("Allow", "POST")
			httpError(w, http.StatusMethodNotAllowed, "api/command takes POST")
			return
		}
		s.command(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET")
		httpError(w, http.StatusMethodNotAllowed, "%s takes GET", r.URL.Path)
		return
	}
	switch path {
	case "", "index.html":
		s.file(w, "index.html", "text/html; charset=utf-8")
	case "app.js":
		s.file(w, "app.js", "text/javascript; charset=utf-8")
	case "style.css":
		s.file(w, "style.css", "text/css; charset=utf-8")
	case "api/stream":
		s.stream(w, r)
	case "api/history":
		s.history(w, r)
	case "api/structure":
		s.structure(w, r)
	default:
		httpError(w, http.StatusNotFound, "no page %s", r.URL.Path)
	}
}

// allowed checks who asks: with a token, that it has it; without, that it
// is on this machine (remote address and Host header both loopback, so a
// web page elsewhere cannot reach it through DNS rebinding). A POST must
// also come from the inspector's own page (Origin) and be JSON (which
// browsers cannot send across origins without asking first).
func (s *shared) allowed(r *http.Request) error {
	if s.opts.Token != "" {
		got := r.URL.Query().Get("token")
		if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
			got = strings.TrimPrefix(a, "Bearer ")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) != 1 {
			return errors.New("wrong or missing token (open the address printed at start, with its ?token=)")
		}
	} else if !s.opts.AllowUnauthenticated {
		return errors.New("the inspector has no token and does not answer without one (set Options.Token, or AllowUnauthenticated for a handler nothing forwards to)")
	} else if !loopback(r.RemoteAddr) || !loopbackHost(r.Host) {
		return errors.New("without a token the inspector answers only this machine (set a token: --inspect-token, Options.Token)")
	}
	if r.Method == http.MethodPost {
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Host != r.Host {
				return fmt.Errorf("a command from another site (Origin %q) is refused", o)
			}
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			return fmt.Errorf("a command must be sent as application/json, not %q", ct)
		}
	}
	return nil
}

func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *shared) file(w http.ResponseWriter, name, ctype string) {
	data, err := pageFiles.ReadFile("page/" + name)
	if err != nil {
		httpError(w, http.StatusNotFound, "%v", err)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.Write(data)
}

// maxPerPage bounds the agents one page shows side by side.
const maxPerPage = 8

// streamQuery is what a page's stream asks for.
type streamQuery struct {
	agents []int
	filter string // words matched against id, behaviour and path
	errors bool   // only agents with errors
	sort   string // "id", "path", "errors", "ticks"
	offset int
	limit  int
}

func parseStreamQuery(q url.Values) (streamQuery, error) {
	sq := streamQuery{filter: strings.ToLower(strings.TrimSpace(q.Get("filter"))), errors: q.Get("errors") == "1", sort: q.Get("sort"), limit: 100}
	if a := q.Get("agents"); a != "" {
		for _, f := range strings.Split(a, ",") {
			id, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return sq, fmt.Errorf("agents=%q: %q is not an agent id", a, f)
			}
			if !slices.Contains(sq.agents, id) {
				sq.agents = append(sq.agents, id)
			}
		}
		if len(sq.agents) > maxPerPage {
			return sq, fmt.Errorf("agents: at most %d at once, not %d", maxPerPage, len(sq.agents))
		}
	}
	switch sq.sort {
	case "", "id", "path", "errors", "ticks", "behaviour":
	default:
		return sq, fmt.Errorf("sort=%q: want id, path, behaviour, errors or ticks", sq.sort)
	}
	for _, p := range []struct {
		name string
		v    *int
		max  int
	}{{"offset", &sq.offset, 1 << 30}, {"limit", &sq.limit, 1000}} {
		if t := q.Get(p.name); t != "" {
			n, err := strconv.Atoi(t)
			if err != nil || n < 0 || n > p.max {
				return sq, fmt.Errorf("%s=%q: want a whole number from 0 to %d", p.name, t, p.max)
			}
			*p.v = n
		}
	}
	if len(sq.filter) > 200 {
		return sq, errors.New("filter: at most 200 characters")
	}
	return sq, nil
}

// listJSON is a page of the agent list.
type listJSON struct {
	Total   int       `json:"total"`
	Matched int       `json:"matched"`
	Offset  int       `json:"offset"`
	Rows    []rowJSON `json:"rows"`
}

// list filters and sorts rows for a page.
func (q streamQuery) list(rows []rowJSON) listJSON {
	words := strings.Fields(q.filter)
	match := make([]rowJSON, 0, min(len(rows), 1024))
	for _, r := range rows {
		if q.errors && r.Errors == 0 {
			continue
		}
		ok := true
		for _, w := range words {
			if !strings.Contains(strings.ToLower(r.Path), w) && !strings.Contains(strings.ToLower(r.Behaviour), w) && strconv.Itoa(r.ID) != w {
				ok = false
				break
			}
		}
		if ok {
			match = append(match, r)
		}
	}
	switch q.sort {
	case "path":
		sort.SliceStable(match, func(i, j int) bool { return match[i].Path < match[j].Path })
	case "behaviour":
		sort.SliceStable(match, func(i, j int) bool { return match[i].Behaviour < match[j].Behaviour })
	case "errors":
		sort.SliceStable(match, func(i, j int) bool { return match[i].Errors > match[j].Errors })
	case "ticks":
		sort.SliceStable(match, func(i, j int) bool { return match[i].Ticks > match[j].Ticks })
	}
	out := listJSON{Total: len(rows), Matched: len(match), Offset: q.offset}
	if q.offset < len(match) {
		out.Rows = match[q.offset:min(len(match), q.offset+q.limit)]
	}
	return out
}

// openStream is a stream being served; kick is closed to end it.
type openStream struct {
	kick    chan struct{}
	evicted bool // ended by a newer page: it no longer counts in streams
}

// streamWriteTimeout drops a page that stops reading: its writes block.
const streamWriteTimeout = 10 * time.Second

// stream serves a page's Server-Sent Events: "status" at every change,
// "list" (its page of the agent list), "structure" (once per behaviour
// shape) and "agent" (a picked agent's latest frame), at most ten
// times a second.
func (s *shared) stream(w http.ResponseWriter, r *http.Request) {
	q, err := parseStreamQuery(r.URL.Query())
	if err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		httpError(w, http.StatusInternalServerError, "the server cannot stream")
		return
	}
	wake := make(chan struct{}, 1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		httpError(w, http.StatusServiceUnavailable, "closed")
		return
	}
	if s.streams >= maxStreams && len(s.open) > 0 {
		// The oldest page gives way: idle connections cannot lock the
		// newest one out.
		old := s.open[0]
		s.open = s.open[1:]
		old.evicted = true
		s.streams--
		close(old.kick)
	}
	me := &openStream{kick: make(chan struct{})}
	s.open = append(s.open, me)
	s.streams++
	s.subs[wake] = struct{}{}
	for _, id := range q.agents {
		s.wants[id]++
	}
	s.wantsChanged = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if !me.evicted {
			s.streams--
			for i, o := range s.open {
				if o == me {
					s.open = append(s.open[:i], s.open[i+1:]...)
					break
				}
			}
		}
		delete(s.subs, wake)
		for _, id := range q.agents {
			if s.wants[id]--; s.wants[id] <= 0 {
				delete(s.wants, id)
			}
		}
		s.wantsChanged = true
		s.mu.Unlock()
	}()

	rc := http.NewResponseController(w)
	deadline := func() { _ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout)) }
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	deadline()
	fmt.Fprint(w, "retry: 1000\n\n")
	fl.Flush()

	st := streamState{q: q, sentTicks: map[int]int{}, sentStructures: map[int]bool{}, rowsVer: -1, ver: -1}
	ctx := r.Context()
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		var buf bytes.Buffer
		s.collect(&st, &buf)
		if buf.Len() > 0 {
			deadline()
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
			fl.Flush()
			if !sleepCtx(ctx, s.done, 100*time.Millisecond) {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-me.kick:
			return // a newer page took this one's place
		case <-keep.C:
			deadline()
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		case <-wake:
		}
	}
}

func sleepCtx(ctx context.Context, done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-done:
		return false
	case <-t.C:
		return true
	}
}

// streamState is what a stream has sent.
type streamState struct {
	q              streamQuery
	ver, rowsVer   int
	sentTicks      map[int]int // agent → tick of the last frame sent
	sentStructures map[int]bool
}

// collect writes the events a stream has not sent yet.
func (s *shared) collect(st *streamState, buf *bytes.Buffer) {
	s.mu.Lock()
	ver, status, rowsVer, rows := s.ver, s.status, s.rowsVer, s.rows
	type pending struct {
		id         int
		frame      agentFrame
		first, end int
	}
	var frames []pending
	for _, id := range st.q.agents {
		r := s.hist[id]
		if r == nil || len(r.frames) == 0 {
			continue
		}
		last := r.last()
		if t, ok := st.sentTicks[id]; ok && t == last.tick && ver == st.ver {
			continue
		}
		frames = append(frames, pending{id, last, r.at(0).tick, last.tick})
	}
	var structs [][]byte
	for _, p := range frames {
		id := p.frame.structure
		if !st.sentStructures[id] {
			if data, ok := s.structures[id]; ok {
				st.sentStructures[id] = true
				structs = append(structs, fmt.Appendf(nil, `{"id":%d,"structure":%s}`, id, data))
			}
		}
	}
	s.mu.Unlock()

	if ver != st.ver {
		st.ver = ver
		writeEvent(buf, "status", status)
	}
	if rowsVer != st.rowsVer && rows != nil {
		st.rowsVer = rowsVer
		writeEvent(buf, "list", st.q.list(rows))
	}
	for _, d := range structs {
		writeRaw(buf, "structure", d)
	}
	for _, p := range frames {
		st.sentTicks[p.id] = p.frame.tick
		writeRaw(buf, "agent", fmt.Appendf(nil, `{"first":%d,"last":%d,"frame":%s}`, p.first, p.end, p.frame.data))
	}
}

func writeEvent(buf *bytes.Buffer, name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	writeRaw(buf, name, data)
}

// writeRaw writes one event; data is JSON, which holds no newline.
func writeRaw(buf *bytes.Buffer, name string, data []byte) {
	buf.WriteString("event: ")
	buf.WriteString(name)
	buf.WriteString("\ndata: ")
	buf.Write(data)
	buf.WriteString("\n\n")
}

// history answers an agent's frame at a tick, and the one before it (for
// what changed): GET api/history?agent=ID&tick=N.
func (s *shared) history(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, err := strconv.Atoi(q.Get("agent"))
	if err != nil {
		httpError(w, http.StatusBadRequest, "agent=%q is not an agent id", q.Get("agent"))
		return
	}
	tick, err := strconv.Atoi(q.Get("tick"))
	if err != nil {
		httpError(w, http.StatusBadRequest, "tick=%q is not a tick number", q.Get("tick"))
		return
	}
	s.mu.Lock()
	ring := s.hist[id]
	if ring == nil || len(ring.frames) == 0 {
		s.mu.Unlock()
		httpError(w, http.StatusNotFound, "agent %d is not followed (pick it first): no history", id)
		return
	}
	i := ring.find(tick)
	if i < 0 {
		s.mu.Unlock()
		httpError(w, http.StatusNotFound, "agent %d: tick %d is before its history (from tick %d)", id, tick, ring.at(0).tick)
		return
	}
	f := ring.at(i)
	prev := []byte("null")
	if i > 0 {
		prev = ring.at(i - 1).data
	}
	first, last := ring.at(0).tick, ring.last().tick
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"first":%d,"last":%d,"frame":%s,"prev":%s}`, first, last, f.data, prev)
}

// structure answers a behaviour's structure: GET api/structure?id=N.
func (s *shared) structure(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.URL.Query().Get("id"))
	s.mu.Lock()
	data, ok := s.structures[id]
	s.mu.Unlock()
	if err != nil || !ok {
		httpError(w, http.StatusNotFound, "no structure %q", r.URL.Query().Get("id"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// commandJSON is a command as the page posts it.
type commandJSON struct {
	Op      string          `json:"op"`
	Agent   json.RawMessage `json:"agent"` // an id, a list of ids, or "*"
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload"`
	Path    string          `json:"path"`
	Value   json.RawMessage `json:"value"`
	N       int             `json:"n"`
	Hz      float64         `json:"hz"`
}

// The bounds of a command's values.
const (
	maxCommandDepth = 100
	maxStepTicks    = 100000
	minRateHz       = 0.001
	maxRateHz       = 1e6
)

// ParseCommand reads a command as the inspector's page posts it (JSON:
// {"op":"send","agent":3,"event":"alarm","payload":{…}}, {"op":"set",
// "agent":"*","path":"target.range","value":5}, {"op":"step","n":10},
// {"op":"pause"}, {"op":"resume"}, {"op":"rate","hz":20}). A bad one is an
// error wrapping ErrBadCommand that says what is wrong.
func ParseCommand(data []byte) (Command, error) {
	var cj commandJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cj); err != nil {
		return Command{}, fmt.Errorf("%w: %v", ErrBadCommand, err)
	}
	if dec.More() {
		return Command{}, fmt.Errorf("%w: one JSON object, not several", ErrBadCommand)
	}
	c := Command{Op: cj.Op}
	bad := func(format string, args ...any) (Command, error) {
		return Command{}, fmt.Errorf("%w: "+format, append([]any{ErrBadCommand}, args...)...)
	}
	switch cj.Op {
	case "pause", "resume":
	case "step":
		c.Steps = max(cj.N, 1)
		if cj.N < 0 || cj.N > maxStepTicks {
			return bad("step: n must be from 1 to %d, not %d", maxStepTicks, cj.N)
		}
	case "rate":
		if !(cj.Hz >= minRateHz && cj.Hz <= maxRateHz) {
			return bad("rate: hz must be from %g to %g, not %g", minRateHz, maxRateHz, cj.Hz)
		}
		c.Hz = cj.Hz
	case "send", "set":
		if err := parseTargets(cj.Agent, &c); err != nil {
			return bad("%s: %v", cj.Op, err)
		}
		if cj.Op == "send" {
			if cj.Event == "" || len(cj.Event) > 200 {
				return bad("send: event must be a name of 1 to 200 bytes")
			}
			c.Event = cj.Event
			v, err := commandValue(cj.Payload)
			if err != nil {
				return bad("send: payload: %v", err)
			}
			c.Payload = v
			break
		}
		parts := strings.Split(cj.Path, ".")
		if cj.Path == "" || len(parts) > 16 {
			return bad("set: path must be a context key or a dotted path of at most 16 keys, not %q", cj.Path)
		}
		for _, p := range parts {
			if p == "" {
				return bad("set: path %q has an empty key", cj.Path)
			}
		}
		if len(cj.Value) == 0 {
			return bad("set: value is missing (JSON; null clears the key)")
		}
		v, err := commandValue(cj.Value)
		if err != nil {
			return bad("set: value: %v", err)
		}
		c.Path, c.Value = parts, v
	case "":
		return bad("op is missing (send, set, pause, step, resume or rate)")
	default:
		return bad("unknown op %q (want send, set, pause, step, resume or rate)", cj.Op)
	}
	return c, nil
}

func parseTargets(raw json.RawMessage, c *Command) error {
	if len(raw) == 0 {
		return errors.New(`agent is missing (an id, a list of ids, or "*")`)
	}
	var all string
	if json.Unmarshal(raw, &all) == nil {
		if all != "*" {
			return fmt.Errorf(`agent %q: want an id, a list of ids, or "*"`, all)
		}
		c.All = true
		return nil
	}
	var one int
	if json.Unmarshal(raw, &one) == nil {
		c.Agents = []int{one}
		return nil
	}
	var list []int
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 || len(list) > maxPicked {
		return fmt.Errorf(`agent %s: want an id, a list of 1 to %d ids, or "*"`, clip(string(raw), 40), maxPicked)
	}
	c.Agents = list
	return nil
}

// commandValue decodes a payload or value, no deeper than a message's.
func commandValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	if depthOf(v, 0) > maxCommandDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxCommandDepth)
	}
	return v, nil
}

func depthOf(v any, d int) int {
	if d > maxCommandDepth {
		return d
	}
	deepest := d
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			deepest = max(deepest, depthOf(x, d+1))
		}
	case map[string]any:
		for _, x := range v {
			deepest = max(deepest, depthOf(x, d+1))
		}
	}
	return deepest
}

// command takes a POSTed command: checked now (its agents included), then
// handed to OnCommand or queued for the next tick.
func (s *shared) command(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxCommandBytes))
	if err != nil {
		httpError(w, http.StatusRequestEntityTooLarge, "a command is at most %d bytes", maxCommandBytes)
		return
	}
	c, err := ParseCommand(data)
	if err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		httpError(w, http.StatusServiceUnavailable, "closed")
		return
	}
	for _, id := range c.Agents {
		if i := sort.SearchInts(s.ids, id); i == len(s.ids) || s.ids[i] != id {
			s.mu.Unlock()
			httpError(w, http.StatusNotFound, "agent %d: %v", id, ErrUnknownAgent)
			return
		}
	}
	if c.Op == "rate" && !s.opts.RateControl {
		s.mu.Unlock()
		httpError(w, http.StatusBadRequest, "rate: this game sets its own tick rate")
		return
	}
	s.seq++
	seq := s.seq
	forward := s.opts.OnCommand
	if forward == nil {
		if len(s.cmds) >= 1024 {
			s.mu.Unlock()
			httpError(w, http.StatusTooManyRequests, "1024 commands are waiting for the next tick already")
			return
		}
		s.cmds = append(s.cmds, queued{seq, c})
	}
	s.sent[seq] = c.Op
	s.mu.Unlock()
	if forward != nil {
		c.Seq = seq
		forward(c)
		if c.Op != "send" && c.Op != "set" {
			s.result(seq, nil) // the game's pause, step and rate cannot fail
			s.notify()
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, `{"seq":%d}`, seq)
}
