-- The seed pushdown-FSM guard (seed 002): it patrols a corridor; a `noise`
-- event it can hear pushes go_see_disturbance over patrolling (patrolling is
-- paused, not exited: its timers freeze), which runs there on a timed update
-- and pops back (ai.pop() on arrival, applied at the start of the next tick,
-- or `after = 2` seconds when it gives up), and patrolling resumes where it was.
--
-- Send it `noise` with the position as payload: agent:send("noise", 3).
-- Set ctx.log to a table to record every hook call ("state.hook").
local ai = require("luaai")

local function note(ctx, what)
  if ctx.log then ctx.log[#ctx.log + 1] = what end
end

-- x moved towards target by at most step.
local function step_towards(x, target, step)
  if math.abs(target - x) <= step then return target end
  if target > x then return x + step end
  return x - step
end

-- The noise's payload is its position; only noises within hearing count.
local function heard(ctx, pos)
  if type(pos) ~= "number" or math.abs(pos - ctx.x) > ctx.hearing then return false end
  ctx.disturbance = pos
  return true
end

return ai.fsm {
  initial = "patrolling",
  context = {
    x = 0, dir = 1, patrol_end = 3, -- walks 0 <-> patrol_end
    walk_speed = 1, run_speed = 2,   -- cells per second
    hearing = 5,
    disturbance = false,             -- position being checked, false when none
    pauses = 0, resumes = 0,
    patrol_updates = 0, patrol_time = 0, -- ai.time() at the last patrol update
    log = false,
  },
  states = {
    patrolling = {
      every = 1, -- looks around and takes its next steps once a second
      enter = function(ctx) note(ctx, "patrolling.enter") end,
      update = function(ctx, dt)
        note(ctx, "patrolling.update")
        ctx.patrol_updates = ctx.patrol_updates + 1
        ctx.patrol_time = ai.time()
        if ctx.x >= ctx.patrol_end then ctx.dir = -1 elseif ctx.x <= 0 then ctx.dir = 1 end
        local target = ctx.dir > 0 and ctx.patrol_end or 0
        ctx.x = step_towards(ctx.x, target, ctx.walk_speed * dt)
      end,
      pause = function(ctx)
        note(ctx, "patrolling.pause")
        ctx.pauses = ctx.pauses + 1
      end,
      resume = function(ctx)
        note(ctx, "patrolling.resume")
        ctx.resumes = ctx.resumes + 1
      end,
      exit = function(ctx) note(ctx, "patrolling.exit") end,
      transitions = { { push = "go_see_disturbance", on = "noise", when = heard } },
    },

    go_see_disturbance = {
      every = 0.5,
      enter = function(ctx) note(ctx, "go_see_disturbance.enter") end,
      update = function(ctx, dt)
        note(ctx, "go_see_disturbance.update")
        ctx.x = step_towards(ctx.x, ctx.disturbance, ctx.run_speed * dt)
        if ctx.x == ctx.disturbance then
          ai.pop() -- nothing here: back to patrolling, from the next tick on
        end
      end,
      exit = function(ctx)
        note(ctx, "go_see_disturbance.exit")
        ctx.disturbance = false
      end,
      transitions = { { pop = true, after = 2 } }, -- gives up after 2 seconds
    },
  },
}
