package inspector

import (
	"sort"
	"sync"
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
