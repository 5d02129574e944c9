package host

// DetachInspectors takes h's inspectors off it until the returned function
// puts them back, so that a benchmark can tick the same host, in the same
// memory, with and without them in turn. (The agents they follow keep
// recording their transitions meanwhile.)
func DetachInspectors(h *Host) (reattach func()) {
	saved := h.insps
	h.insps = nil
	return func() { h.insps = saved }
}
