// Package inspect looks at behaviour definitions without running them: the
// linter behind `luaai check` (lint.go) and the diagram writer behind
// `luaai graph` (graph.go, Graphviz DOT and Mermaid), and the curve plots
// behind `luaai curve` (curve.go).
//
// Both walk a definition with defs.Walk and find where states and
// transitions are written with defs.Sources, the same source lookup the
// definition decoder uses for its errors.
//
// It imports luabind/defs, luabind and gopher-lua. Nothing in luabind or
// host may import it: these are tools built on the engine, not part of it.
package inspect
