-- A villager that flees at a guard's alarm, to a shelter it never got:
-- only a message from a guard reaches the fault.
local ai = require("luaai")

return ai.fsm {
  initial = "work",
  context = { shelter = false },
  states = {
    work = { transitions = { { to = "flee", on = "alarm", when = function(_, a) return a ~= nil and #tostring(a.token) > 8 end } } },
    flee = {
      enter = function(ctx) ctx.path = ctx.shelter.x end, -- no shelter: the fault
      transitions = { { to = "work", after = 1 } },
    },
  },
}
