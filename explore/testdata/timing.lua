-- A trap that fails only when it is armed, left alone for two seconds,
-- and then triggered: an event sequence with timing.
local ai = require("luaai")

return ai.fsm {
  initial = "idle",
  context = { report = false },
  states = {
    idle = { transitions = { { to = "armed", on = "arm" } } },
    armed = {
      transitions = {
        { to = "idle", on = "disarm" },
        { to = "sprung", on = "trigger", after = 2 },
      },
    },
    sprung = {
      enter = function(ctx)
        ctx.report.hits = 1 -- report is false: the fault
      end,
      transitions = { { to = "idle", after = 1 } },
    },
  },
}
