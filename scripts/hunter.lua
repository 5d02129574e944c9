-- A hunter: it roams with steps (walk a leg, wait, turn round, again), and
-- fights with a behaviour tree when it sees prey. The tree flees when hurt,
-- strikes when in reach (with a cooldown between strikes) and chases
-- otherwise. The tree's finish is how it leaves combat: tree:success with
-- the prey down loots, tree:failure (the prey is out of sight) roams.
--
-- The game sets ctx.prey_x (a position, false for none) and ctx.health.
local ai = require("luaai")

-- ctx.x moved towards target by at most speed * dt; true once there.
local function move_to(ctx, target, dt)
  local step = ctx.speed * dt
  if math.abs(target - ctx.x) <= step then
    ctx.x = target
    return true
  end
  ctx.x = ctx.x + (target > ctx.x and step or -step)
  return false
end

local function sees_prey(ctx)
  return ctx.prey_x and ctx.prey_hp > 0 and math.abs(ctx.prey_x - ctx.x) <= ctx.sight
end

local function in_reach(ctx)
  return math.abs(ctx.prey_x - ctx.x) <= ctx.reach
end

local function attack(ctx)
  ctx.prey_hp = ctx.prey_hp - 1
  ctx.strikes = ctx.strikes + 1
  if ctx.prey_hp <= 0 then ctx.prey_x = false end
  return "success"
end

local function chase(ctx, dt)
  if in_reach(ctx) then return "running" end -- holds, waiting for the cooldown
  move_to(ctx, ctx.prey_x, dt)
  return "running"
end

local function run_away(ctx, dt)
  local away = ctx.x + (ctx.x >= (ctx.prey_x or ctx.x) and 1 or -1) * ctx.speed * dt
  ctx.x = away
  if not ctx.prey_x or math.abs(ctx.prey_x - ctx.x) > ctx.sight then return "success" end
  return "running"
end

return ai.fsm {
  initial = "roam",
  context = {
    x = 0, speed = 2, sight = 4, reach = 1,
    waypoint = 6, patrol_end = 6, legs = 0,
    prey_x = false, prey_hp = 3, health = 10,
    strikes = 0, loot = 0,
  },
  states = {
    roam = {
      steps = {
        function(ctx, dt) if not move_to(ctx, ctx.waypoint, dt) then return "running" end end,
        ai.wait(0.5),
        function(ctx)
          ctx.legs = ctx.legs + 1
          ctx.waypoint = ctx.waypoint == 0 and ctx.patrol_end or 0
        end,
      },
      steps_loop = true,
      transitions = { { to = "combat", when = sees_prey } },
    },

    combat = ai.tree {
      root = ai.reactive_selector {
        ai.sequence { name = "flee",
          ai.check(ai.lt("health", 3), { name = "hurt" }),
          ai.action(run_away, { name = "run_away" }),
        },
        ai.reactive_sequence { name = "fight",
          ai.check(sees_prey, { name = "sees_prey" }),
          ai.reactive_selector { name = "engage",
            ai.sequence { name = "strike",
              ai.check(in_reach, { name = "in_reach" }),
              ai.cooldown(ai.action(attack, { name = "attack" }), 0.5, { name = "recover" }),
            },
            ai.action(chase, { name = "chase" }),
          },
        },
      },
      transitions = {
        { to = "loot", on = "tree:success", when = ai.le("prey_hp", 0) },
        { to = "roam", on = "tree:success", when = ai.lt("health", 3) },
        { to = "roam", on = "tree:failure" },
      },
    },

    loot = {
      steps = {
        ai.wait(1),
        function(ctx) ctx.loot = ctx.loot + 1 end,
      },
      transitions = { { to = "roam", when = ai.gt("loot", 0), after = 1.5 } },
    },
  },
}
