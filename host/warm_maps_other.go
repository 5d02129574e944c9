//go:build !(go1.24 && !go1.27 && (go1.26 || goexperiment.swissmap))

package host

import "unsafe"

// With a Go whose maps the lookahead does not know, it asks for none of a
// map's slots (warm_maps.go).

const (
	groupSize    = 0
	maxSlotBytes = 0
)

func mapDir(unsafe.Pointer) (unsafe.Pointer, bool) { return nil, false }

func mapTable(unsafe.Pointer) unsafe.Pointer { return nil }

func mapSlots(unsafe.Pointer) (unsafe.Pointer, uintptr) { return nil, 0 }
