package inspector

// Detach makes ih do nothing until the returned function puts it back, so
// that a benchmark can tick the same host, in the same memory, with and
// without it in turn. (The agents it follows keep recording their
// transitions meanwhile.)
func Detach(ih *Handler) (reattach func()) {
	ih.in.off = true
	return func() { ih.in.off = false }
}

// HistoryBytes is what the histories hold by the inspector's running
// account, and the same counted again frame by frame.
func HistoryBytes(ih *Handler) (account, counted int64) {
	s := ih.in.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.hist {
		counted += int64(len(r.buf) * frameSlot)
		for i := range r.len() {
			counted += int64(cap(r.at(i).data))
		}
	}
	return s.histBytes, counted
}

// History is the ticks of the first and last frames an agent's history
// holds, and how many it holds (0: none).
func History(ih *Handler, id int) (first, last, n int) {
	s := ih.in.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.hist[id]
	if r == nil || r.len() == 0 {
		return 0, 0, 0
	}
	return r.at(0).tick, r.last().tick, r.len()
}

// Shown reports whether an open page shows agent id.
func Shown(ih *Handler, id int) bool {
	s := ih.in.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wants[id] > 0
}
