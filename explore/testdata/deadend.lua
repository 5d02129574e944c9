-- A door that jams: nothing leads out of "jammed". "broken" is as stuck but
-- marked final, and the alarm tree's second branch can never run.
local ai = require("luaai")

return ai.fsm {
  initial = "shut",
  context = { force = 0 },
  states = {
    shut = {
      transitions = {
        { to = "open", on = "push" },
        { to = "jammed", when = function(ctx) return ctx.force > 10 end },
        { to = "broken", when = function(ctx) return ctx.force > 50 end },
        { to = "alarm", on = "alarm" },
      },
    },
    open = { transitions = { { to = "shut", after = 2 } } },
    jammed = {},
    broken = { final = true },
    alarm = ai.tree {
      root = ai.selector {
        function() return "success" end,
        function(ctx) ctx.never = true return "success" end,
      },
      transitions = { { to = "shut", after = 1 } },
    },
  },
}
