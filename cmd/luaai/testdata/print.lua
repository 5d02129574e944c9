-- print() in a's update; a -> b at tick 2.
local ai = require("luaai")

return ai.fsm {
  initial = "a",
  context = { n = 0 },
  states = {
    a = {
      update = function(ctx) ctx.n = ctx.n + 1; print("n is", ctx.n) end,
      transitions = { { to = "b", when = function(ctx) return ctx.n == 1 end } },
    },
    b = {},
  },
}
