package host

import (
	"encoding/binary"
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// directRecord writes the binary record of a, an agent with nothing
// pending, straight from the agent: what copyForSave and binWriter.record
// write for it, with no copy of any of its records, its context encoded
// in place after its plain fields.
func (w *binWriter) directRecord(b []byte, a *Agent, enc *encoder) ([]byte, error) {
	b = append(b, binRecAgent)
	b = binary.AppendVarint(b, int64(a.id))
	b = w.behaviourName(b, a.b)
	b = binary.AppendUvarint(b, uint64(a.ticks))
	b = appendFloat(b, a.clock)
	// The random state, length-prefixed (its length is one byte: a PCG's
	// state is 20).
	at := len(b)
	b = append(b, 0)
	var err error
	if b, err = a.pcg.AppendBinary(b); err != nil {
		return b, err
	}
	if n := len(b) - at - 1; n < 128 {
		b[at] = byte(n)
	} else {
		raw := append([]byte(nil), b[at+1:]...)
		b = append(binary.AppendUvarint(b[:at], uint64(n)), raw...)
	}
	b = w.suspended(b, a.suspension)
	b = binary.AppendUvarint(b, uint64(a.overruns))
	b = appendFloat(b, a.owed)
	b = binary.AppendUvarint(b, uint64(a.savedInterval()))
	if a.kind == "" {
		b = w.known(b, &w.empty, "")
	} else {
		b = w.str(b, a.kind)
	}
	b = binary.AppendUvarint(b, uint64(len(a.syncs)))
	for _, s := range a.syncs {
		b = w.str(b, s.key)
	}
	scratch := enc.buf
	enc.buf = b
	_, err = enc.encodeCtx(a.ctx)
	b, enc.buf = enc.buf, scratch[:0]
	if err != nil {
		return b, fmt.Errorf("agent %d: %w", a.id, err)
	}
	var bt []btRT
	if w.namesOf(a.t).trees {
		bt = a.bt // else not read: one line of the agent less
	}
	b = w.statesOf(b, a.t, a.nodes, bt)
	return w.machinesOf(b, a.t, a.ms, nil), nil
}

// behaviourName writes the name of b, the number of the last one met
// kept.
func (w *binWriter) behaviourName(b []byte, beh *Behaviour) []byte {
	if beh != w.lastB || w.lastBNum == 0 {
		b = w.str(b, beh.name)
		w.lastB = beh
		w.lastBNum, _ = w.strs.get(beh.name)
		return b
	}
	return binary.AppendUvarint(b, uint64(w.lastBNum))
}

// suspended writes the word of r, its number kept once written.
func (w *binWriter) suspended(b []byte, r SuspendReason) []byte {
	if int(r) >= len(w.susp) {
		return w.str(b, r.String())
	}
	return w.known(b, &w.susp[r], r.String())
}

// encodeCtx is reset and encodeBinOnce(t, "ctx"), with a flat table
// written at once.
func (e *encoder) encodeCtx(t *lua.LTable) ([]byte, error) {
	if !e.noFlat && t != nil {
		start := len(e.buf)
		e.buf = append(e.buf, 0, 0, 0, 0, binTable)
		e.once, e.added, e.seen = true, e.added[:0], append(e.seen[:0], t)
		ok := e.flatBin(t)
		e.once = false
		if ok {
			e.bound = nil
			binary.LittleEndian.PutUint32(e.buf[start:], uint32(len(e.buf)-start-4))
			return e.buf[start:len(e.buf):len(e.buf)], nil
		}
		e.buf = e.buf[:start]
	}
	e.reset()
	return e.encodeBinOnce(t, "ctx")
}
