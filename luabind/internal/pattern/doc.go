// Package pattern matches Lua 5.1 patterns (the Lua 5.1 reference manual,
// §5.4.1) against byte strings, for string.find, match, gmatch and gsub.
//
// It is written for luaai from the manual's definition: character classes
// (., %a %c %d %l %p %s %u %w %x %z and their complements, %x for any
// non-alphanumeric x), sets [...] with ranges and classes, the quantifiers
// * + - ?, anchors ^ and $, captures ( ) and position captures (), %b xy
// and the frontier %f[set], and back-references %1-%9. Classes follow the C
// locale, as PUC Lua does by default; a NUL byte ends a pattern, as in PUC
// Lua 5.1. Results and error messages are PUC Lua 5.1's; the differential
// test in luabind checks them against the lua5.1 command.
//
// Every step of a match is counted, and Matcher.Stop is polled every
// StopEvery steps, so a pathological pattern can be stopped like any
// runaway script. Recursion (quantifiers, captures) is bounded at MaxDepth
// levels ("pattern too complex", as Lua 5.2 says), so a long pattern
// cannot exhaust the Go stack.
//
// The package owns pattern matching only; it imports nothing of luaai and
// nothing of gopher-lua.
package pattern
