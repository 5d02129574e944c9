-- A guard: idle until a noise, then alert (look, then search), back to
-- idle once calm; hurt, it retreats on a push.
local ai = require("luaai")
local util = require("util")

return ai.fsm {
  initial = "idle",
  context = { alertness = 0, target = "none", hurt = false },
  states = {
    idle = {
      transitions = { { to = "alert", on = "noise" } },
    },
    alert = ai.fsm {
      initial = "look",
      states = {
        look = { transitions = { { to = "search", after = 2 } } },
        search = {
          enter = function(ctx) ctx.alertness = util.bump(ctx.alertness) end,
          transitions = { { push = "recover", on = "hit" } },
        },
        recover = {
          enter = function(ctx) ctx.hurt = true end,
          transitions = { { pop = true, after = 1 } },
        },
      },
      transitions = { { to = "idle", when = ai.lt("alertness", 1) } },
    },
  },
}
