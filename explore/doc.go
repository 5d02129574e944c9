// Package explore searches for the inputs that make a behaviour fail: the
// engine behind `luaai explore`.
//
// Run drives fresh agents of a script with input sequences a game could
// give them — the events the behaviour names (payloads carrying the keys
// its handlers read), writes of the context fields it reads (values of
// the default's type, or of the type the code uses the field as, around
// the constants it compares with), ticks with varied dt and idle time. Sequences that reach a part of the behaviour
// not reached before (a state, transition, tree node, step, utility
// winner, or the same part a new number of times) are kept and mutated, as
// a coverage-guided fuzzer does. What the behaviour reads is taken from
// its definition and compiled code, never by running it.
//
// A Report lists each distinct failure (file:line, state, callback) with
// the fewest inputs found that cause it (shortened on fresh hosts, as
// Hypothesis shrinks), the dead ends reached, and the parts never reached.
// Report.WriteTest writes the failures as a busted-style test file that
// luaai test runs, and checks that each test fails by itself.
//
// It imports host, luabind/defs, luabind and luatest; nothing of the engine imports it.
package explore
