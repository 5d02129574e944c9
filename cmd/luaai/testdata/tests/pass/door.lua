-- idle until ctx.go is set; --set overrides the defaults below.
local ai = require("luaai")

return ai.fsm {
  initial = "idle",
  context = { go = false, speed = 1, name = "bob" },
  states = {
    idle = { transitions = { { to = "moving", when = function(ctx) return ctx.go end } } },
    moving = {},
  },
}
