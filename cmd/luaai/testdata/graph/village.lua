-- Every feature `luaai graph` draws: nested fsm and utility machines, push
-- and pop (also inside a nested machine), events, timers, native and Lua
-- conditions, locks, history, decide_every, random_top and momentum, a
-- machine's transition to itself, names that clash across machines or are
-- Mermaid keywords, and quotes, colons and semicolons in labels.
local ai = require("luaai")

local function tired(ctx) return ctx.energy < 2 end

return ai.fsm {
  initial = "day",
  context = { energy = 5, hunger = 0, mood = "calm", threat = 0 },
  states = {
    day = ai.utility {
      initial = "work",
      momentum = 0.1,
      select = { random_top = 2 },
      decide_every = 0.5,
      transitions = { { to = "night", on = "dusk" }, { to = "day", on = "restart" } },
      states = {
        work = ai.fsm {
          initial = "walk",
          history = true,
          score = ai.weight(ai.inverse(ai.field("hunger")), 2),
          states = {
            walk = { transitions = { { to = "dig", after = 1.5 } } },
            dig = {
              lock = ai.gt("energy", 4),
              transitions = {
                { push = "rest", when = tired },
                { to = "walk", when = ai.eq("mood", "a \"quoted\"; mood: odd") },
              },
            },
            rest = { transitions = { { pop = true, after = 2 } } },
          },
        },
        eat = { score = ai.curve(ai.field("hunger"), { kind = "logistic", k = 2 }) },
        note = { score = 0.01 }, -- a Mermaid keyword
        rest = { score = function(ctx) return 1 - ctx.energy / 10 end }, -- clashes with work.rest
      },
    },
    night = ai.fsm {
      initial = "sleep",
      transitions = { { to = "day", on = "dawn" } },
      states = {
        sleep = { transitions = { { push = "alarm", when = ai.gt("threat", 0) } } },
        alarm = { transitions = { { pop = true, when = ai.le("threat", 0) }, { to = "sleep", when = false } } },
      },
    },
    panic = { transitions = { { pop = true } } },
  },
}
