package host

// The binary snapshot format: the same records as the JSON document, as
// compact bytes a save writes and a load reads about twice as fast.
//
//	magic "\x89LUAAI\r\n", version (uvarint), agent count (uvarint), then
//	per agent a record: tag 1 and the binary record, or tag 2, a length
//	(4 bytes) and the agent's JSON record (an agent with pending events,
//	messages or requests: rare, kept in the readable form).
//
// Numbers are uvarints or zigzag varints, floats 8 bytes little-endian;
// record strings (behaviours, state paths, state names) are written once
// and then named by index, as are short strings in Lua values.

import (
	"encoding/binary"
	"io"
	"math"
	"slices"
	"strings"
)

// SnapshotFormat is how a save is written (SaveOptions.Format). Restore,
// RestoreFrom and Import read either, telling them apart by their first
// bytes.
type SnapshotFormat int

const (
	// SnapshotJSON is the readable JSON document Snapshot returns (the
	// zero value).
	SnapshotJSON SnapshotFormat = iota
	// SnapshotBinary is a compact binary form of the same records: about
	// a third of the size, faster to write and to read. A binary save
	// restored and saved again as JSON gives the JSON save of the same
	// agents.
	SnapshotBinary
)

// SaveOptions adjust Host.WriteSnapshotWith and Host.SnapshotAsyncWith.
// The zero value saves as WriteSnapshot does (JSON).
type SaveOptions struct {
	// Format is the format of the save; the zero value is SnapshotJSON.
	Format SnapshotFormat
}

// binMagic opens a binary snapshot; no JSON document starts with it.
const binMagic = "\x89LUAAI\r\n"

// The tags of a binary snapshot's agent records.
const (
	binRecAgent = 1 // a binary record
	binRecJSON  = 2 // the agent's JSON record, length-prefixed
)

// isBinarySnapshot tells whether data is in the binary format.
func isBinarySnapshot(data []byte) bool {
	return len(data) >= len(binMagic) && string(data[:len(binMagic)]) == binMagic
}

// WriteSnapshotWith is WriteSnapshot in the format opts names: nothing is
// written unless every agent could be saved.
func (h *Host) WriteSnapshotWith(w io.Writer, opts SaveOptions) error {
	var data []byte
	var err error
	if opts.Format == SnapshotBinary {
		data, err = h.binarySave()
	} else {
		data, err = h.Snapshot()
	}
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// binarySave is a blocking binary save: each agent copied into scratch
// records and written at once, so that no copy of every agent is made;
// the bytes are appendBinary's for the copies of the same agents.
func (h *Host) binarySave() ([]byte, error) {
	if h.running {
		return nil, ErrReentrant
	}
	enc := &encoder{}
	arena := &saveArena{}
	w := newBinWriter()
	b := h.saveBuf[:0]
	if need := 256*len(h.agents) + 64; cap(b) < need {
		b = make([]byte, 0, need)
	}
	b = appendBinaryHead(b, len(h.agents))
	var c saveCopy
	for _, a := range h.agents {
		arena.reset()
		enc.buf = enc.buf[:0]
		if len(a.incoming) == 0 && len(a.inbox) == 0 && !a.requestPending() {
			var err error
			if b, err = w.directRecord(b, a, enc, &c, arena); err != nil {
				return nil, err
			}
			continue
		}
		if err := a.copyForSave(enc, &c, arena, true, true); err != nil {
			return nil, err
		}
		b = w.record(b, &c)
	}
	h.saveBuf = b // written before the next save (a writer keeps no bytes it was given)
	return b, nil
}

// SnapshotAsyncWith is SnapshotAsync in the format opts names: its bytes
// are those WriteSnapshotWith writes with the same options.
func (h *Host) SnapshotAsyncWith(w io.Writer, opts SaveOptions) (*SaveJob, error) {
	agents, size, err := h.saveCopyAs(opts.Format == SnapshotBinary)
	if err != nil {
		return nil, err
	}
	j := &SaveJob{done: make(chan struct{})}
	go func() {
		defer close(j.done)
		j.n, j.err = w.Write(appendSave(make([]byte, 0, size), agents, opts.Format))
	}()
	return j, nil
}

// appendSave writes the document of a save from the loop's copies.
func appendSave(b []byte, agents []saveCopy, f SnapshotFormat) []byte {
	if f == SnapshotBinary {
		return appendBinary(b, agents)
	}
	return appendCopies(b, agents)
}

// binWriter writes a binary document's records; strs numbers the record
// strings written so far.
type binWriter struct {
	strs   strNums
	byPath map[*layout][]*place
	// names holds, per layout, the numbers of its places' paths and of
	// their children's names once written (0: not yet), so that an agent's
	// strings cost no lookup by text; last is the layout met last.
	names map[*layout]*layoutNames
	lastT *layout
	last  *layoutNames
}

// layoutNames is a layout's string numbers: path by place id, child by
// place id and child index.
type layoutNames struct {
	path  []int
	child [][]int
	// machines are the layout's machines, in layout order.
	machines []*place
}

// namesOf is t's string numbers.
func (w *binWriter) namesOf(t *layout) *layoutNames {
	if t == w.lastT {
		return w.last
	}
	ln, ok := w.names[t]
	if !ok {
		ln = &layoutNames{path: make([]int, len(t.places)), child: make([][]int, len(t.places))}
		for _, n := range t.places {
			ln.child[n.id] = make([]int, len(n.children))
			if n.isMachine() {
				ln.machines = append(ln.machines, n)
			}
		}
		w.names[t] = ln
	}
	w.lastT, w.last = t, ln
	return ln
}

// known writes s, whose number is *num once written.
func (w *binWriter) known(b []byte, num *int, s string) []byte {
	if *num > 0 {
		return binary.AppendUvarint(b, uint64(*num))
	}
	b = w.str(b, s)
	*num, _ = w.strs.get(s)
	return b
}

// str writes s: its index if written before, else 0, its length and bytes.
func (w *binWriter) str(b []byte, s string) []byte {
	if i, ok := w.strs.get(s); ok {
		return binary.AppendUvarint(b, uint64(i))
	}
	w.strs.add(s, w.strs.len()+1)
	b = append(b, 0)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendFloat(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

func newBinWriter() *binWriter {
	return &binWriter{byPath: map[*layout][]*place{}, names: map[*layout]*layoutNames{}}
}

// appendBinaryHead opens a binary document of n agents.
func appendBinaryHead(b []byte, n int) []byte {
	b = append(b, binMagic...)
	b = binary.AppendUvarint(b, SnapshotVersion)
	return binary.AppendUvarint(b, uint64(n))
}

// appendBinary writes the binary document of a save.
func appendBinary(b []byte, agents []saveCopy) []byte {
	b = appendBinaryHead(b, len(agents))
	w := newBinWriter()
	for i := range agents {
		b = w.record(b, &agents[i])
	}
	return b
}

// record writes c's record: binary, or its JSON record.
func (w *binWriter) record(b []byte, c *saveCopy) []byte {
	if c.bin {
		b = append(b, binRecAgent)
		return w.agent(b, c)
	}
	places, ok := w.byPath[c.t]
	if !ok {
		places = slices.Clone(c.t.places)
		slices.SortFunc(places, func(x, y *place) int { return strings.Compare(x.path, y.path) })
		w.byPath[c.t] = places
	}
	b = append(b, binRecJSON, 0, 0, 0, 0)
	start := len(b)
	b = c.appendJSON(b, places)
	binary.LittleEndian.PutUint32(b[start-4:], uint32(len(b)-start))
	return b
}

// State and node record flags: which fields follow.
const (
	binHasTime = 1 << iota
	binHasEvery
	binHasStep
	binHasStepTime
	binStepSeen
	binHasTreeTime
	binHasTree
)

// agent writes c's binary record (an agent with nothing pending: no
// events, messages or requests).
func (w *binWriter) agent(b []byte, c *saveCopy) []byte {
	r := &c.rec
	b = binary.AppendVarint(b, int64(r.ID))
	b = w.str(b, r.Behaviour)
	b = binary.AppendUvarint(b, uint64(r.Ticks))
	b = appendFloat(b, r.Clock)
	b = binary.AppendUvarint(b, uint64(len(c.rng)))
	b = append(b, c.rng...)
	b = w.str(b, r.Suspended)
	b = binary.AppendUvarint(b, uint64(r.Overruns))
	b = appendFloat(b, r.Owed)
	b = binary.AppendUvarint(b, uint64(r.Interval))
	b = w.str(b, r.Kind)
	b = binary.AppendUvarint(b, uint64(len(r.Synced)))
	for _, k := range r.Synced {
		b = w.str(b, k)
	}
	b = append(b, r.Ctx...)
	b = w.states(b, c)
	return w.machines(b, c)
}

// treeHeld tells whether any of n's tree records holds something.
func treeHeld(c *saveCopy, n *place) bool {
	if n.bt == nil {
		return false
	}
	for i := range n.bt.Nodes {
		if c.bt[n.btBase+i] != (btRT{}) {
			return true
		}
	}
	return false
}

// held tells whether a state's record holds something (is not the zero
// record).
func (rt *placeRT) held() bool {
	return rt.time != 0 || rt.every != 0 || rt.stepTime != 0 || rt.step != 0 || rt.stepSeen || rt.treeTime != 0
}

// counted writes the records body writes, after how many it wrote: in one
// pass, the count's byte patched afterwards, where fewer than 128 records
// may be written (most < 128), else counted by a first pass (count).
func counted(b []byte, most int, count func() int, body func([]byte) ([]byte, int)) []byte {
	if most < 128 {
		at := len(b)
		b = append(b, 0)
		b, n := body(b)
		b[at] = byte(n)
		return b
	}
	b = binary.AppendUvarint(b, uint64(count()))
	b, _ = body(b)
	return b
}

// states writes the records of c's states that hold something, in layout
// order.
func (w *binWriter) states(b []byte, c *saveCopy) []byte {
	ln := w.namesOf(c.t)
	count := func() int {
		n := 0
		for _, p := range c.t.places {
			if c.nodes[p.id].held() || treeHeld(c, p) {
				n++
			}
		}
		return n
	}
	return counted(b, len(c.t.places), count, func(b []byte) ([]byte, int) {
		n := 0
		for _, p := range c.t.places {
			rt := &c.nodes[p.id]
			tree := p.bt != nil && treeHeld(c, p)
			if !tree && !rt.held() {
				continue
			}
			n++
			b = w.state(b, c, ln, p, rt, tree)
		}
		return b, n
	})
}

// state writes the record of the state at n.
func (w *binWriter) state(b []byte, c *saveCopy, ln *layoutNames, n *place, rt *placeRT, tree bool) []byte {
	b = w.known(b, &ln.path[n.id], n.path)
	var flags byte
	if rt.time != 0 {
		flags |= binHasTime
	}
	if rt.every != 0 {
		flags |= binHasEvery
	}
	if rt.step != 0 {
		flags |= binHasStep
	}
	if rt.stepTime != 0 {
		flags |= binHasStepTime
	}
	if rt.stepSeen {
		flags |= binStepSeen
	}
	if rt.treeTime != 0 {
		flags |= binHasTreeTime
	}
	if tree {
		flags |= binHasTree
	}
	b = append(b, flags)
	if rt.time != 0 {
		b = appendFloat(b, rt.time)
	}
	if rt.every != 0 {
		b = appendFloat(b, rt.every)
	}
	if rt.step != 0 {
		b = binary.AppendVarint(b, int64(rt.step))
	}
	if rt.stepTime != 0 {
		b = appendFloat(b, rt.stepTime)
	}
	if rt.treeTime != 0 {
		b = appendFloat(b, rt.treeTime)
	}
	if tree {
		b = w.tree(b, c, n)
	}
	return b
}

// tree writes the records of n's tree nodes that hold something.
func (w *binWriter) tree(b []byte, c *saveCopy, n *place) []byte {
	recs := treeRecords(c.bt, n)
	count := 0
	for _, tn := range n.bt.Nodes {
		if _, ok := recs[tn.Path]; ok {
			count++
		}
	}
	b = binary.AppendUvarint(b, uint64(count))
	for _, tn := range n.bt.Nodes {
		s, ok := recs[tn.Path]
		if !ok {
			continue
		}
		b = w.str(b, tn.Path)
		var flags byte
		for bit, on := range []bool{s.Running, s.Child != 0, s.Start != 0, s.Done != "", s.Cool != nil} {
			if on {
				flags |= 1 << bit
			}
		}
		b = append(b, flags)
		if s.Child != 0 {
			b = binary.AppendVarint(b, int64(s.Child))
		}
		if s.Start != 0 {
			b = appendFloat(b, s.Start)
		}
		if s.Done != "" {
			b = w.str(b, s.Done)
		}
		if s.Cool != nil {
			b = appendFloat(b, *s.Cool)
		}
	}
	return b
}

// machines writes the records of c's machines that hold something, in
// layout order.
func (w *binWriter) machines(b []byte, c *saveCopy) []byte {
	ln := w.namesOf(c.t)
	held := func(m *machineCopy) bool {
		return len(m.stack) > 0 || m.history >= 0 || m.decideAcc != 0
	}
	count := func() int {
		n := 0
		for _, p := range ln.machines {
			if held(&c.ms[p.mid]) {
				n++
			}
		}
		return n
	}
	return counted(b, len(ln.machines), count, func(b []byte) ([]byte, int) {
		count := 0
		for _, n := range ln.machines {
			m := &c.ms[n.mid]
			if !held(m) {
				continue
			}
			count++
			b = w.known(b, &ln.path[n.id], n.path)
			b = binary.AppendUvarint(b, uint64(len(m.stack)))
			for _, i := range m.stack {
				b = w.known(b, &ln.child[n.id][i], n.children[i].name)
			}
			if m.history >= 0 {
				b = w.known(b, &ln.child[n.id][m.history], n.children[m.history].name)
			} else {
				b = w.str(b, "")
			}
			b = appendFloat(b, m.decideAcc)
		}
		return b, count
	})
}
