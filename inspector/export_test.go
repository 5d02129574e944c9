package inspector

// Detach makes ih do nothing until the returned function puts it back, so
// that a benchmark can tick the same host, in the same memory, with and
// without it in turn. (The agents it follows keep recording their
// transitions meanwhile.)
func Detach(ih *Handler) (reattach func()) {
	ih.in.off = true
	return func() { ih.in.off = false }
}
