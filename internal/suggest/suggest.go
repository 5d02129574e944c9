// Package suggest finds the name a typo meant: luabind uses it for unknown
// fields of a definition, the luaai command for unknown flags. It imports
// only the standard library.
package suggest

import "sort"

// Closest returns the candidate nearest to name — at most two edits (an
// insertion, a deletion, a substitution or a swap of neighbours each count
// one) and fewer than half of name's length — or "" when none is that
// close. Ties go to the first in sorted order.
func Closest(name string, candidates []string) string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestD := "", 3
	for _, c := range sorted {
		if d := Distance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || 2*bestD >= len(name) {
		return ""
	}
	return best
}

// Distance is the optimal string alignment distance between a and b.
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
