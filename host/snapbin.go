package host

// The binary snapshot format: the same records as the JSON document, as
// compact bytes a save writes and a load reads about twice as fast.
//
//	magic "\x89LUAAI\r\n", version (uvarint), agent count (uvarint), then
//	per agent a record: tag 1 and the binary record; tag 3, the binary
//	record and what the agent has pending (events, messages, requests:
//	snapbin_pending.go); or tag 2, a length (4 bytes) and the agent's
//	JSON record (what saves before tag 3 wrote for an agent with
//	something pending, still read).
//
// Numbers are uvarints or zigzag varints, floats 8 bytes little-endian;
// record strings (behaviours, state paths, state names) are written once
// and then named by index, as are short strings in Lua values.

import (
	"encoding/binary"
	"io"
	"math"
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
	var arena *saveArena
	w := newBinWriter()
	b := h.saveBuf[:0]
	if need := 256*len(h.agents) + 64; cap(b) < need {
		b = make([]byte, 0, need)
	}
	b = appendBinaryHead(b, len(h.agents))
	var c saveCopy
	ahead := saveAhead(h.agents)
	ahead.start()
	for i, a := range h.agents {
		ahead.warm(i)
		if !a.hasPending() {
			var err error
			if b, err = w.directRecord(b, a, enc); err != nil {
				return nil, err
			}
			continue
		}
		if arena == nil {
			arena = &saveArena{}
		}
		arena.reset()
		enc.buf = enc.buf[:0]
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
	s, size, err := h.saveCopyAs(opts.Format == SnapshotBinary)
	if err != nil {
		return nil, err
	}
	j := &SaveJob{done: make(chan struct{})}
	go func() {
		defer close(j.done)
		j.n, j.err = w.Write(appendSave(make([]byte, 0, size), s.agents, opts.Format))
	}()
	h.keepCopies(s, j.done)
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
	strs strNums
	// names holds, per layout, the numbers of its places' paths and of
	// their children's names once written (0: not yet), so that an agent's
	// strings cost no lookup by text; last is the layout met last.
	names map[*layout]*layoutNames
	lastT *layout
	last  *layoutNames
	// lastB is the behaviour of the last agent and lastBNum its name's
	// number; susp, the numbers of the suspension words, and empty, of ""
	// (0: not written yet).
	lastB    *Behaviour
	lastBNum int
	susp     [len(suspendNames)]int
	empty    int
}

// layoutNames is a layout's string numbers: path by place id, child by
// place id and child index.
type layoutNames struct {
	path  []int
	child [][]int
	// machines are the layout's machines, in layout order.
	machines []machineNames
	// states are its places, in layout order; trees, whether any is a
	// tree state.
	states []stateNames
	trees  bool
}

// stateNames is a place in a layout: its id, path and path's number, and
// the place itself where it is a tree state (else nil).
type stateNames struct {
	id      int
	path    string
	pathNum *int
	tree    *place
}

// machineNames is a machine's place in a layout: its machine index, its
// path and its path's number, its children's names and their numbers.
type machineNames struct {
	mid     int
	path    string
	pathNum *int
	kids    []string
	nums    []int
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
			st := stateNames{id: n.id, path: n.path, pathNum: &ln.path[n.id]}
			if n.bt != nil {
				st.tree, ln.trees = n, true
			}
			ln.states = append(ln.states, st)
			ln.child[n.id] = make([]int, len(n.children))
			if n.isMachine() {
				m := machineNames{mid: n.mid, path: n.path, pathNum: &ln.path[n.id], nums: ln.child[n.id]}
				for _, c := range n.children {
					m.kids = append(m.kids, c.name)
				}
				ln.machines = append(ln.machines, m)
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
	return &binWriter{names: map[*layout]*layoutNames{}}
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

// record writes c's binary record (c is a copy for the binary format):
// tag 1, or tag 3 with what the agent has pending.
func (w *binWriter) record(b []byte, c *saveCopy) []byte {
	if c.pend != nil {
		b = append(b, binRecPending)
		return w.pending(w.agent(b, c), c.pend)
	}
	b = append(b, binRecAgent)
	return w.agent(b, c)
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

// agent writes c's binary record, up to its machines (what the agent
// has pending follows: pending).
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
	b = w.statesOf(b, c.t, c.nodes, c.bt)
	return w.machinesOf(b, c.t, nil, c.ms)
}
