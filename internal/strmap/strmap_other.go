//go:build !(go1.24 && !go1.27 && (go1.26 || goexperiment.swissmap))

// Package strmap reads where a gopher-lua table's string map keeps its
// entries; with this Go, whose maps it does not know, it reads nothing
// and reports none (see strmap.go).
package strmap

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Slot layout: unknown with this Go.
const (
	SlotsPerGroup = 8
	KeySize       = unsafe.Sizeof("")
	GroupSize     = 0
)

// SlotKey is the offset of slot i's key in its group (unknown: 0).
func SlotKey(int) uintptr { return 0 }

// Known reports whether maps are laid out as this package reads them.
func Known() bool { return false }

// Of is t's string map: nil, with this Go.
func Of(*lua.LTable) unsafe.Pointer { return nil }

// Groups is where m keeps its entries: nil, with this Go.
func Groups(unsafe.Pointer) (unsafe.Pointer, int) { return nil, 0 }

// Table is Groups with the table holding them: none, with this Go.
func Table(unsafe.Pointer) (tab, g unsafe.Pointer, groups int) { return nil, nil, 0 }
