-- No errors, no warnings.
local ai = require("luaai")

return ai.fsm {
  initial = "idle",
  context = { alarm = false, hp = 10 },
  states = {
    idle = { transitions = { { to = "alert", when = ai.is("alarm") } } },
    alert = { transitions = { { to = "idle", after = 2 } } },
  },
}
