-- An NPC of the zones example: it walks (a utility choice between a stroll
-- and a hurry, random steps), greets a friend now and then with a plain
-- ai.send_to (the friend may be in the other zone), answers a greeting by
-- pushing a state that waves back to the sender, and rests on a timer.
local ai = require("luaai")

local function step(ctx, size)
  ctx.x = ctx.x + ctx.dir * ai.random(1, size)
  if ctx.x > 40 then ctx.dir = -1 elseif ctx.x < -40 then ctx.dir = 1 end
  if #ctx.friends > 0 and ai.random() < 0.4 then
    ctx.sent = ctx.sent + 1
    ai.send_to(ctx.friends[ai.random(#ctx.friends)], "hello", { n = ctx.sent, x = ctx.x })
  end
end

return ai.fsm {
  initial = "walk",
  context = { x = 0, dir = 1, friends = {}, sent = 0, energy = 1, log = {} },
  states = {
    walk = ai.utility {
      initial = "stroll",
      momentum = 0.05,
      states = {
        stroll = { score = 0.5, update = function(ctx) step(ctx, 2) ctx.energy = math.min(1, ctx.energy + 0.05) end },
        hurry = { score = function(ctx) return ctx.energy * 0.8 end,
                  update = function(ctx) step(ctx, 5) ctx.energy = ctx.energy - 0.2 end },
      },
      transitions = {
        { on = "hello", push = "answer", run = function(ctx, p)
            ctx.log[#ctx.log + 1] = "hello " .. ai.sender() .. "#" .. p.n
          end },
        { on = "wave", run = function(ctx) ctx.log[#ctx.log + 1] = "wave " .. ai.sender() end },
        { after = 4, to = "rest" },
      },
    },
    answer = {
      enter = function() ai.send_to(ai.sender(), "wave") end,
      transitions = { { after = 0.3, pop = true } },
    },
    rest = {
      transitions = {
        { on = "hello", run = function(ctx) ctx.log[#ctx.log + 1] = "asleep " .. ai.sender() end },
        { after = 1.5, to = "walk" },
      },
    },
  },
}
