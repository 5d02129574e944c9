package strmap

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// On the Go this project builds with, the layout is known, and the groups
// Groups finds hold every entry of a map of one table (once, in a full
// slot, under its key), and nothing else; a map of several tables has none.
func TestGroupsHoldTheEntries(t *testing.T) {
	if !Known() {
		if v := runtime.Version(); strings.HasPrefix(v, "go1.24") || strings.HasPrefix(v, "go1.25") || strings.HasPrefix(v, "go1.26") {
			t.Fatalf("%s's map layout not known: the score plans' remembered reads are off", v)
		}
		t.Skip("a Go whose maps strmap does not know: nothing is read")
	}
	for _, n := range []int{0, 1, 8, 9, 17, 100, 500, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			m := map[string]lua.LValue{}
			for i := range n {
				m[fmt.Sprint("k", i)] = lua.LNumber(i)
			}
			for i := 0; i < n; i += 3 {
				delete(m, fmt.Sprint("k", i))
			}
			p := *(*unsafe.Pointer)(unsafe.Pointer(&m))
			g, groups := Groups(p)
			if n > 1024 {
				if g != nil {
					t.Fatalf("groups of a map of %d: want none (several tables)", n)
				}
				return
			}
			if g == nil || groups < 1 {
				t.Fatalf("no groups for a map of %d", n)
			}
			found := map[string]bool{}
			for gi := range groups {
				base := unsafe.Add(g, uintptr(gi)*GroupSize)
				for i := range SlotsPerGroup {
					if *(*uint8)(unsafe.Add(base, i))&0x80 != 0 {
						continue
					}
					k := *(*string)(unsafe.Add(base, SlotKey(i)))
					v := *(*lua.LValue)(unsafe.Add(base, SlotKey(i)+KeySize))
					if x, ok := m[k]; !ok || x != v || found[k] {
						t.Fatalf("slot %d/%d holds %q = %v: map has %v, %v (seen %v)", gi, i, k, v, x, ok, found[k])
					}
					found[k] = true
				}
			}
			if len(found) != len(m) {
				t.Fatalf("found %d entries, map holds %d", len(found), len(m))
			}
		})
	}
}
