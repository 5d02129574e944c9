package host

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
)

// saveCopy is one agent as the game loop copies it for a save: the
// records that need no layout (its Lua values already encoded into the
// encoder's arena) and plain copies of its runtime records, from which
// records builds the rest off the loop. Nothing in it is shared with what
// the agent changes later; its layout is read only.
type saveCopy struct {
	rec agentSnapshot
	// bin: the record is for the binary format (rec.Ctx is binary, rng
	// the random state); else it is JSON's.
	bin bool
	// pend is what a binary record's agent has pending (nil: nothing).
	pend  *binPending
	rng   []byte
	t     *layout
	nodes []placeRT
	ms    []machineCopy
	bt    []btRT
}

// machineCopy is a machine's runtime record, its stack copied and its
// pending request saved.
type machineCopy struct {
	stack     []int
	history   int
	decideAcc float64
	req       *requestSnapshot
}

// saveArena holds the copies of one save in a few large slices (grown by
// append: a copy keeps the array it was cut from).
type saveArena struct {
	nodes []placeRT
	ms    []machineCopy
	ints  []int
	bt    []btRT
	raw   []byte
}

// cut appends src to *arena and returns the appended part, capped.
func cut[T any](arena *[]T, src []T) []T {
	start := len(*arena)
	*arena = append(*arena, src...)
	return (*arena)[start:len(*arena):len(*arena)]
}

// copyForSave fills c with a's state, encoding its Lua values with enc in
// the order the format numbers shared tables: the context, the pending
// requests (machines in layout order), the events, the messages. With bin,
// the agent is copied for the binary format. With
// alias (a blocking save, which writes c before a can change) its state
// records and machine stacks are not copied: c refers to a's own.
func (a *Agent) copyForSave(enc *encoder, c *saveCopy, arena *saveArena, bin, alias bool) error {
	pending := a.hasPending()
	c.bin, c.pend = bin, nil
	c.rec = agentSnapshot{
		ID: a.id, Behaviour: a.b.name, Ticks: a.ticks, Clock: a.clock,
		Suspended: a.suspension.String(), Overruns: a.overruns, Owed: a.owed,
		Synced: a.syncedKeys(), Interval: a.savedInterval(), Kind: a.kind,
	}
	start := len(arena.raw)
	var err error
	if arena.raw, err = a.pcg.AppendBinary(arena.raw); err != nil {
		return err
	}
	c.rng = arena.raw[start:len(arena.raw):len(arena.raw)]
	if !c.bin {
		c.rec.RNG = base64.StdEncoding.EncodeToString(c.rng)
	}
	switch {
	case c.bin && pending:
		if err := a.copyPending(enc, c); err != nil {
			return err
		}
	case c.bin:
		if c.rec.Ctx, err = enc.encodeCtx(a.ctx); err != nil {
			return fmt.Errorf("agent %d: %w", a.id, err)
		}
	default:
		enc.reset()
		if err := a.encodeJSON(enc, c); err != nil {
			return err
		}
	}
	c.rec.Bound = enc.bound
	c.t = a.t
	start = len(arena.ms)
	if alias {
		c.nodes, c.bt = a.nodes, a.bt
		for i := range a.ms {
			m := &a.ms[i]
			arena.ms = append(arena.ms, machineCopy{stack: m.stack, history: m.history, decideAcc: m.decideAcc})
		}
	} else {
		c.nodes = cut(&arena.nodes, a.nodes)
		c.bt = cut(&arena.bt, a.bt)
		for i := range a.ms {
			m := &a.ms[i]
			arena.ms = append(arena.ms, machineCopy{stack: cut(&arena.ints, m.stack), history: m.history, decideAcc: m.decideAcc})
		}
	}
	c.ms = arena.ms[start:len(arena.ms):len(arena.ms)]
	if c.bin {
		return nil // what is pending is in c.pend
	}
	for _, n := range a.t.places {
		if !n.isMachine() {
			continue
		}
		if c.ms[n.mid].req, err = a.saveRequest(n, enc); err != nil {
			return fmt.Errorf("agent %d: %w", a.id, err)
		}
	}
	if c.rec.Events, err = encodeEvents(enc, "event", a.incoming, a.h.tickNo); err != nil {
		return fmt.Errorf("agent %d: %w", a.id, err)
	}
	if c.rec.Messages, err = encodeEvents(enc, "message", a.inbox, a.h.tickNo); err != nil {
		return fmt.Errorf("agent %d: %w", a.id, err)
	}
	return nil
}

// encodeJSON encodes a's context for c's JSON record, the tables shared
// with its payloads counted.
func (a *Agent) encodeJSON(enc *encoder, c *saveCopy) error {
	if err := enc.count(a.ctx, "ctx", 0); err != nil {
		return fmt.Errorf("agent %d: %w", a.id, err)
	}
	for _, list := range []struct {
		what   string
		events []event
	}{{"event", a.incoming}, {"message", a.inbox}} {
		for i, ev := range list.events {
			if err := enc.count(ev.payload, fmt.Sprintf("%s %d (%s) payload", list.what, i+1, ev.name), 0); err != nil {
				return fmt.Errorf("agent %d: %w", a.id, err)
			}
		}
	}
	for _, n := range a.t.places {
		if n.isMachine() && a.ms[n.mid].req.pending {
			if err := enc.count(a.ms[n.mid].req.payload, requestWhere(n), 0); err != nil {
				return fmt.Errorf("agent %d: %w", a.id, err)
			}
		}
	}
	var err error
	if c.rec.Ctx, err = enc.encode(a.ctx, "ctx"); err != nil {
		return fmt.Errorf("agent %d: %w", a.id, err)
	}
	return nil
}

// records is the agent's snapshot record: c.rec with its states and
// machines, from the copies. It touches nothing of the agent's.
func (c *saveCopy) records() agentSnapshot {
	s := c.rec
	s.States, s.Machines = map[string]stateSnapshot{}, map[string]machineSnapshot{}
	for _, n := range c.t.places {
		rt := c.nodes[n.id]
		var tree map[string]nodeSnapshot
		if n.bt != nil {
			tree = treeRecords(c.bt, n)
		}
		if rt != (placeRT{}) || tree != nil {
			s.States[n.path] = stateSnapshot{Time: rt.time, Every: rt.every, Step: rt.step, StepTime: rt.stepTime, StepSeen: rt.stepSeen, TreeTime: rt.treeTime, Tree: tree}
		}
		if !n.isMachine() {
			continue
		}
		m := &c.ms[n.mid]
		if len(m.stack) == 0 && m.history < 0 && m.req == nil && m.decideAcc == 0 {
			continue
		}
		ms := machineSnapshot{Stack: make([]string, 0, len(m.stack)), DecideAcc: m.decideAcc, Request: m.req}
		for _, i := range m.stack {
			ms.Stack = append(ms.Stack, n.children[i].name)
		}
		if m.history >= 0 {
			ms.History = n.children[m.history].name
		}
		s.Machines[n.path] = ms
	}
	return s
}

// appendCopies writes the document of a save from the loop's copies, as
// appendSnapshotFile writes their records, without building them: states
// and machines are written in path order straight from the copies.
func appendCopies(b []byte, agents []saveCopy) []byte {
	b = appendSnapshotHead(b)
	byPath := map[*layout][]*place{}
	for i := range agents {
		if i > 0 {
			b = append(b, ',')
		}
		c := &agents[i]
		places, ok := byPath[c.t]
		if !ok {
			places = slices.Clone(c.t.places)
			slices.SortFunc(places, func(x, y *place) int { return strings.Compare(x.path, y.path) })
			byPath[c.t] = places
		}
		b = c.appendJSON(b, places)
	}
	return append(b, "]}"...)
}

// appendJSON writes the agent's record; places are its layout's, sorted
// by path.
func (c *saveCopy) appendJSON(b []byte, places []*place) []byte {
	b = c.rec.appendHead(b)
	b = append(b, `,"states":{`...)
	first := true
	for _, n := range places {
		rt := c.nodes[n.id]
		var tree map[string]nodeSnapshot
		if n.bt != nil {
			tree = treeRecords(c.bt, n)
		}
		if rt == (placeRT{}) && tree == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, n.path)
		b = append(b, ':')
		st := stateSnapshot{Time: rt.time, Every: rt.every, Step: rt.step, StepTime: rt.stepTime, StepSeen: rt.stepSeen, TreeTime: rt.treeTime, Tree: tree}
		b = st.appendJSON(b)
	}
	b = append(b, `},"machines":{`...)
	first = true
	var stack [8]string
	for _, n := range places {
		if !n.isMachine() {
			continue
		}
		m := &c.ms[n.mid]
		if len(m.stack) == 0 && m.history < 0 && m.req == nil && m.decideAcc == 0 {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, n.path)
		b = append(b, ':')
		ms := machineSnapshot{Stack: stack[:0], DecideAcc: m.decideAcc, Request: m.req}
		for _, i := range m.stack {
			ms.Stack = append(ms.Stack, n.children[i].name)
		}
		if m.history >= 0 {
			ms.History = n.children[m.history].name
		}
		b = ms.appendJSON(b)
	}
	b = append(b, '}')
	return c.rec.appendTail(b)
}

// requestPending tells whether any of a's machines has a request pending.
func (a *Agent) requestPending() bool {
	for i := range a.ms {
		if a.ms[i].req.pending {
			return true
		}
	}
	return false
}

// reset empties the arena for the next agent, keeping its memory (a
// blocking save writes each copy before the next is made).
func (a *saveArena) reset() {
	a.nodes, a.ms, a.ints, a.bt, a.raw = a.nodes[:0], a.ms[:0], a.ints[:0], a.bt[:0], a.raw[:0]
}

// newSaveArena sizes an arena for the copies of agents from the records
// of up to arenaSample of them, spread over the list (a pass over every
// agent would be one more wait on memory per agent); the arena grows by
// append where the others hold more.
func newSaveArena(agents []*Agent) *saveArena {
	var nodes, ms, ints, bt int
	step := max(1, len(agents)/arenaSample)
	seen := 0
	for i := 0; i < len(agents); i += step {
		a := agents[i]
		nodes, ms, bt = nodes+len(a.nodes), ms+len(a.ms), bt+len(a.bt)
		for i := range a.ms {
			ints += len(a.ms[i].stack)
		}
		seen++
	}
	scale := func(n int) int {
		if seen == 0 {
			return 0
		}
		return n*len(agents)/seen + n/seen + 1
	}
	return &saveArena{
		nodes: make([]placeRT, 0, scale(nodes)), ms: make([]machineCopy, 0, scale(ms)),
		ints: make([]int, 0, scale(ints)), bt: make([]btRT, 0, scale(bt)),
		raw: make([]byte, 0, 20*len(agents)),
	}
}

// arenaSample is how many agents newSaveArena looks at.
const arenaSample = 64
