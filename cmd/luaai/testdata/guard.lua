-- A two-level machine: patrol {find, walk} and combat {attack}.
-- ctx.n counts ticks; the player shows up at tick 3 and is gone at tick 5.
local ai = require("luaai")

return ai.fsm {
  initial = "patrol",
  context = { n = 0 },
  update = function(ctx) ctx.n = ctx.n + 1 end,
  states = {
    patrol = ai.fsm {
      initial = "find",
      transitions = { { to = "combat", when = function(ctx) return ctx.n == 2 end } },
      states = {
        find = { transitions = { { to = "walk" } } },
        walk = { transitions = { { to = "find" } } },
      },
    },
    combat = ai.fsm {
      initial = "attack",
      transitions = { { to = "patrol", when = function(ctx) return ctx.n == 4 end } },
      states = { attack = {} },
    },
  },
}
