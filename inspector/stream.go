package inspector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The page's event stream (Server-Sent Events): what a page asked to see
// (its query), the list and frames it is sent, and how a slow or displaced
// page is dropped.

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
//
// It is long because it is the life of one Server-Sent Events connection
// (admission, displacement, the write loop with its deadline, the end),
// whose steps share its state.
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
		s.pickSeq++
		s.pickedAt[id] = s.pickSeq
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
		if r == nil || r.len() == 0 {
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
