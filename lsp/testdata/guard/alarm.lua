-- A sibling script: its events are offered in guard.lua too.
local ai = require("luaai")

return ai.fsm {
  initial = "quiet",
  states = {
    quiet = { transitions = { { to = "ringing", on = "intruder" } } },
    ringing = { transitions = { { to = "quiet", on = "reset" } } },
  },
}
