-- Raises while it loads.
local ai = require("luaai")
local config = nil
return ai.fsm { initial = config.first, states = { a = {} } }
