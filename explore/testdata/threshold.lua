-- A boiler that fails only when its heat goes past a constant its Lua
-- condition compares with.
local ai = require("luaai")

return ai.fsm {
  initial = "warm",
  context = { heat = 20, valve = "shut" },
  states = {
    warm = {
      transitions = {
        { to = "venting", when = function(ctx) return ctx.heat > 75 end },
      },
    },
    venting = {
      enter = function(ctx)
        local steps = { open = 1, shut = 0 }
        ctx.vent_rate = steps[ctx.valve] * ctx.pressure -- pressure is never set: the fault
      end,
      transitions = { { to = "warm", when = function(ctx) return ctx.heat <= 75 end } },
    },
  },
}
