local ai = require("luaai")

return ai.fsm {
  initial = "a",
  states = {
    a = { transitions = { { to = "nowhere" } } },
  },
}
