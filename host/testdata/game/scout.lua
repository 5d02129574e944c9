-- A scout: moves along a route with a behaviour tree while, in another
-- region, it watches and reports.
local ai = require("luaai")
local game = require("game")

return ai.fsm {
  initial = "out",
  context = { x = 0, goal = 20, seen = 0, tired = false, reports = 0 },
  states = {
    out = ai.regions {
      states = {
        move = ai.tree {
          root = ai.selector {
            ai.sequence { name = "rest", ai.check(ai.is("tired")), ai.wait(0.3),
              ai.action(function(ctx) ctx.tired = false return "success" end) },
            ai.action(function(ctx, dt)
              ctx.x = ctx.x + 3 * dt
              if ctx.x >= ctx.goal then ctx.x, ctx.tired = 0, true end
              return "running"
            end, { name = "walk" }),
          },
        },
        watch = ai.fsm {
          initial = "look",
          states = {
            look = {
              update = function(ctx) ctx.seen = ctx.seen + game.spot(ctx.x) end,
              transitions = { { to = "report", when = ai.gt("seen", 3) } },
            },
            report = {
              enter = function(ctx) ctx.reports = ctx.reports + 1 ctx.seen = 0 end,
              transitions = { { to = "look", after = 0.2 } },
            },
          },
        },
      },
    },
  },
}
