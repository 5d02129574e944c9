package inspector

import (
	"sort"
	"sync"
	"unsafe"
)

// What the game goroutine publishes and the HTTP side reads: the frames of
// the followed agents (a ring per agent), the list, the structures and the
// commands waiting for the next tick, all under one mutex.

// agentFrame is a followed agent's frame at one of its ticks.
type agentFrame struct {
	tick      int
	structure int // the id of its behaviour's structure
	data      []byte
}

// frameRing is an agent's last frames, oldest first from start: n of
// them in buf, which grows up to the history's length as frames come
// and shrinks when the history bound drops most of them.
type frameRing struct {
	buf      []agentFrame
	start, n int
	bytes    int // what the ring holds: its slots and its frames' data
}

// frameSlot is what a ring's slot holds besides its frame's data.
const frameSlot = int(unsafe.Sizeof(agentFrame{}))

// frameBytes is what a frame holds: its data's whole array (what the
// encoder allocated for it, capacity included).
func frameBytes(f agentFrame) int { return cap(f.data) }

func (r *frameRing) len() int { return r.n }

func (r *frameRing) at(i int) agentFrame { return r.buf[(r.start+i)%len(r.buf)] }
func (r *frameRing) last() agentFrame    { return r.at(r.n - 1) }

// add appends f, dropping the oldest frame when size are held. It
// returns the change in the ring's bytes.
func (r *frameRing) add(f agentFrame, size int) int {
	before := r.bytes
	if r.n > 0 && r.last().tick == f.tick {
		// The same tick again (Refresh): the newer view.
		i := (r.start + r.n - 1) % len(r.buf)
		r.bytes += frameBytes(f) - frameBytes(r.buf[i])
		r.buf[i] = f
		return r.bytes - before
	}
	if r.n == size {
		r.dropOldest()
	}
	if r.n == len(r.buf) {
		r.resize(min(max(2*len(r.buf), 8), size))
	}
	r.buf[(r.start+r.n)%len(r.buf)] = f
	r.n++
	r.bytes += frameBytes(f)
	return r.bytes - before
}

// dropOldest forgets the oldest frame; it returns the bytes freed.
func (r *frameRing) dropOldest() int {
	before := r.bytes
	f := &r.buf[r.start]
	r.bytes -= frameBytes(*f)
	*f = agentFrame{} // its data can be collected
	r.start = (r.start + 1) % len(r.buf)
	r.n--
	if len(r.buf) > 8 && r.n <= len(r.buf)/4 {
		r.resize(max(2*r.n, 8))
	}
	return before - r.bytes
}

// resize moves the frames into a buffer of size slots.
func (r *frameRing) resize(size int) {
	buf := make([]agentFrame, size)
	for i := range r.n {
		buf[i] = r.at(i)
	}
	r.bytes += (size - len(r.buf)) * frameSlot
	r.buf, r.start = buf, 0
}

// find returns the index of the last frame at or before tick, or -1.
func (r *frameRing) find(tick int) int {
	i := sort.Search(r.n, func(i int) bool { return r.at(i).tick > tick })
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
	Profile     *profileJSON `json:"profile,omitempty"` // with host.Options.Profile
}

// profileJSON is the top of the host's profile (host.Options.Profile),
// refreshed twice a second.
type profileJSON struct {
	Ticks    int              `json:"ticks"`
	TickMs   float64          `json:"tick_ms"`
	LuaMs    float64          `json:"lua_ms"`
	NativeMs float64          `json:"native_ms"`
	Top      []profileRowJSON `json:"top"`
}

type profileRowJSON struct {
	Calls    int     `json:"calls"`
	TotalMs  float64 `json:"total_ms"`
	MeanUs   float64 `json:"mean_us"`
	Callback string  `json:"callback"`
	Where    string  `json:"where"` // file:line, or "native gt(hunger, 0.5)"
	State    string  `json:"state"`
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
	histBytes  int64       // what every ring holds (frameRing.bytes)
	pickSeq    int         // counts the picks of agents by pages
	pickedAt   map[int]int // agent id → pickSeq when a page last picked it
	structures map[int][]byte

	wants        map[int]int // agent id → streams that picked it
	wantsChanged bool
	streams      int
	subs         map[chan struct{}]struct{}
	open         []*openStream // oldest first: the one a new page displaces

	seq  int
	cmds []queued
	sent map[int]Op // seq → op, of commands waiting for their result
}

func newShared(o Options) *shared {
	return &shared{
		opts: o, done: make(chan struct{}),
		status:     statusJSON{RateControl: o.RateControl, History: o.History},
		hist:       map[int]*frameRing{},
		pickedAt:   map[int]int{},
		structures: map[int][]byte{},
		wants:      map[int]int{},
		subs:       map[chan struct{}]struct{}{},
		sent:       map[int]Op{},
	}
}

// setProfile publishes the profile's top rows (nil: none).
func (s *shared) setProfile(p *profileJSON) {
	s.mu.Lock()
	s.status.Profile = p
	s.mu.Unlock()
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
		s.histBytes += int64(r.add(f, s.opts.History))
	}
	for id, r := range s.hist {
		if _, ok := frames[id]; !ok {
			s.histBytes -= int64(r.bytes)
			delete(s.hist, id) // no longer followed
		}
	}
	for id := range s.pickedAt {
		if _, ok := s.hist[id]; !ok && s.wants[id] == 0 {
			delete(s.pickedAt, id)
		}
	}
	if s.opts.HistoryBytes > 0 && s.histBytes > s.opts.HistoryBytes {
		s.trim()
	}
	s.mu.Unlock()
	s.notify()
}

// trim drops frames until the histories hold at most HistoryBytes: the
// oldest frames of the agents picked least recently first (those no page
// picked before them), keeping the latest frame of each agent an open page
// shows. Called under mu.
func (s *shared) trim() {
	type victim struct {
		id     int
		r      *frameRing
		shown  bool // an open page shows it
		picked int  // pickSeq of its last pick, 0 for none
	}
	vs := make([]victim, 0, len(s.hist))
	for id, r := range s.hist {
		vs = append(vs, victim{id, r, s.wants[id] > 0, s.pickedAt[id]})
	}
	sort.Slice(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if a.shown != b.shown {
			return !a.shown
		}
		if a.picked != b.picked {
			return a.picked < b.picked
		}
		return a.id < b.id
	})
	for _, v := range vs {
		keep := 0
		if v.shown {
			keep = 1
		}
		for v.r.len() > keep && s.histBytes > s.opts.HistoryBytes {
			s.histBytes -= int64(v.r.dropOldest())
		}
		if s.histBytes <= s.opts.HistoryBytes {
			return
		}
	}
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
	r := resultJSON{Seq: seq, Op: string(s.sent[seq])}
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
