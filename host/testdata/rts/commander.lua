-- A squad commander of an RTS: in one region it plans and, once a second,
-- orders its squad to regroup where it stands (ai.send_to); in another it
-- watches the threat it senses.
local ai = require("luaai")
local world = require("world")

return ai.fsm {
  initial = "lead",
  context = { squad = {}, t = 0, x = 0, y = 0, threat = 0, sent = 0, alarm = 0,
              body = { x = 0, y = 0, hp = 100, enemy = 100 } },
  states = {
    lead = ai.regions {
      states = {
        orders = ai.fsm {
          initial = "plan",
          states = {
            plan = {
              update = function(ctx, dt)
                local x, y, threat = world.sense()
                ctx.x, ctx.y, ctx.threat = x, y, threat
                ctx.t = ctx.t + dt
              end,
              transitions = { { to = "order", when = ai.ge("t", 1) } },
            },
            order = {
              enter = function(ctx)
                ctx.t = 0
                local squad = ctx.squad
                for i = 1, #squad do
                  if ai.send_to(squad[i], "order", { x = ctx.x, y = ctx.y }) then ctx.sent = ctx.sent + 1 end
                end
              end,
              transitions = { { to = "plan" } },
            },
          },
        },
        watch = ai.fsm {
          initial = "calm",
          states = {
            calm = { transitions = { { to = "alarmed", when = ai.gt("threat", 0.5) } } },
            alarmed = {
              update = function(ctx, dt) ctx.alarm = ctx.alarm + dt end,
              transitions = { { to = "calm", when = ai.le("threat", 0.5) } },
            },
          },
        },
      },
    },
  },
}
