-- The villager of the proof mod: utility machines scored with curves, that
-- flees when the guard's alarm (sent to every "villager") raises its fear.
local ai = require("luaai")

return ai.fsm {
  initial = "life",
  context = { fear = 0, tired = 0.2 },
  states = {
    life = ai.utility {
      initial = "work",
      momentum = 0.05,
      states = {
        work = {
          score = 0.5,
          update = function(ctx, dt) ctx.tired = math.min(1, ctx.tired + dt) end,
        },
        rest = {
          score = ai.curve(ai.field("tired"), { kind = "linear" }),
          update = function(ctx, dt) ctx.tired = math.max(0, ctx.tired - 2 * dt) end,
        },
      },
      transitions = {
        {
          to = "flee",
          on = "alarm",
          run = function(ctx, alarm)
            if alarm ~= nil then ctx.fear = ctx.fear + alarm.level * 0.4 end
          end,
        },
      },
    },
    flee = ai.utility {
      initial = "hide",
      states = {
        hide = { score = 0.45 },
        run = {
          score = ai.curve(ai.field("fear"), { kind = "logistic", k = 1.5 }),
          update = function(ctx, dt) ctx.fear = math.max(0, ctx.fear - 2 * dt) end,
        },
      },
      transitions = { { to = "life", after = 1 } },
    },
  },
}
