-- update raises an error at tick 2; the run goes on to b at tick 4.
local ai = require("luaai")

return ai.fsm {
  initial = "a",
  context = { n = 0 },
  states = {
    a = {
      update = function(ctx)
        ctx.n = ctx.n + 1
        if ctx.n == 2 then error("boom") end
      end,
      transitions = { { to = "b", when = function(ctx) return ctx.n >= 3 end } },
    },
    b = {},
  },
}
