-- A soldier of an RTS: patrols, fights the nearest enemy in range, and
-- pushes a regroup over either when its own commander orders it (the
-- sender is checked); its body is a Go struct synced into ctx.body.
local ai = require("luaai")
local world = require("world")

local function from_commander(ctx) return ai.sender() == ctx.commander end

return ai.fsm {
  initial = "patrol",
  context = { range = 10, target = 0, dist = 100, ox = 0, oy = 0, orders = 0, commander = 0,
              body = { x = 0, y = 0, hp = 100, enemy = 100 } },
  states = {
    patrol = {
      update = function(ctx, dt)
        local b = ctx.body
        b.x = b.x + dt
        if b.x > 50 then b.x = -50 end
        ctx.target, ctx.dist = world.nearest_enemy(ctx.range)
      end,
      transitions = {
        { push = "regroup", on = "order", when = from_commander },
        { to = "fight", when = ai.gt("target", 0) },
      },
    },
    fight = {
      update = function(ctx, dt)
        ctx.target, ctx.dist = world.nearest_enemy(ctx.range)
        if ctx.target > 0 then world.fire(ctx.target) end
      end,
      transitions = {
        { push = "regroup", on = "order", when = from_commander },
        { to = "patrol", when = ai.lt("target", 1) },
      },
    },
    regroup = {
      enter = function(ctx, order)
        ctx.ox, ctx.oy = order.x, order.y
        ctx.orders = ctx.orders + 1
      end,
      update = function(ctx, dt) world.move(ctx.ox - ctx.body.x, ctx.oy - ctx.body.y) end,
      transitions = { { pop = true, after = 0.5 } },
    },
  },
}
