-- A tower of an RTS: a behaviour tree that shoots the nearest enemy in
-- range, cools down while hot, and idles.
local ai = require("luaai")
local world = require("world")

return ai.fsm {
  initial = "guard",
  context = { range = 12, target = 0, heat = 0, shots = 0, idle = 0,
              body = { x = 0, y = 0, hp = 100, enemy = 100 } },
  states = {
    guard = ai.tree {
      root = ai.selector {
        ai.sequence { name = "cool", ai.check(ai.gt("heat", 1)),
          ai.action(function(ctx, dt) ctx.heat = ctx.heat - 4 * dt return "success" end) },
        ai.sequence { name = "shoot",
          ai.action(function(ctx)
            local id = world.nearest_enemy(ctx.range)
            ctx.target = id
            if id > 0 then return "success" end
            return "failure"
          end),
          ai.action(function(ctx)
            if world.fire(ctx.target) then ctx.shots = ctx.shots + 1 end
            ctx.heat = ctx.heat + 0.5
            return "success"
          end) },
        ai.action(function(ctx, dt) ctx.idle = ctx.idle + dt return "success" end, { name = "idle" }),
      },
    },
  },
}
