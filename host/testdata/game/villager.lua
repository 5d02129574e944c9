-- A villager: eats, works or sleeps, by utility; the job is a bound Go
-- struct read by a native scorer, hunger a plain field.
local ai = require("luaai")

return ai.utility {
  momentum = 0.1,
  context = { hunger = 0.2, fatigue = 0.1, food = 10, made = 0 },
  states = {
    eat = {
      score = ai.curve(ai.field("hunger"), { kind = "logistic", k = 2 }),
      update = function(ctx, dt)
        ctx.hunger = math.max(0, ctx.hunger - 0.5 * dt)
        ctx.food = ctx.food - dt
      end,
    },
    work = {
      score = ai.product(ai.field("job.skill"), ai.inverse(ai.field("fatigue"))),
      update = function(ctx, dt)
        ctx.hunger = math.min(1, ctx.hunger + 0.05 * dt)
        ctx.fatigue = math.min(1, ctx.fatigue + 0.04 * dt)
        ctx.made = ctx.made + dt
      end,
    },
    sleep = {
      score = function(ctx) return ctx.fatigue * ctx.fatigue end,
      update = function(ctx, dt) ctx.fatigue = math.max(0, ctx.fatigue - 0.2 * dt) end,
    },
  },
}
