package host

import lua "github.com/yuin/gopher-lua"

// SizeOf is the memory measure's estimate of what v holds, functions
// followed as a script's own data is.
func SizeOf(v lua.LValue) int64 {
	s := sizer{funcs: true}
	return s.size(v, 0)
}

// MeasureNow runs the host's memory measure now, whatever the heap did.
func MeasureNow(h *Host) {
	h.mem.low = -1 << 62
	h.checkMemory()
}
