-- A guard that raises the alarm at the villager whose id it was given.
-- Only a guard's alarm carries a token of many digits (a number it drew).
local ai = require("luaai")

return ai.fsm {
  initial = "patrol",
  context = { seen = false, villager = false },
  states = {
    patrol = { transitions = { { to = "alarm", when = ai.is("seen") } } },
    alarm = {
      enter = function(ctx)
        if ctx.villager then ai.send_to(ctx.villager, "alarm", { token = ai.random() }) end
      end,
      transitions = { { to = "patrol", after = 2 } },
    },
  },
}
