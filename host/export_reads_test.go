package host

// SetCompiledAll turns compiling on or off on every worker's VM (VM is
// the first worker's only).
func SetCompiledAll(h *Host, on bool) {
	for _, w := range h.workers {
		w.vm.SetCompiled(on)
	}
}
