-- Random waits, timed updates, `after` timers and a pushed state: what
-- --save / --load must carry over exactly (RNG, clocks, timers, stacks).
local ai = require("luaai")

return ai.fsm {
  initial = "idle",
  context = { steps = 0, wait = 0 },
  states = {
    idle = {
      enter = function(ctx) ctx.wait = ai.random(1, 4) / 10 end,
      transitions = { { to = "walk", when = function(ctx) return ai.time() >= ctx.wait - 1e-9 end } },
    },
    walk = {
      every = 0.2,
      update = function(ctx) ctx.steps = ctx.steps + ai.random(3) end,
      transitions = {
        { to = "idle", after = 0.7 },
        { push = "look", when = function() return ai.random() < 0.25 end },
      },
    },
    look = { transitions = { { pop = true, after = 0.3 } } },
  },
}
