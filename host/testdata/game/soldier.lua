-- A soldier: patrols, pushes an alert over the patrol on an alarm (and
-- pops back after it), fights when an enemy is near; its body is a Go
-- struct synced into ctx.body; it tells its neighbour about contacts.
local ai = require("luaai")
local game = require("game")

local function enemy_near(ctx) return ctx.body.enemy_dist < ctx.range end

return ai.fsm {
  initial = "patrol",
  context = { range = 8, speed = 2, dir = 1, contacts = 0, neighbour = 0, alerts = 0,
              body = { x = 0, hp = 100, enemy_dist = 100 } },
  states = {
    patrol = {
      update = function(ctx, dt)
        local b = ctx.body
        b.x = b.x + ctx.dir * ctx.speed * dt
        if b.x > 50 or b.x < -50 then ctx.dir = -ctx.dir end
      end,
      transitions = {
        { push = "alert", on = "alarm" },
        { to = "fight", when = enemy_near },
      },
    },
    alert = {
      enter = function(ctx) ctx.alerts = ctx.alerts + 1 end,
      update = function(ctx, dt) game.look(ctx.body.x, dt) end,
      transitions = { { pop = true, after = 0.5 } },
    },
    fight = {
      enter = function(ctx)
        ctx.contacts = ctx.contacts + 1
        if ctx.neighbour > 0 then ai.send_to(ctx.neighbour, "contact", { x = ctx.body.x }) end
      end,
      update = function(ctx, dt) ctx.body.hp = math.max(0, ctx.body.hp - dt) end,
      transitions = { { to = "patrol", when = function(ctx) return ctx.body.enemy_dist >= ctx.range end } },
    },
  },
}
