-- The seed FSM wanderer (emergent's Machinery with state locking): it turns
-- (change_direction), walks two cells (move), waits one turn (wait), and so on.
-- Every transition is `when = true`; `lock` holds move and wait while
-- ctx.turns > 0, so the enter/update hooks alone pace the walk.
local ai = require("luaai")

local next_direction = { up = "right", right = "down", down = "left", left = "up" }
local step_x = { up = 0, right = 1, down = 0, left = -1 }
local step_y = { up = -1, right = 0, down = 1, left = 0 }

local busy = ai.gt("turns", 0) -- the seed's is_locked: turns > 0

return ai.fsm {
  initial = "change_direction",
  context = { x = 0, y = 0, direction = "up", turns = 0 },
  states = {
    -- WaitTask(1)
    wait = {
      lock = busy,
      enter = function(ctx) ctx.turns = 1 end,
      update = function(ctx) ctx.turns = math.max(ctx.turns, 1) - 1 end,
      transitions = { { to = "change_direction", when = true } },
    },
    -- MoveTask(2)
    move = {
      lock = busy,
      enter = function(ctx) ctx.turns = 2 end,
      update = function(ctx)
        if ctx.turns > 0 then
          ctx.turns = ctx.turns - 1
          ctx.x = ctx.x + step_x[ctx.direction]
          ctx.y = ctx.y + step_y[ctx.direction]
        end
      end,
      transitions = { { to = "wait", when = true } },
    },
    -- ChangeDirectionTask
    change_direction = {
      enter = function(ctx) ctx.direction = next_direction[ctx.direction] end,
      transitions = { { to = "move", when = true } },
    },
  },
}
