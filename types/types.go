// Package types holds the LuaLS definitions of the luaai module
// (luaai.lua), embedded so that `luaai types` and `luaai init` can give an
// editor completion without a clone of the repository. It imports only
// the standard library.
package types

import _ "embed"

// LuaAI is types/luaai.lua: a LuaLS ---@meta file for require("luaai").
//
//go:embed luaai.lua
var LuaAI []byte
