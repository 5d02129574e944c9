// Package astpass holds the AST passes of luabind's compile step that keep
// a chunk within the engine's limits, between parse.Parse and lua.Compile
// (luabind.Compile runs them on every chunk):
//
//   - TooDeep refuses nesting past MaxDepth before anything recursive runs:
//     gopher-lua's compiler recurses on the tree, and a few megabytes of
//     "not not not ..." would overflow the Go stack (a fatal error no
//     recover catches) or take minutes to compile;
//   - Concat turns every `..` into a call of a function the caller
//     installs (luabind's capped concatenation), since gopher-lua joins
//     strings inside its VM loop with no hook.
//
// It imports gopher-lua's ast only, and nothing of luaai.
package astpass
