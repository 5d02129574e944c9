package host

import (
	"encoding/binary"
	"fmt"
)

// directRecord writes the binary record of a, an agent with nothing
// pending, straight from the agent: what copyForSave and binWriter.record
// write for it, without the copy of its plain fields, with its context
// encoded in place after them. c and arena are scratch (c is left
// referring to a's own records).
func (w *binWriter) directRecord(b []byte, a *Agent, enc *encoder, c *saveCopy, arena *saveArena) ([]byte, error) {
	b = append(b, binRecAgent)
	b = binary.AppendVarint(b, int64(a.id))
	b = w.str(b, a.b.name)
	b = binary.AppendUvarint(b, uint64(a.ticks))
	b = appendFloat(b, a.clock)
	var err error
	if arena.raw, err = a.pcg.AppendBinary(arena.raw[:0]); err != nil {
		return b, err
	}
	b = binary.AppendUvarint(b, uint64(len(arena.raw)))
	b = append(b, arena.raw...)
	b = w.str(b, a.suspension.String())
	b = binary.AppendUvarint(b, uint64(a.overruns))
	b = appendFloat(b, a.owed)
	b = binary.AppendUvarint(b, uint64(a.savedInterval()))
	b = w.str(b, a.kind)
	b = binary.AppendUvarint(b, uint64(len(a.syncs)))
	for _, s := range a.syncs {
		b = w.str(b, s.key)
	}
	// The context, encoded onto the end of b (the encoder's arena is
	// given back after).
	enc.reset()
	scratch := enc.buf
	enc.buf = b
	_, err = enc.encodeBinOnce(a.ctx, "ctx")
	b, enc.buf = enc.buf, scratch[:0]
	if err != nil {
		return b, fmt.Errorf("agent %d: %w", a.id, err)
	}
	c.t, c.nodes, c.bt = a.t, a.nodes, a.bt
	arena.ms = arena.ms[:0]
	for i := range a.ms {
		m := &a.ms[i]
		arena.ms = append(arena.ms, machineCopy{stack: m.stack, history: m.history, decideAcc: m.decideAcc})
	}
	c.ms = arena.ms
	b = w.states(b, c)
	return w.machines(b, c), nil
}
