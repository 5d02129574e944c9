//go:build race

package luabind

// raceEnabled: the race detector slows everything about tenfold, so CPU
// times are measured without it.
const raceEnabled = true
