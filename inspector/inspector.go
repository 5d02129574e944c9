package inspector

// The game goroutine's side: it publishes a frame at the end of each Tick
// and applies the page's commands at the start of the next, through the
// host's observer API; the HTTP side (http.go) reads only what was
// published and never touches a Lua state.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/luaai/luaai/host"
	"github.com/luaai/luaai/host/hosttool"
)

// Options configure New. The zero value works.
type Options struct {
	// History is how many of an agent's ticks the page's slider goes back.
	// The default (zero) value is 600.
	History int
	// HistoryBytes bounds what the histories of every followed agent
	// hold together, in bytes: their frames' encoded data and their
	// slots. Past it the oldest frames go first, of the agents a page
	// picked least recently (agents followed without a pick, by AutoWatch,
	// before any picked one), so the agent picked last keeps the longest
	// history. The latest frame of each agent an open page shows is always
	// kept (at most 64 agents of 256 KiB). The default (zero) value is
	// DefaultHistoryBytes; a negative value bounds only History.
	HistoryBytes int64
	// Token, if set, must come with every request: as ?token=… in the URL
	// (the page passes on the one it was opened with) or as an
	// "Authorization: Bearer …" header. Without a Token the inspector
	// refuses every request, unless AllowUnauthenticated is set. The
	// default (zero) value is none.
	Token string
	// AllowUnauthenticated lets an inspector without a Token answer
	// requests from this machine (loopback remote address and Host
	// header). A reverse proxy on the same machine makes every request
	// look local: set it only where nothing forwards to the handler (luaai
	// run --inspect sets it for its own loopback listener). The default
	// (zero) value is false: a Token is required.
	AllowUnauthenticated bool
	// AutoWatch is how many agents a host may have for the inspector to
	// follow all of them in full from the start (each with its history);
	// with more, it follows the agents a page picked, from when it picked
	// them. The default (zero) value is 16; a negative value follows only
	// picked agents.
	AutoWatch int
	// OnCommand, if set, receives every command the page sends instead of
	// the inspector applying it, for a game loop that paces its ticks or
	// records its inputs (luaai run does). It is called on an HTTP
	// goroutine: hand the command over to the game loop, report pause and
	// rate with SetStatus, and what became of a send or set with
	// Handler.Done. The default (zero) value is none: sends and
	// sets are applied at the start of the next Tick; pause, step and
	// resume call Host.Pause, Host.Step and Host.Resume there (a paused
	// Tick ticks nobody and returns nil).
	OnCommand func(Command)
	// RateControl says the page may change the tick rate: OnCommand then
	// receives "rate" commands. The default (zero) value is false.
	RateControl bool
}

// The defaults and limits of the inspector.
const (
	DefaultHistory   = 600
	defaultAutoWatch = 16
	maxPicked        = 64               // agents followed at once, whatever asks
	lingerFor        = 30 * time.Second // how long an agent no page picks any more stays followed
	maxStreams       = 32               // pages open at once
	maxFrameBytes    = 256 << 10        // an agent's frame; a bigger context is summarised
	maxRecentErrors  = 10               // kept per agent
	maxCommandBytes  = 64 << 10
)

// DefaultHistoryBytes is Options.HistoryBytes's default: 32 MiB, what 128
// frames of the largest size hold (a frame is at most 256 KiB), or 600
// ticks of 8 agents whose frames are 7 KB.
const DefaultHistoryBytes = 32 << 20

// Command is what the page asks of the game: send an event, set a context
// value, pause, step, resume or change the tick rate. Agents lists the
// agents a send or set is for; All means every agent.
type Command struct {
	Op      Op       // what it does: OpSend, OpSet, OpPause, OpStep, OpResume, OpRate, OpReset or OpRespawn
	All     bool     // send, set, resume, reset, respawn: every agent
	Agents  []int    // send, set, resume, reset, respawn: the agents' ids (a resume with agents resumes suspended agents, not the game)
	Event   string   // send
	Payload any      // send: plain data decoded from JSON
	Path    []string // set: the context key, or a path into a table of it
	Value   any      // set: plain data decoded from JSON
	Steps   int      // step: ticks to run, at least 1
	Hz      float64  // rate: ticks per second
	// Seq numbers the command for Handler.Done (set for the
	// commands OnCommand receives).
	Seq int
}

// ForAgents reports whether the command acts on agents (a send, a set, a
// resume of suspended agents, a reset or respawn) rather than on the game
// (pause, step, resume, rate): those are applied by ApplyCommand, and
// reported with Handler.Done.
func (c Command) ForAgents() bool {
	switch c.Op {
	case OpSend, OpSet, OpReset, OpRespawn:
		return true
	}
	return c.Op == OpResume && (c.All || len(c.Agents) > 0)
}

// Errors of the inspector's commands.
var (
	// ErrBadCommand is a command the inspector does not take: an unknown op,
	// a missing event name or path, a step count or rate out of range.
	ErrBadCommand = errors.New("bad inspector command")
	// ErrUnknownAgent is a command for an agent the host does not have.
	ErrUnknownAgent = errors.New("no such agent")
)

// Handler is an http.Handler to mount in the game's own server.
var _ http.Handler = (*Handler)(nil)

// Handler is the web inspector of a host: an http.Handler serving the
// page, its event stream and its commands. New makes one.
type Handler struct {
	in *inspector
}

// New attaches a web inspector to h and returns its handler, for the game
// to mount on its own server (under a prefix with http.StripPrefix; the
// page uses relative URLs):
//
//	ih := inspector.New(h, inspector.Options{Token: os.Getenv("AI_TOKEN")})
//	mux.Handle("/ai/", http.StripPrefix("/ai", ih))
//
// The page lists every agent (filter, sort, pick several), and for the
// picked ones shows the machine with its active path and stacks, the
// context, every utility decision's scores, timers, pending events and
// requests, errors and ai.log lines, with a slider over their last ticks;
// it can pause, step and resume, send events and set context values. It
// can never run Lua.
//
// Call New, Close and Refresh on the goroutine that owns h. The handler
// serves on any goroutines: it reads what the last Tick published and
// queues commands for the next, never touching a Lua state. It is fed by
// h.Observe: a host ticked without an open page pays for one check a tick.
func New(h *host.Host, o Options) *Handler {
	if o.History <= 0 {
		o.History = DefaultHistory
	}
	if o.HistoryBytes == 0 {
		o.HistoryBytes = DefaultHistoryBytes
	}
	if o.AutoWatch == 0 {
		o.AutoWatch = defaultAutoWatch
	}
	in := &inspector{
		h:          h,
		opts:       o,
		shared:     newShared(o),
		watched:    map[int]*host.Agent{},
		errs:       map[int]*agentErrs{},
		notes:      map[int]*tickNotes{},
		structures: map[*hosttool.StateInfo]int{},
		linger:     map[int]time.Time{},
	}
	in.ob = hosttool.Observe(h, hosttool.Observer{
		BeforeTick: func() {
			if !in.off {
				in.before()
			}
		},
		AfterTick: func(bool) {
			if !in.off {
				in.publish(false)
			}
		},
		Transition: func(t host.Transition) {
			if !in.off {
				in.transition(t)
			}
		},
		Error: func(e *host.ScriptError) {
			if !in.off {
				in.scriptError(e)
			}
		},
		Log: func(l host.Log) {
			if !in.off {
				in.log(l)
			}
		},
	})
	in.publish(true)
	return &Handler{in}
}

// ServeHTTP serves the page (GET /), its stream (GET api/stream), an
// agent's history (GET api/history) and commands (POST api/command).
func (i *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i.in.shared.serve(w, r)
}

// Refresh publishes the agents as they are now, for a game that changed
// them between ticks (spawned, removed, sent events) and wants the page
// to show it before the next Tick. Call it on the goroutine that owns the
// host.
func (i *Handler) Refresh() {
	if !i.in.closed {
		i.in.publish(true)
	}
}

// Done reports what became of a send or set command that OnCommand
// received (its Seq): nil when it was applied, else why not. The page
// shows a send or set as done only once Done reports it. Any goroutine may
// call it.
func (i *Handler) Done(seq int, err error) {
	s := i.in.shared
	s.mu.Lock()
	_, ok := s.sent[seq]
	s.mu.Unlock()
	if ok {
		s.result(seq, err)
		s.notify()
	}
}

// SetStatus tells the page whether the game loop is paused and at what
// rate it ticks (0: as fast as it can), for a loop that handles commands
// itself (Options.OnCommand). Any goroutine may call it.
func (i *Handler) SetStatus(paused bool, hz float64) {
	s := i.in.shared
	s.mu.Lock()
	s.status.Paused, s.status.Hz = paused, hz
	s.mu.Unlock()
	s.notify()
}

// Close detaches the inspector from its host and ends the open streams;
// the host stops paying for it. Call it on the goroutine that owns the host.
func (i *Handler) Close() {
	in := i.in
	if in.closed {
		return
	}
	in.closed = true
	in.ob.Close()
	clear(in.watched)
	in.shared.close()
}

// inspector is the game goroutine's side of an Handler.
type inspector struct {
	h      *host.Host
	ob     *hosttool.Observation
	opts   Options
	shared *shared
	closed bool
	off    bool // Detach (tests): the hooks do nothing

	watched    map[int]*host.Agent         // followed in full: picked, or every agent (AutoWatch)
	picked     []int                       // the agents the open pages picked
	errs       map[int]*agentErrs          // errors by agent id, counted for the list
	notes      map[int]*tickNotes          // this tick's transitions and logs of watched agents
	structures map[*hosttool.StateInfo]int // structures published, by behaviour version
	structSeq  int                         // last structure id
	linger     map[int]time.Time           // agents no page picks any more, since when
	listAt     time.Time                   // when the list was last built
	profileAt  time.Time                   // when the profile was last published
	ids        []int                       // the agents' ids at the last publish
}

type agentErrs struct {
	count  int
	recent []errorJSON
}

type tickNotes struct {
	transitions []transitionJSON
	logs        []logJSON
}

// transition, scriptError and log receive what the host's dispatch
// delivers, on the game goroutine.
func (in *inspector) transition(t host.Transition) {
	if _, ok := in.watched[t.Agent]; !ok {
		return
	}
	n := in.note(t.Agent)
	n.transitions = append(n.transitions, transitionJSON{Tick: t.Tick, Kind: string(t.Kind), From: t.From, To: t.To})
}

func (in *inspector) scriptError(e *host.ScriptError) {
	ae := in.errs[e.Agent]
	if ae == nil {
		ae = &agentErrs{}
		in.errs[e.Agent] = ae
	}
	ae.count++
	if len(ae.recent) == maxRecentErrors {
		ae.recent = append(ae.recent[:0], ae.recent[1:]...)
	}
	ae.recent = append(ae.recent, errorJSON{Tick: e.Tick, Callback: string(e.Callback), State: e.State, File: e.Script, Line: e.Line, Msg: clip(e.Msg, 1024)})
}

func (in *inspector) log(l host.Log) {
	if _, ok := in.watched[l.Agent]; !ok {
		return
	}
	n := in.note(l.Agent)
	if len(n.logs) < 100 {
		n.logs = append(n.logs, logJSON{Tick: l.Tick, State: l.State, Msg: clip(l.Msg, 1024)})
	}
}

func (in *inspector) note(id int) *tickNotes {
	n := in.notes[id]
	if n == nil {
		n = &tickNotes{}
		in.notes[id] = n
	}
	return n
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// before applies the queued commands.
func (in *inspector) before() {
	s := in.shared
	s.mu.Lock()
	cmds := s.cmds
	s.cmds = nil
	s.mu.Unlock()
	for _, c := range cmds {
		err := in.apply(c.cmd)
		s.result(c.seq, err)
	}
}

// apply applies one command, between ticks.
func (in *inspector) apply(c Command) error {
	if c.ForAgents() {
		return ApplyCommand(in.h, c)
	}
	switch c.Op {
	case OpPause:
		in.h.Pause()
	case OpResume:
		in.h.Resume()
	case OpStep:
		in.h.Step(c.Steps)
	default:
		return fmt.Errorf("%w: %q is not handled without OnCommand", ErrBadCommand, c.Op)
	}
	in.shared.mu.Lock()
	in.shared.status.Paused = in.h.Paused()
	in.shared.mu.Unlock()
	return nil
}

// publish builds this tick's frames and hands them to the HTTP side. list
// forces the agent list to be rebuilt (it is otherwise rebuilt at most
// ten times a second, and only while a page is open).
func (in *inspector) publish(list bool) {
	s := in.shared
	s.mu.Lock()
	wants := s.wantsChanged
	var picked []int
	if wants {
		for id := range s.wants {
			picked = append(picked, id)
		}
		s.wantsChanged = false
	}
	streams := s.streams
	s.mu.Unlock()

	h := in.h
	// Agents spawned or removed since the last publish.
	changed := in.ob.RosterChanged() || in.ids == nil
	if wants || changed || len(in.linger) > 0 {
		in.follow(picked, wants)
	}
	frames := make(map[int]agentFrame, len(in.watched))
	for id, a := range in.watched {
		if !in.ob.Following(a) {
			delete(in.watched, id) // removed from the host
			continue
		}
		frames[id] = in.frame(a)
	}
	clear(in.notes)

	var rows []rowJSON
	now := time.Now()
	if streams > 0 && (list || wants || changed || now.Sub(in.listAt) >= 100*time.Millisecond) {
		rows = in.rows()
		in.listAt = now
	}
	var ids []int // nil: unchanged
	if changed {
		// A new slice: the HTTP side keeps the one it was given.
		ids = make([]int, 0, h.Len())
		for a := range h.All() {
			ids = append(ids, a.ID())
		}
		sort.Ints(ids)
		in.ids = ids
		for id := range in.errs {
			if _, ok := h.Agent(id); !ok {
				delete(in.errs, id)
			}
		}
	}
	tick := 0
	for a := range h.All() {
		tick = max(tick, a.Ticks())
	}
	if streams > 0 && now.Sub(in.profileAt) >= profileEvery {
		in.profileAt = now
		s.setProfile(profileTop(hosttool.ProfileOf(h)))
	}
	s.install(tick, ids, rows, frames, h.Paused() && in.opts.OnCommand == nil)
}

// profileEvery is how often the page's profile is refreshed.
const profileEvery = 500 * time.Millisecond

// profileTop is the ten costliest callbacks of a profile, nil when the
// host does not profile.
func profileTop(p hosttool.Profile) *profileJSON {
	if p.Ticks == 0 || len(p.Entries) == 0 {
		return nil
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	out := &profileJSON{Ticks: p.Ticks, TickMs: ms(p.InTicks), LuaMs: ms(p.InLua), NativeMs: ms(p.InNatives)}
	for _, e := range p.Entries[:min(len(p.Entries), 10)] {
		where := fmt.Sprintf("%s:%d", e.File, e.Line)
		if e.Native != "" {
			where = "native " + e.Native
		} else if e.Compiled {
			where = "compiled " + where
		}
		out.Top = append(out.Top, profileRowJSON{
			Calls: e.Calls, TotalMs: ms(e.Total), MeanUs: float64(e.Total.Nanoseconds()) / 1000 / float64(max(e.Calls, 1)),
			Callback: string(e.Callback), Where: where, State: e.State,
		})
	}
	return out
}

// follow recomputes the agents followed in full: the picked ones, or every
// agent while there are at most AutoWatch. picked is nil when unchanged.
func (in *inspector) follow(picked []int, changed bool) {
	h := in.h
	want := map[int]bool{}
	if in.opts.AutoWatch > 0 && h.Len() <= in.opts.AutoWatch {
		for a := range h.All() {
			want[a.ID()] = true
		}
	}
	now := time.Now()
	if changed {
		// An agent no page picks any more is followed a while longer, so
		// that a page reloaded (or a second one opened) finds its history.
		for _, id := range in.picked {
			if !slices.Contains(picked, id) {
				in.linger[id] = now
			}
		}
		in.picked = picked
	}
	for _, id := range in.picked {
		want[id] = true
		delete(in.linger, id)
	}
	for id, at := range in.linger {
		if now.Sub(at) > lingerFor {
			delete(in.linger, id)
		} else {
			want[id] = true
		}
	}
	for id, a := range in.watched {
		if !want[id] || !in.ob.Following(a) {
			_ = in.ob.Follow(a, false) // its own host's agents, between ticks
			delete(in.watched, id)
		}
	}
	ids := make([]int, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		if len(in.watched) >= maxPicked {
			break
		}
		if _, ok := in.watched[id]; ok {
			continue
		}
		if a, ok := h.Agent(id); ok {
			_ = in.ob.Follow(a, true) // its own host's agents, between ticks
			in.watched[id] = a
		}
	}
}

// marshalFrame encodes an agent's frame; a context too big to show is
// replaced by a note saying how big it is.
func marshalFrame(f *frameJSON) []byte {
	data, err := json.Marshal(f)
	if err == nil && len(data) <= maxFrameBytes {
		return data
	}
	if err == nil {
		f.Context = map[string]any{"(too large to show)": fmt.Sprintf("%d bytes", len(data))}
	} else {
		f.Context = map[string]any{"(cannot show)": err.Error()}
	}
	data, err = json.Marshal(f)
	if err == nil && len(data) <= maxFrameBytes {
		return data
	}
	// Payloads next: a frame is kept for every tick of the history, so it
	// must stay within maxFrameBytes whatever a script queues or logs.
	hidden := "(too large to show)"
	for i := range f.Events {
		f.Events[i].Payload = hidden
	}
	for i := range f.Requests {
		f.Requests[i].Payload = hidden
	}
	for i := range f.Logs {
		f.Logs[i].Msg = clip(f.Logs[i].Msg, 200)
	}
	data, err = json.Marshal(f)
	if err == nil && len(data) <= maxFrameBytes {
		return data
	}
	msg := "the frame is too large to show"
	if err != nil {
		msg = err.Error()
	}
	data, _ = json.Marshal(map[string]any{"id": f.ID, "tick": f.Tick, "path": clip(f.Path, 1000), "error": msg})
	return data
}
