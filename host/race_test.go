//go:build race

package host_test

// raceEnabled: the race detector slows everything about tenfold, so the
// soaks run smaller under it.
const raceEnabled = true
