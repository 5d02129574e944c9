// Package lsp is luaai's language server (luaai lsp): over the Language
// Server Protocol it tells an editor what only luaai knows about a
// behaviour script, beside the Lua server (LuaLS) that knows the language.
//
//   - Diagnostics on open, change and save: the script's text is checked
//     by inspect.CheckScript, the check of luaai check (load errors and
//     warnings), in the background and stopped by the load budget, at the
//     range each problem is about.
//   - Completion of state names in to, push, initial, ai.push and
//     ai.replace strings (the states of the machine the string is in),
//     of event names in on, ai.send and ai.send_to strings (from the
//     script and the other scripts of its folder), of state paths in
//     ai.active and renamed, of a tree node's name (the one the engine
//     gives it now), and of context fields after ctx. (from the defaults,
//     with their types).
//   - Go to definition from a state name to its key in states, and from
//     require("x") to the module's file.
//   - Hover on a state: its path, how it is entered, its transitions.
//   - Document symbols: the outline of machines, states and tree nodes.
//   - Rename of a state, with the renamed entry that keeps live agents in
//     place on the next reload.
//
// The features read the buffer's text (its own tokenizer and reading of
// table constructors), so they work while the buffer does not load; the check alone runs the script. The protocol's
// types and dispatch are glsp's (github.com/tliron/glsp), the JSON-RPC
// connection sourcegraph's jsonrpc2, over a framing of its own that
// skips what is not a message rather than stopping.
package lsp
