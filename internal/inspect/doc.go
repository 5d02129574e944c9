// Package inspect looks at behaviour definitions without running them: the
// check of one script behind `luaai check` and `luaai lsp` (check.go: the
// script loaded in a fresh host as `luaai run` loads it, then linted), the
// linter (lint.go) and the diagram writer behind
// `luaai graph` (graph.go, Graphviz DOT and Mermaid), and the curve plots
// behind `luaai curve` (curve.go).
//
// Both walk a definition with defs.Walk and find where states and
// transitions are written with defs.Sources, the same source lookup the
// definition decoder uses for its errors.
//
// It imports host (to load a script as the engine does), luabind/defs,
// luabind and gopher-lua. Nothing in luabind or host may import it: these
// are tools built on the engine, not part of it.
package inspect
