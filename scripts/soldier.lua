-- A soldier whose movement and weapon run side by side (parallel regions)
-- and who talks to a squad leader by messages. Every soldier runs this
-- script; the leader is the one whose ctx.squad lists the others' ids.
--
-- - movement: holds, advances on the leader's "advance" order (towards the
--   payload's x), takes cover for a while when "under_fire" (an event the
--   game sends; the weapon region sees it too).
-- - weapon: aims at ctx.enemy_x when it is in range (and reports the
--   contact to ctx.leader), fires a shot per `every` period, reloads with
--   steps (wait, refill) when the magazine is empty.
-- - orders: the leader's region. On a "contact" message it counts it and
--   orders every soldier of its squad to advance towards the contact.
local ai = require("luaai")

-- An order without a place (a game may send "advance" bare) is no order.
local function has_x(_, order) return type(order) == "table" and type(order.x) == "number" end

local function enemy_in_range(ctx)
  return ctx.enemy_x and math.abs(ctx.enemy_x - ctx.x) <= ctx.range
end

return ai.fsm {
  initial = "alive",
  context = {
    x = 0, speed = 1, range = 5,
    leader = false, squad = {},   -- a follower knows its leader; the leader its squad (ids)
    enemy_x = false, goal = false,
    ammo = 3, magazine = 3, shots = 0, reloads = 0,
    contacts = 0, orders = 0, covers = 0,
  },
  states = {
    alive = ai.regions {
      states = {
        movement = ai.fsm {
          initial = "hold",
          states = {
            hold = {
              transitions = {
                { to = "take_cover", on = "under_fire" },
                { to = "advance", on = "advance", when = has_x, run = function(ctx, order) ctx.goal = order.x end },
              },
            },
            advance = {
              update = function(ctx, dt)
                local step = ctx.speed * dt
                if math.abs(ctx.goal - ctx.x) <= step then ctx.x = ctx.goal
                elseif ctx.goal > ctx.x then ctx.x = ctx.x + step
                else ctx.x = ctx.x - step end
              end,
              transitions = {
                { to = "take_cover", on = "under_fire" },
                { to = "hold", when = function(ctx) return ctx.x == ctx.goal end },
                -- a new order while advancing: a new goal, no re-entry
                { on = "advance", when = has_x, run = function(ctx, order) ctx.goal = order.x end },
              },
            },
            take_cover = {
              enter = function(ctx) ctx.covers = ctx.covers + 1 end,
              transitions = { { to = "hold", after = 1 } },
            },
          },
        },

        weapon = ai.fsm {
          initial = "idle",
          states = {
            idle = { transitions = { { to = "aiming", when = enemy_in_range } } },
            aiming = {
              enter = function(ctx)
                if ctx.leader then
                  ai.send_to(ctx.leader, "contact", { from = ai.id(), x = ctx.enemy_x })
                end
              end,
              transitions = {
                { to = "idle", when = function(ctx) return not enemy_in_range(ctx) end },
                { to = "firing", after = 0.5 },
              },
            },
            firing = {
              every = 0.5,
              update = function(ctx)
                ctx.ammo = ctx.ammo - 1
                ctx.shots = ctx.shots + 1
              end,
              transitions = {
                { to = "reloading", when = ai.le("ammo", 0) },
                { to = "idle", when = function(ctx) return not enemy_in_range(ctx) end },
              },
            },
            reloading = {
              steps = {
                ai.wait(1.5),
                function(ctx)
                  ctx.ammo = ctx.magazine
                  ctx.reloads = ctx.reloads + 1
                end,
              },
              transitions = { { to = "idle", when = ai.gt("ammo", 0) } },
            },
          },
        },

        orders = ai.fsm {
          initial = "listening",
          states = {
            listening = {
              transitions = {
                { on = "contact", run = function(ctx, contact)
                  ctx.contacts = ctx.contacts + 1
                  for _, id in ipairs(ctx.squad) do
                    if ai.send_to(id, "advance", { x = contact.x }) then ctx.orders = ctx.orders + 1 end
                  end
                end },
              },
            },
          },
        },
      },
      transitions = { { to = "down", on = "killed" } },
    },
    down = { final = true }, -- killed: nothing leads out, on purpose
  },
}
