// Command luaai runs game AI behaviours written in Lua.
//
//	luaai run SCRIPT [flags]     spawn agents from a behaviour and tick them, printing state changes
//	luaai replay FILE [SCRIPT]   run a --record recording again and say where it first differs
//	luaai test [PATH...]         run the *_test.lua files below the paths
//	luaai bench SCRIPT [flags]   agent-ticks/s, tick time p50/p99/max, allocations, memory per agent
//	luaai check SCRIPT|DIR...    load and validate scripts: errors and warnings as file:line
//	luaai graph SCRIPT           the behaviour as a Graphviz DOT or Mermaid diagram
//	luaai explore SCRIPT [flags] search for inputs that make it fail; write them as tests
//	luaai init DIR               a mod project: a behaviour, its tests, editor set-up
//	luaai types                  the LuaLS definitions of require("luaai")
//	luaai lsp                    the language server editors start beside LuaLS
//	luaai curve KIND [params]    draw a utility response curve (terminal or SVG)
//	luaai version                luaai's, Go's, gopher-lua's and gopher-luar's versions
//	luaai help [COMMAND]         the overview, or a command's flags
//
// Exit codes: 0 success; 1 a script that does not load, a failed test, or a
// run during which a callback raised an error; 2 a usage error.
package main
