package host

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// SnapshotVersion is the version of the snapshot format this package writes
// and reads.
const SnapshotVersion = 1

// Snapshot errors, wrapped with %w.
var (
	// ErrUnsaveable: a context value that cannot be saved (a function, a
	// coroutine, a table cycle); the error names the field path.
	ErrUnsaveable = errors.New("value cannot be saved")
	// ErrBadSnapshot: corrupt JSON, another version, or a snapshot that does
	// not match the behaviour.
	ErrBadSnapshot = errors.New("bad snapshot")
	// ErrIDInUse: a restored agent's id is already used in this host.
	ErrIDInUse = errors.New("agent id already in use")
)

// snapshotFile is the JSON document: see "The snapshot format" in docs/embedding.md.
type snapshotFile struct {
	Version int             `json:"version"`
	Agents  []agentSnapshot `json:"agents"`
}

type agentSnapshot struct {
	ID        int                        `json:"id"`
	Behaviour string                     `json:"behaviour"`
	Ticks     int                        `json:"ticks"`
	Clock     float64                    `json:"clock"`
	RNG       string                     `json:"rng"`
	Ctx       json.RawMessage            `json:"ctx"`
	Bound     []string                   `json:"bound,omitempty"`
	States    map[string]stateSnapshot   `json:"states"`
	Machines  map[string]machineSnapshot `json:"machines"`
	Events    []eventSnapshot            `json:"events,omitempty"`
	Messages  []eventSnapshot            `json:"messages,omitempty"` // ai.send_to from other agents, seen after events
	// Suspended is why the agent is suspended (SuspendReason.String), and
	// Overruns its count of callbacks stopped by the time budget: a load
	// does not heal a runaway mod.
	Suspended string `json:"suspended,omitempty"`
	Overruns  int    `json:"overruns,omitempty"`
	// Owed is the time of the ticks a frame deadline made the agent miss,
	// added to its next tick's dt.
	Owed float64 `json:"owed,omitempty"`
	// Interval is the agent's tick interval (Agent.SetInterval); absent
	// (an older snapshot) for 1.
	Interval int `json:"interval,omitempty"`
	// Kind is the kind the game gave (SpawnOptions.Kind); absent for the
	// script's name.
	Kind string `json:"kind,omitempty"`
	// Synced lists the keys Agent.Sync filled (saved as plain data), for
	// RestoreOptions.Attach.
	Synced []string `json:"synced,omitempty"`
}

type stateSnapshot struct {
	Time  float64 `json:"time"`
	Every float64 `json:"every"`
	// Steps: the current item (from 0), the seconds in it, and whether it
	// already ran (its time counts from the next update).
	Step     int     `json:"step,omitempty"`
	StepTime float64 `json:"step_time,omitempty"`
	StepSeen bool    `json:"step_seen,omitempty"`
	// TreeTime: a tree state's tree time (the dt of the updates its tree
	// received), what its waits, cooldowns and timeouts count.
	TreeTime float64 `json:"tree_time,omitempty"`
	// Tree: the records of the tree's nodes that hold something, by node
	// path.
	Tree map[string]nodeSnapshot `json:"tree,omitempty"`
}

type machineSnapshot struct {
	Stack     []string         `json:"stack"`
	History   string           `json:"history,omitempty"`
	DecideAcc float64          `json:"decide_acc,omitempty"`
	Request   *requestSnapshot `json:"request,omitempty"`
}

// Snapshot saves the agent as JSON (the format of Host.Snapshot with one
// agent). A context value that cannot be saved is an error naming its field
// path; bound Go values are recorded by name and must be bound again after
// Restore.
func (a *Agent) Snapshot() ([]byte, error) {
	if err := a.usable(); err != nil {
		return nil, err
	}
	s, err := a.snapshot(&encoder{})
	if err != nil {
		return nil, err
	}
	return appendSnapshotFile(nil, []agentSnapshot{s}), nil
}

// WriteSnapshot writes what Snapshot returns to w: nothing is written
// unless every agent could be saved. Called while the host ticks (from a
// script or a hook) it returns ErrReentrant. SnapshotAsync writes the
// same bytes with the encoding and writing off the game loop.
func (h *Host) WriteSnapshot(w io.Writer) error {
	data, err := h.Snapshot()
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// RestoreOptions adjust Host.RestoreFrom. The zero value restores as
// Restore does.
type RestoreOptions struct {
	// Rebind, if set, is called for every Go value that was bound in a
	// saved context (Agent.Bind, or a Go value in Spawn's overrides), with
	// the restored agent and the value's path in its context ("body",
	// "squad.leader", "targets[2]"); what it returns is bound there, by the
	// rules of Agent.Bind (nil leaves the field nil). It runs after the
	// agent is restored, before Restore returns. The default (zero) value
	// leaves every such field nil, for the game to bind again.
	Rebind func(a *Agent, path string) any
	// Migrate, if set, is given a snapshot written by a build of another
	// SnapshotVersion, with that version, and returns it in this build's
	// version; its error refuses the restore. The default (zero) value
	// refuses snapshots of another version.
	Migrate func(version int, data []byte) ([]byte, error)
	// Attach, if set, is called for every restored agent (after Rebind),
	// with the keys that were synced when it was saved (Agent.Sync), for
	// the game to attach what a snapshot cannot hold: Agent.SetUserData,
	// Agent.Sync of its structs. Its error refuses the restore. The
	// default (zero) value attaches nothing.
	Attach func(a *Agent, synced []string) error
}

// RestoreFrom is Restore reading the snapshot from r, with opts.
func (h *Host) RestoreFrom(r io.Reader, opts RestoreOptions, behaviours ...*Behaviour) ([]*Agent, error) {
	var data []byte
	switch b := r.(type) {
	case *bytes.Buffer:
		data = b.Next(b.Len()) // read as a whole, without a copy
	default:
		buf := &bytes.Buffer{}
		if l, ok := r.(interface{ Len() int }); ok {
			buf.Grow(l.Len() + bytes.MinRead)
		}
		if _, err := buf.ReadFrom(r); err != nil {
			return nil, fmt.Errorf("restore: %w", err)
		}
		data = buf.Bytes()
	}
	return h.restore(data, opts, behaviours)
}

// Snapshot saves every agent Host.Tick ticks, in spawn order. Nothing is
// returned unless every agent could be saved. Called while the host ticks
// (from a script or a hook) it returns ErrReentrant.
func (h *Host) Snapshot() ([]byte, error) {
	s, size, err := h.saveCopyAs(false)
	if err != nil {
		return nil, err
	}
	data := appendCopies(make([]byte, 0, size), s.agents)
	h.keepCopies(s, nil)
	return data, nil
}

// saveCopy (the method) is the game loop's part of a save: every agent's records, with
// its Lua values already encoded (plain bytes, shared with nothing Lua
// changes), and about how large the document will be.
func (h *Host) saveCopy() ([]saveCopy, int, error) {
	s, size, err := h.saveCopyAs(false)
	if err != nil {
		return nil, 0, err
	}
	return s.agents, size, nil
}

// saveCopies is the copies of a save (saveCopyAs): the agents' copies, the
// arena their records are cut from and the encoder's, whose bytes the
// copies' encoded values are. A host keeps those of its last save
// (keepCopies) for the next one, once nothing reads them: a save every few
// seconds then makes no new arrays of the size of all agents.
type saveCopies struct {
	agents []saveCopy
	arena  *saveArena
	buf    []byte
	// done is closed once nothing reads the copies any more (nil: at once).
	done <-chan struct{}
}

// saveCopyAs is saveCopy for the binary format with bin, into the kept
// copies of the last save where nothing reads them any more.
func (h *Host) saveCopyAs(bin bool) (*saveCopies, int, error) {
	if h.running {
		return nil, 0, ErrReentrant
	}
	s := h.keptCopies()
	if cap(s.agents) < len(h.agents) {
		s.agents = make([]saveCopy, len(h.agents))
	}
	s.agents = s.agents[:len(h.agents)]
	if s.arena == nil {
		s.arena = newSaveArena(h.agents)
	}
	s.arena.reset()
	enc := &encoder{buf: s.buf[:0]}
	ahead := saveAhead(h.agents)
	ahead.start()
	for i, a := range h.agents {
		ahead.warm(i)
		if err := a.copyForSave(enc, &s.agents[i], s.arena, bin, false); err != nil {
			return nil, 0, err
		}
	}
	s.buf = enc.buf
	// The encoded values and, per agent, about 400 bytes of records.
	return s, len(enc.buf) + 400*len(s.agents) + 64, nil
}

// keptCopies is the last save's copies where nothing reads them any more,
// else new ones.
func (h *Host) keptCopies() *saveCopies {
	s := h.saveKept
	if s == nil {
		return &saveCopies{}
	}
	if s.done != nil {
		select {
		case <-s.done:
		default:
			return &saveCopies{} // an asynchronous save still writes from them
		}
	}
	h.saveKept = nil
	return s
}

// keepCopies keeps s for the next save, once done is closed (nil: now).
func (h *Host) keepCopies(s *saveCopies, done <-chan struct{}) {
	if h.closed {
		return
	}
	s.done = done
	h.saveKept = s
}

// snapshot saves a, encoding its Lua values with enc (reused across
// agents: its arena keeps growing, its tables are forgotten).
func (a *Agent) snapshot(enc *encoder) (agentSnapshot, error) {
	var c saveCopy
	if err := a.copyForSave(enc, &c, &saveArena{}, false, false); err != nil {
		return agentSnapshot{}, err
	}
	return c.records(), nil
}

// Restore recreates agents from a snapshot (Host.Snapshot or
// Agent.Snapshot) in this host, running one of the given behaviours: with
// one behaviour every agent runs it, with several each agent runs the one
// whose Name matches its record. The agents continue exactly where they
// were (same ids, clocks, tick counts, states, timers, pending events and
// requests, random numbers); no hook runs. Bound Go values come back as nil:
// bind them again with Agent.Bind. A corrupt or mismatched snapshot is an
// error wrapping ErrBadSnapshot, and then no agent is added.
func (h *Host) Restore(data []byte, behaviours ...*Behaviour) ([]*Agent, error) {
	return h.restore(data, RestoreOptions{}, behaviours)
}

// It is long because it is the all-or-nothing restore: every agent is
// decoded and checked before any is added, and each failure must undo the
// same partial work.
func (h *Host) restore(data []byte, opts RestoreOptions, behaviours []*Behaviour) ([]*Agent, error) {
	return h.restoreAs(data, restoreMode{RestoreOptions: opts}, behaviours)
}

// restoreMode is what a restore does: RestoreOptions, and for Import the
// id map and that the host's own numbering stays where it is.
type restoreMode struct {
	RestoreOptions
	ids      map[int]int
	imported bool
}

// restoreAs is restore (and Import). It costs in proportion to the agents
// in data (and the logarithm of the host's): ids are looked up in the
// sorted lists, and the new agents merged into them in one pass.
func (h *Host) restoreAs(data []byte, opts restoreMode, behaviours []*Behaviour) ([]*Agent, error) {
	what := "restore"
	if opts.imported {
		what = "import"
	}
	if err := h.usable(); err != nil {
		return nil, err
	}
	if h.running {
		return nil, fmt.Errorf("%s: %w", what, ErrReentrant)
	}
	data, err := migrateSnapshot(what, data, opts.Migrate)
	if err != nil {
		return nil, err
	}
	if len(behaviours) == 0 {
		return nil, fmt.Errorf("%s: no behaviour given", what)
	}
	for _, b := range behaviours {
		if b == nil || b.h != h {
			return nil, ErrWrongBehaviour
		}
	}
	out, err := h.makeRestored(what, data, opts, behaviours)
	if err != nil {
		return nil, err
	}
	h.roster++
	sorted := slices.Clone(out)
	byID := func(x, y *Agent) int { return x.id - y.id }
	if !slices.IsSortedFunc(sorted, byID) { // a save lists its agents by id
		slices.SortFunc(sorted, byID)
	}
	h.agents = mergeByID(h.agents, sorted)
	counts := make([]int, len(h.workers))
	for _, a := range sorted {
		counts[a.w.index]++
		if !opts.imported && h.opts.NewID == nil && a.id > h.spawned {
			h.spawned = a.id // a save of this host's own: its numbering goes on
		}
	}
	byWorker := make([][]*Agent, len(h.workers))
	for i, n := range counts {
		byWorker[i] = make([]*Agent, 0, n)
	}
	for _, a := range sorted {
		byWorker[a.w.index] = append(byWorker[a.w.index], a)
	}
	for i, w := range h.workers {
		w.agents = mergeByID(w.agents, byWorker[i])
	}
	if h.opts.OnTransition != nil { // else only followers see it, and a new agent has none
		for _, a := range out {
			a.emitState(TransitionRestore, "")
		}
	}
	h.dispatch()
	return out, nil
}

// rebind binds, at each slot where a Go value was saved, what fn returns.
func (a *Agent) rebind(slots []boundSlot, fn func(*Agent, string) any) error {
	for _, sl := range slots {
		path := strings.TrimPrefix(strings.TrimPrefix(sl.path, "ctx"), ".")
		v := fn(a, path)
		if v == nil {
			continue
		}
		if err := byValue(v); err != nil {
			return fmt.Errorf("rebind %q: %w", path, err)
		}
		c := converter{L: a.w.vm.L, h: a.h, agent: a.id}
		lv := c.value(v)
		if c.err != nil {
			return fmt.Errorf("rebind %q: %w", path, c.err)
		}
		a.bound = append(a.bound, c.bound...)
		sl.t.RawSet(sl.k, lv)
	}
	return nil
}

func (h *Host) restoreAgent(b *Behaviour, s *agentSnapshot, id int, ids map[int]int) (*Agent, []boundSlot, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadSnapshot, fmt.Sprintf(format, args...))
	}
	raw, err := base64.StdEncoding.DecodeString(s.RNG)
	if err != nil {
		return nil, nil, bad("rng: %v", err)
	}
	a, err := h.restoreHead(b, s, raw, id)
	if err != nil {
		return nil, nil, err
	}
	L := a.w.vm.L
	t := a.t
	d := &decoder{L: L}
	ctx, err := d.decode(s.Ctx)
	if err != nil {
		return nil, nil, bad("ctx: %v", err)
	}
	ct, ok := ctx.(*lua.LTable)
	if !ok {
		return nil, nil, bad("ctx is not a table")
	}
	a.ctx = ct
	ctxSlots := d.bound
	if err := a.restoreStates(t, s.States); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadSnapshot, err)
	}
	if err := a.restoreMachines(t, d, s.Machines, h.opts.MaxStackDepth); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadSnapshot, err)
	}
	// The active states must be whole: every fsm and regions state among
	// them has its states.
	for _, n := range a.activeMachines() {
		if len(a.ms[n.mid].stack) == 0 && n.def.Kind != defs.KindUtility {
			return nil, nil, bad("%s %q has no active state", n.def.Kind, n.path)
		}
	}
	if a.incoming, err = decodeEvents(d, "event", s.Events, a.incoming, h.tickNo, ids); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadSnapshot, err)
	}
	if a.inbox, err = decodeEvents(d, "message", s.Messages, a.inbox, h.tickNo, ids); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadSnapshot, err)
	}
	return a, ctxSlots, nil
}

// restoreHead checks the plain fields of s (the counters, the clock, the
// suspension) and makes the agent with them and the random state rng
// (binary), for the rest of its record to fill.
func (h *Host) restoreHead(b *Behaviour, s *agentSnapshot, rng []byte, id int) (*Agent, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrBadSnapshot, fmt.Sprintf(format, args...))
	}
	switch {
	case s.Ticks < 0 || s.Ticks > maxSnapshotCount:
		return nil, bad("ticks %d out of range (0 to %d)", s.Ticks, maxSnapshotCount)
	case !finite(s.Clock) || s.Clock < 0:
		return nil, bad("clock %v: must be a finite number ≥ 0", s.Clock)
	case !finite(s.Owed) || s.Owed < 0:
		return nil, bad("owed %v: must be a finite number ≥ 0", s.Owed)
	case s.Overruns < 0 || s.Overruns > maxSnapshotCount:
		return nil, bad("overruns %d out of range", s.Overruns)
	case s.Interval < 0 || s.Interval > maxSnapshotCount:
		return nil, bad("interval %d out of range (1 to %d)", s.Interval, maxSnapshotCount)
	}
	why := NotSuspended
	if s.Suspended != "" {
		why = 0
		for r := SuspendedByFault; r <= SuspendedByHost; r++ {
			if r.String() == s.Suspended {
				why = r
			}
		}
		if why == 0 {
			return nil, bad("suspended %q: not a reason (fault, overruns, memory, host)", s.Suspended)
		}
	}
	var pcg rand.PCG
	if err := pcg.UnmarshalBinary(rng); err != nil {
		return nil, bad("rng: %v", err)
	}
	w := h.workerFor(id)
	a := w.newAgent(id, b, b.layouts[w.index])
	a.ticks, a.clock, a.overruns, a.owed = s.Ticks, s.Clock, s.Overruns, s.Owed
	a.interval, a.kind = s.Interval, s.Kind
	if why != NotSuspended {
		a.suspend(why)
	}
	a.setPCG(pcg)
	return a, nil
}

// restoreStates reads the saved records of a's states (timers, steps,
// trees), keyed by path.
func (a *Agent) restoreStates(t *layout, saved map[string]stateSnapshot) error {
	for path, st := range saved {
		if err := a.restoreState(t, path, &st); err != nil {
			return err
		}
	}
	return nil
}

// restoreState reads the saved record of the state at path.
func (a *Agent) restoreState(t *layout, path string, st *stateSnapshot) error {
	return a.restoreStateAt(t, t.byPath[path], path, st)
}

// restoreStateAt is restoreState with the state looked up already: n, nil
// if t has none at path.
func (a *Agent) restoreStateAt(t *layout, n *place, path string, st *stateSnapshot) error {
	if n == nil {
		return fmt.Errorf("state %q is not in behaviour %s", path, t.name)
	}
	if !finite(st.Time) || !finite(st.Every) || !finite(st.TreeTime) || st.Time < 0 || st.Every < 0 || st.TreeTime < 0 {
		return fmt.Errorf("state %q: timers must be finite numbers ≥ 0", path)
	}
	if err := checkSteps(n, *st); err != nil {
		return fmt.Errorf("state %q: %w", path, err)
	}
	a.nodes[n.id] = placeRT{time: st.Time, every: st.Every, step: st.Step, stepTime: st.StepTime, stepSeen: st.StepSeen, treeTime: st.TreeTime}
	if len(st.Tree) > 0 {
		if n.bt == nil {
			return fmt.Errorf("state %q is not an ai.tree", path)
		}
		if err := a.restoreTree(n, st.Tree); err != nil {
			return fmt.Errorf("state %q: %w", path, err)
		}
	}
	return nil
}

// restoreMachines reads the saved stacks, histories, decide timers and
// requests of a's machines, keyed by path.
func (a *Agent) restoreMachines(t *layout, d *decoder, saved map[string]machineSnapshot, maxDepth int) error {
	for path, ms := range saved {
		if err := a.restoreMachine(t, d, path, &ms, maxDepth); err != nil {
			return err
		}
	}
	return nil
}

// restoreMachine reads the saved record of the machine at path.
func (a *Agent) restoreMachine(t *layout, d *decoder, path string, ms *machineSnapshot, maxDepth int) error {
	return a.restoreMachineAt(t, d, t.byPath[path], path, ms, maxDepth)
}

// restoreMachineAt is restoreMachine with the machine looked up already:
// n, nil if t has no state at path.
func (a *Agent) restoreMachineAt(t *layout, d *decoder, n *place, path string, ms *machineSnapshot, maxDepth int) error {
	var err error
	if n == nil || !n.isMachine() {
		return fmt.Errorf("machine %q is not in behaviour %s", path, t.name)
	}
	m := &a.ms[n.mid]
	child := func(name string) (int, error) {
		i := n.def.Child(name)
		if i < 0 {
			return -1, fmt.Errorf("machine %q has no state %q", path, name)
		}
		return i, nil
	}
	for _, name := range ms.Stack {
		i, err := child(name)
		if err != nil {
			return err
		}
		if a.onStack(n, i) || (n.def.Kind == defs.KindUtility && len(m.stack) > 0) || len(m.stack) >= maxDepth {
			return fmt.Errorf("machine %q: invalid stack %v", path, ms.Stack)
		}
		m.stack = append(m.stack, i)
	}
	if err := checkRegions(n, m.stack); err != nil {
		return fmt.Errorf("regions %q: %w, got %v", path, err, ms.Stack)
	}
	if ms.History != "" {
		if m.history, err = child(ms.History); err != nil {
			return err
		}
	}
	if !finite(ms.DecideAcc) || ms.DecideAcc < 0 {
		return fmt.Errorf("machine %q: decide_acc must be a finite number ≥ 0", path)
	}
	m.decideAcc = ms.DecideAcc
	if r := ms.Request; r != nil {
		if m.req, err = restoreRequest(n, d, r); err != nil {
			return fmt.Errorf("machine %q: %w", path, err)
		}
	}
	return nil
}
