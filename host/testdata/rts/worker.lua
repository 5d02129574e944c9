-- A worker of an RTS: gathers, delivers, rests or flees, by utility; native
-- scorers and curves read its context, and it senses the world through a
-- typed Go function with four results.
local ai = require("luaai")
local world = require("world")

return ai.utility {
  momentum = 0.1,
  context = { carry = 0, fatigue = 0.2, danger = 0,
              body = { x = 0, y = 0, hp = 100, enemy = 100 } },
  states = {
    gather = {
      score = ai.product(ai.inverse(ai.field("danger")),
        ai.curve(ai.inverse(ai.field("carry")), { kind = "logistic", k = 2 })),
      update = function(ctx, dt)
        local _, _, threat, load = world.sense()
        ctx.danger = threat
        ctx.carry = math.min(1, ctx.carry + load * dt)
        ctx.fatigue = math.min(1, ctx.fatigue + 0.05 * dt)
      end,
    },
    deliver = {
      score = ai.curve(ai.field("carry"), { kind = "polynomial", k = 2 }),
      update = function(ctx, dt)
        world.move(1, 0)
        ctx.carry = math.max(0, ctx.carry - 0.5 * dt)
      end,
    },
    rest = {
      score = ai.weight(ai.field("fatigue"), 0.8),
      update = function(ctx, dt) ctx.fatigue = math.max(0, ctx.fatigue - 0.3 * dt) end,
    },
    flee = {
      score = ai.curve(ai.field("danger"), { kind = "step" }),
      update = function(ctx, dt)
        world.move(-1, 0)
        local _, _, threat = world.sense()
        ctx.danger = threat
      end,
    },
  },
}
