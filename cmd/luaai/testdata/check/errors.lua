-- Several definition errors: every one is reported.
local ai = require("luaai")

return ai.fsm {
  initial = "missing",
  states = {
    a = { enter = 3, transitions = { { to = "b", push = "a" } } },
    b = { transitions = { { to = "nowhere" } } },
  },
}
