package host

// Reading a snapshot document into agents, for Restore and Import: the
// ids they take, the fast reader and its encoding/json fallback.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// idPlacer gives each agent of a document, as it is read, the id it takes
// here: its own, or the id map's. An id out of range, an agent twice in
// the document, two agents mapped onto one id, or an id the host holds is
// an error; finish reports an id map naming an agent the document lacks.
//
// Without an id map, while the saved ids come in increasing order (as a
// save writes them), each is new and takes its own id: only the largest so
// far is kept, and the maps are filled from order the first time an id
// comes out of order.
type idPlacer struct {
	h     *Host
	ids   map[int]int  // saved id → new id (Import's map)
	taken map[int]int  // new id → the saved id that takes it
	saved map[int]bool // saved ids seen
	// inOrder: the ids placed so far, in increasing order, are order's
	// (without an id map); the maps are not filled meanwhile.
	inOrder bool
	order   []int
}

func (h *Host) newIDPlacer(ids map[int]int) *idPlacer {
	return &idPlacer{h: h, ids: ids, taken: map[int]int{}, saved: map[int]bool{}, inOrder: ids == nil}
}

// place is the id the agent saved as old takes here.
func (p *idPlacer) place(old int) (int, error) {
	if old < 1 || old > MaxID {
		return 0, fmt.Errorf("%w: agent %d: %w", ErrBadSnapshot, old, ErrBadID)
	}
	if p.inOrder {
		if n := len(p.order); n == 0 || old > p.order[n-1] {
			if err := p.h.checkID(old); err != nil {
				return 0, err
			}
			p.order = append(p.order, old)
			return old, nil
		}
		p.inOrder = false
		for _, id := range p.order {
			p.saved[id], p.taken[id] = true, id
		}
		p.order = nil
	}
	if p.saved[old] {
		return 0, fmt.Errorf("%w: agent %d is twice in the document: %w", ErrBadSnapshot, old, ErrIDInUse)
	}
	p.saved[old] = true
	id := old
	if to, ok := p.ids[old]; ok {
		id = to
	}
	if prev, ok := p.taken[id]; ok {
		return 0, fmt.Errorf("agents %d and %d both map to id %d: %w", prev, old, id, ErrIDInUse)
	}
	p.taken[id] = old
	if err := p.h.checkID(id); err != nil {
		if id != old {
			return 0, fmt.Errorf("agent %d as %w", old, err)
		}
		return 0, err
	}
	return id, nil
}

// reserve makes room for n agents.
func (p *idPlacer) reserve(n int) {
	if p.inOrder {
		p.order = make([]int, 0, n)
		return
	}
	p.taken, p.saved = make(map[int]int, n), make(map[int]bool, n)
}

// finish reports an id map that names an agent the document did not hold.
func (p *idPlacer) finish() error {
	for old := range p.ids {
		if !p.saved[old] {
			return fmt.Errorf("the id map names agent %d, which is not in the document", old)
		}
	}
	return nil
}

// migrateSnapshot brings a document of an older version up to this one
// with migrate, when it is set and the version differs: what names the
// operation in errors ("restore", "import").
func migrateSnapshot(what string, data []byte, migrate func(version int, data []byte) ([]byte, error)) ([]byte, error) {
	if migrate == nil {
		return data, nil
	}
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err == nil && head.Version != SnapshotVersion {
		migrated, err := migrate(head.Version, data)
		if err != nil {
			return nil, fmt.Errorf("%s: migrating version %d: %w", what, head.Version, err)
		}
		return migrated, nil
	}
	return data, nil
}

// readSnapshotDoc reads a snapshot document whole with encoding/json and
// its rules: the reading for any document the fast reader does not take.
func readSnapshotDoc(what string, data []byte) (f snapshotFile, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("%s: %w: %w", what, ErrBadSnapshot, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return f, fmt.Errorf("%s: %w: data after the snapshot", what, ErrBadSnapshot)
	}
	if f.Version != SnapshotVersion {
		return f, fmt.Errorf("%s: %w: version %d, this build reads version %d", what, ErrBadSnapshot, f.Version, SnapshotVersion)
	}
	return f, nil
}

// makeRestored makes the agents of a snapshot document under their new
// ids, rebinds and attaches them: all of them, or none (the ones made are
// released) and the error. A binary snapshot is read by its own reader;
// the JSON documents Save writes are read fast, each
// agent made as it is read; anything else (or a record that fails) is read
// again from the start with encoding/json, its rules and its errors, so a
// crafted document gets the errors it always got.
func (h *Host) makeRestored(what string, data []byte, opts restoreMode, behaviours []*Behaviour) ([]*Agent, error) {
	var out []*Agent
	var rebinds [][]boundSlot
	var synced [][]string
	ids := h.newIDPlacer(opts.ids)
	undo := func() {
		for _, a := range out {
			h.release(a)
		}
		out, rebinds, synced = nil, nil, nil
		ids = h.newIDPlacer(opts.ids)
	}
	// add makes one agent (of behaviour name, saved as old), with restore.
	add := func(name string, old int, keys []string, restore func(b *Behaviour, id int) (*Agent, []boundSlot, error)) error {
		b := behaviourNamed(behaviours, name)
		if b == nil {
			return fmt.Errorf("%s: %w: agent %d runs %q, which was not given", what, ErrBadSnapshot, old, name)
		}
		id, err := ids.place(old)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		a, slots, err := restore(b, id)
		if err != nil {
			return fmt.Errorf("%s: agent %d: %w", what, old, err)
		}
		out = append(out, a)
		if opts.Rebind != nil {
			rebinds = append(rebinds, slots)
		}
		if opts.Attach != nil {
			synced = append(synced, keys)
		}
		return nil
	}
	take := func(s *agentSnapshot) error {
		return add(s.Behaviour, s.ID, s.Synced, func(b *Behaviour, id int) (*Agent, []boundSlot, error) {
			return h.restoreAgent(b, s, id, opts.ids)
		})
	}
	if isBinarySnapshot(data) {
		out = make([]*Agent, 0, binaryCount(data))
		ids.reserve(cap(out))
		err := readBinary(what, data, take, func(r *binReader, s *agentSnapshot, rng []byte, pending bool) error {
			return add(s.Behaviour, s.ID, s.Synced, func(b *Behaviour, id int) (*Agent, []boundSlot, error) {
				return h.restoreBin(b, r, s, rng, pending, id, opts.ids)
			})
		})
		if err == nil {
			err = wrapIf(what, ids.finish())
		}
		if err != nil {
			undo()
			return nil, err
		}
		return h.finishRestored(what, out, rebinds, synced, opts, undo)
	}
	version, err := streamSnapshotFile(data, take)
	if err == nil && version == SnapshotVersion {
		err = ids.finish()
	}
	if err != nil || version != SnapshotVersion {
		undo()
		f, err := readSnapshotDoc(what, data)
		if err != nil {
			return nil, err
		}
		for i := range f.Agents {
			if err := take(&f.Agents[i]); err != nil {
				undo()
				return nil, err
			}
		}
		if err := ids.finish(); err != nil {
			undo()
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	return h.finishRestored(what, out, rebinds, synced, opts, undo)
}

// wrapIf is err with what before it, or nil.
func wrapIf(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// behaviourNamed is the behaviour an agent saved running name runs: the
// only one given, or the one of that name (nil: none).
func behaviourNamed(behaviours []*Behaviour, name string) *Behaviour {
	if len(behaviours) == 1 {
		return behaviours[0]
	}
	for _, c := range behaviours {
		if c.name == name {
			return c
		}
	}
	return nil
}

// finishRestored rebinds and attaches the agents a restore made, or
// undoes the restore and returns the error.
func (h *Host) finishRestored(what string, out []*Agent, rebinds [][]boundSlot, synced [][]string, opts restoreMode, undo func()) ([]*Agent, error) {
	for i, slots := range rebinds {
		if err := out[i].rebind(slots, opts.Rebind); err != nil {
			id := out[i].id
			undo()
			return nil, fmt.Errorf("%s: agent %d: %w", what, id, err)
		}
	}
	if opts.Attach != nil {
		// A restore that Attach itself runs gives the outer one's back.
		outer, outerKeys := h.attaching, h.attachKeys
		defer func() { h.attaching, h.attachKeys = outer, outerKeys }()
		for i, a := range out {
			h.attaching, h.attachKeys = a, synced[i]
			if err := opts.Attach(a, synced[i]); err != nil {
				h.attaching, h.attachKeys = outer, outerKeys
				undo()
				return nil, fmt.Errorf("%s: agent %d: attach: %w", what, a.id, err)
			}
		}
	}
	return out, nil
}
