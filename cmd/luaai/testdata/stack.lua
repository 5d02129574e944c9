-- a pushes b at tick 3; b pops back at tick 4.
local ai = require("luaai")

return ai.fsm {
  initial = "a",
  context = { n = 0 },
  states = {
    a = {
      update = function(ctx) ctx.n = ctx.n + 1 end,
      transitions = { { push = "b", when = function(ctx) return ctx.n == 2 end } },
    },
    b = { transitions = { { pop = true } } },
  },
}
