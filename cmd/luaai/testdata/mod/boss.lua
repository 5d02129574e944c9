-- The boss of the proof mod: a behaviour tree inside parallel regions,
-- with steps in its other region.
local ai = require("luaai")

local function strike(ctx)
  ctx.strikes = ctx.strikes + 1
  return "success"
end

return ai.fsm {
  initial = "fight",
  context = { enraged = false, strikes = 0, roars = 0 },
  states = {
    fight = ai.regions {
      states = {
        brain = ai.fsm {
          initial = "think",
          states = {
            think = ai.tree {
              root = ai.selector {
                ai.sequence { name = "rage", ai.check(ai.is("enraged")), ai.action(strike, { name = "strike" }) },
                ai.action(function() return "running" end, { name = "wait" }),
              },
            },
          },
        },
        voice = ai.fsm {
          initial = "roar",
          states = {
            roar = {
              steps = {
                function(ctx) ctx.roars = ctx.roars + 1 end,
                ai.wait(0.3),
              },
              steps_loop = true,
            },
          },
        },
      },
    },
  },
}
