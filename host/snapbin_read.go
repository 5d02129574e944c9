package host

// The binary snapshot reader (the format is in snapbin.go): untrusted
// input, read with every length checked against the bytes left, so that
// no length field makes it allocate more than the input's size allows.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/luaai/luaai/luabind/defs"
	lua "github.com/yuin/gopher-lua"
)

// binReader reads a binary snapshot. Its first error sticks: every read
// after it returns zero values, and err says what and where.
type binReader struct {
	b    []byte
	i    int
	err  error
	strs []string     // the record strings, by index from 1
	vals []lua.LValue // the short strings of Lua values, by index
	// stack is a machine's stack names, reused across machines.
	stack []string
	// pairs holds the keys and values binPairs reads, a table's after
	// those of the tables it is inside; reused across agents.
	pairs []lua.LValue
	// places holds, per layout, the places found for the record strings
	// named as state and machine paths, by string number (nil: not looked
	// up yet); lastT and last are the layout met last and its list.
	places map[*layout][]*place
	lastT  *layout
	last   []*place
	// tmpl are binPairs' templates of tables' maps.
	tmpl tableTemplates
	// tables: the blocks binPairs makes tables from.
	tables tableSlab
	// machines: the last machine records read in full, the last first.
	machines [4]machinesMemo
	// num is the last number boxed (as bits): agents' contexts often
	// hold the same numbers, and one box serves them all.
	num     lua.LValue
	numBits uint64
	// nums holds the numbers boxed, a block at a time.
	nums numberBlock
}

// fail records the first error, at the current offset, and returns it.
func (r *binReader) fail(format string, args ...any) error {
	if r.err == nil {
		r.err = fmt.Errorf("byte %d: %s", r.i, fmt.Sprintf(format, args...))
		r.i = len(r.b)
	}
	return r.err
}

func (r *binReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.i >= len(r.b) {
		r.fail("truncated")
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *binReader) u64() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.b)-r.i < 8 {
		r.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b[r.i:])
	r.i += 8
	return v
}

func (r *binReader) float() float64 { return math.Float64frombits(r.u64()) }

func (r *binReader) u32() int {
	if r.err != nil {
		return 0
	}
	if len(r.b)-r.i < 4 {
		r.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.i:])
	r.i += 4
	return int(v)
}

func (r *binReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.fail("truncated or overlong number")
		return 0
	}
	r.i += n
	return v
}

func (r *binReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		r.fail("truncated or overlong number")
		return 0
	}
	r.i += n
	return v
}

// number reads a count or counter, clipped above maxSnapshotCount (which
// the checks of the record then refuse).
func (r *binReader) number() int {
	return int(min(r.uvarint(), maxSnapshotCount+1))
}

// boxed is f as a Lua value, the box of the last number read when f is
// the same (boxes are never written to), else one in a block of them.
func (r *binReader) boxed(f float64) lua.LValue {
	if bits := math.Float64bits(f); r.num == nil || bits != r.numBits {
		r.num, r.numBits = r.nums.number(f), bits
	}
	return r.num
}

// count reads how many items follow, each of at least size bytes: more
// than the bytes left hold is an error.
func (r *binReader) count(size int) int {
	n := r.uvarint()
	if r.err == nil && n > uint64((len(r.b)-r.i)/size) {
		r.fail("%d items in the %d bytes left", n, len(r.b)-r.i)
		return 0
	}
	return int(n)
}

// bytes reads a length and that many bytes, as a string; max, when ≥ 0,
// is the longest allowed.
func (r *binReader) bytes(max int) string {
	return string(r.raw(max))
}

// raw is bytes without a copy: the reader's own bytes, to be read at once.
func (r *binReader) raw(max int) []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.i) || (max >= 0 && n > uint64(max)) {
		r.fail("a string of %d bytes in the %d left", n, len(r.b)-r.i)
		return nil
	}
	s := r.b[r.i : r.i+int(n) : r.i+int(n)]
	r.i += int(n)
	return s
}

// str reads a record string: an index, or 0 and the string.
func (r *binReader) str() string {
	s, _ := r.strNum()
	return s
}

// strNum is str and the string's number (from 1; 0 after an error).
func (r *binReader) strNum() (string, int) {
	i := r.uvarint()
	if r.err != nil {
		return "", 0
	}
	if i == 0 {
		s := r.bytes(-1)
		if r.err != nil {
			return "", 0
		}
		r.strs = append(r.strs, s)
		return s, len(r.strs)
	}
	if i > uint64(len(r.strs)) {
		r.fail("string %d named before it is written", i)
		return "", 0
	}
	return r.strs[i-1], int(i)
}

// placeAt reads a record string, a path, and returns the place of t at
// that path (nil if there is none): looked up once per string and layout.
func (r *binReader) placeAt(t *layout) (*place, string) {
	path, i := r.strNum()
	if i == 0 {
		return nil, path
	}
	if t != r.lastT {
		if r.places == nil {
			r.places = map[*layout][]*place{}
		}
		if r.lastT != nil {
			r.places[r.lastT] = r.last
		}
		r.lastT, r.last = t, r.places[t]
	}
	if i < len(r.last) && r.last[i] != nil {
		return r.last[i], path
	}
	n := t.byPath[path]
	if n != nil {
		if i >= len(r.last) {
			r.last = append(r.last, make([]*place, i+1-len(r.last))...)
		}
		r.last[i] = n
	}
	return n, path
}

// readBinary reads a binary snapshot, handing each JSON record to
// jsonRec and each binary one, its plain fields read into s (reused) and
// rng, to binRec, which reads the rest from r. Their errors are returned
// as they are; the reader's name what (the operation).
func readBinary(what string, data []byte, jsonRec func(*agentSnapshot) error, binRec func(r *binReader, s *agentSnapshot, rng []byte, pending bool) error) error {
	r := &binReader{b: data, i: len(binMagic)}
	version := r.number()
	if r.err == nil && version != SnapshotVersion {
		return fmt.Errorf("%s: %w: binary snapshot of version %d, this build reads version %d", what, ErrBadSnapshot, version, SnapshotVersion)
	}
	agents := r.count(1)
	var s agentSnapshot
	for range agents {
		if r.err != nil {
			break
		}
		switch tag := r.byte(); tag {
		case binRecJSON:
			n := r.u32()
			if r.err == nil && n > len(r.b)-r.i {
				r.fail("a record of %d bytes in the %d left", n, len(r.b)-r.i)
				break
			}
			rec := r.b[r.i : r.i+n]
			r.i += n
			if err := jsonRecord(what, rec, jsonRec); err != nil {
				return err
			}
		case binRecAgent, binRecPending:
			s = agentSnapshot{ID: int(r.varint()), Behaviour: r.str(), Ticks: r.number(), Clock: r.float()}
			rng := r.raw(64)
			s.Suspended, s.Overruns, s.Owed, s.Interval, s.Kind = r.str(), r.number(), r.float(), r.number(), r.str()
			if n := r.count(1); n > 0 {
				s.Synced = make([]string, n)
				for i := range s.Synced {
					s.Synced[i] = r.str()
				}
			}
			if r.err != nil {
				break
			}
			if err := binRec(r, &s, rng, tag == binRecPending); err != nil {
				return err
			}
		default:
			if r.err == nil {
				r.fail("unknown record tag %d", tag)
			}
		}
	}
	if r.err == nil && r.i != len(r.b) {
		r.fail("data after the last agent")
	}
	if r.err != nil {
		return fmt.Errorf("%s: %w: binary snapshot: %w", what, ErrBadSnapshot, r.err)
	}
	return nil
}

// binaryCount is how many agents a binary snapshot says it holds, at
// most one per byte of it (0 if it cannot say).
func binaryCount(data []byte) int {
	r := &binReader{b: data, i: len(binMagic)}
	r.uvarint()
	return r.count(1)
}

// jsonRecord reads one agent's JSON record with the fast reader, or with
// encoding/json and its errors where the fast one gives up.
func jsonRecord(what string, rec []byte, take func(*agentSnapshot) error) error {
	var s agentSnapshot
	js := &jsonBytes{b: rec}
	err := js.agent(&s)
	if err == nil && (js.peek() != 0 || js.i != len(rec)) {
		err = errNotFast
	}
	if err != nil {
		s = agentSnapshot{}
		dec := json.NewDecoder(bytes.NewReader(rec))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("%s: %w: binary snapshot: an agent's JSON record: %w", what, ErrBadSnapshot, err)
		}
	}
	return take(&s)
}

// restoreBin makes the agent of a binary record: s and rng hold its plain
// fields; its context, states and machines are read from r, and with
// pending (a record of tag 3) what it has pending, its senders renamed by
// ids (Import's id map).
func (h *Host) restoreBin(b *Behaviour, r *binReader, s *agentSnapshot, rng []byte, pending bool, id int, ids map[int]int) (*Agent, []boundSlot, error) {
	a, err := h.restoreHead(b, s, rng, id)
	if err != nil {
		return nil, nil, err
	}
	bad := func(err error) error { return fmt.Errorf("%w: %w", ErrBadSnapshot, err) }
	d := &decoder{L: a.w.vm.L}
	size := r.u32()
	if r.err == nil && size > len(r.b)-r.i {
		r.fail("a context of %d bytes in the %d left", size, len(r.b)-r.i)
	}
	if r.err != nil {
		return nil, nil, bad(r.err)
	}
	end := r.i + size
	d.size, d.gapLeft = size, snapshotGapRatio*int64(size)
	ctx, err := d.binValue(r, 0)
	if err == nil && r.i != end {
		err = r.fail("the context ends at byte %d, not %d", r.i, end)
	}
	if err != nil {
		return nil, nil, bad(fmt.Errorf("ctx: %w", err))
	}
	ct, ok := ctx.(*lua.LTable)
	if !ok {
		return nil, nil, bad(fmt.Errorf("ctx is not a table"))
	}
	a.ctx = ct
	if err := a.binStates(r); err != nil {
		return nil, nil, bad(err)
	}
	if err := a.binMachines(r, d, h.opts.MaxStackDepth); err != nil {
		return nil, nil, bad(err)
	}
	ctxSlots := d.bound // a payload's bound values are not bound again, as in JSON
	if pending {
		if err := a.binPendingRead(r, d, h.tickNo, ids); err != nil {
			return nil, nil, bad(err)
		}
	}
	for _, n := range a.activeMachines() {
		if len(a.ms[n.mid].stack) == 0 && n.def.Kind != defs.KindUtility {
			return nil, nil, bad(fmt.Errorf("%s %q has no active state", n.def.Kind, n.path))
		}
	}
	return a, ctxSlots, nil
}

// binStates reads the state records of a binary record.
func (a *Agent) binStates(r *binReader) error {
	for range r.count(2) {
		n, path := r.placeAt(a.t)
		flags := r.byte()
		if flags >= binHasTree<<1 {
			return r.fail("state %q: unknown flags %#x", path, flags)
		}
		var st stateSnapshot
		if flags&binHasTime != 0 {
			st.Time = r.float()
		}
		if flags&binHasEvery != 0 {
			st.Every = r.float()
		}
		if flags&binHasStep != 0 {
			st.Step = int(max(min(r.varint(), math.MaxInt32), math.MinInt32))
		}
		if flags&binHasStepTime != 0 {
			st.StepTime = r.float()
		}
		st.StepSeen = flags&binStepSeen != 0
		if flags&binHasTreeTime != 0 {
			st.TreeTime = r.float()
		}
		if flags&binHasTree != 0 {
			st.Tree = binTree(r)
		}
		if r.err != nil {
			return r.err
		}
		if err := a.restoreStateAt(a.t, n, path, &st); err != nil {
			return err
		}
	}
	return r.err
}

// binTree reads a tree's node records.
func binTree(r *binReader) map[string]nodeSnapshot {
	n := r.count(2)
	out := make(map[string]nodeSnapshot, n)
	for range n {
		path := r.str()
		flags := r.byte()
		if flags >= 32 {
			r.fail("tree node %q: unknown flags %#x", path, flags)
		}
		s := nodeSnapshot{Running: flags&1 != 0}
		if flags&2 != 0 {
			s.Child = int(max(min(r.varint(), math.MaxInt32), math.MinInt32))
		}
		if flags&4 != 0 {
			s.Start = r.float()
		}
		if flags&8 != 0 {
			s.Done = r.str()
		}
		if flags&16 != 0 {
			c := r.float()
			s.Cool = &c
		}
		out[path] = s
	}
	return out
}

// binMachines reads the machine records of a binary record. Records that
// are the same bytes as those of one of the last agents read in full
// (agents in the same states, with no decide timer running: most of a
// save, often in a few kinds taking turns) give the same machines, copied
// from that agent's without the lookups and checks.
func (a *Agent) binMachines(r *binReader, d *decoder, maxDepth int) error {
	memo := &r.machines
	for _, m := range memo {
		if p := m.agent; p != nil && p.t == a.t && bytes.HasPrefix(r.b[r.i:], m.bytes) {
			for i := range a.ms {
				to, from := &a.ms[i], &p.ms[i]
				to.stack = append(to.stack[:0], from.stack...)
				to.history, to.decideAcc = from.history, from.decideAcc
			}
			r.i += len(m.bytes)
			return nil
		}
	}
	start, strs := r.i, len(r.strs)
	if err := a.binMachinesRead(r, d, maxDepth); err != nil {
		return err
	}
	if len(r.strs) == strs { // a record that names a new string is read again
		copy(memo[1:], memo[:])
		memo[0] = machinesMemo{agent: a, bytes: r.b[start:r.i]}
	}
	return nil
}

// machinesMemo is an agent whose machine records binMachines read in
// full, and their bytes.
type machinesMemo struct {
	agent *Agent
	bytes []byte
}

// binMachinesRead reads the machine records of a binary record.
func (a *Agent) binMachinesRead(r *binReader, d *decoder, maxDepth int) error {
	for range r.count(2) {
		n, path := r.placeAt(a.t)
		ms := machineSnapshot{Stack: r.stack[:0]}
		for range r.count(1) {
			ms.Stack = append(ms.Stack, r.str())
		}
		r.stack = ms.Stack
		ms.History = r.str()
		ms.DecideAcc = r.float()
		if r.err != nil {
			return r.err
		}
		if err := a.restoreMachineAt(a.t, d, n, path, &ms, maxDepth); err != nil {
			return err
		}
	}
	return r.err
}
