-- The guard of the proof mod: a hierarchical machine whose "investigate"
-- state is pushed over "patrol" but wrongly leaves with to = "alert", so
-- that combat's later to = "patrol" is refused (patrol stays paused below).
local ai = require("luaai")

return ai.fsm {
  initial = "patrol",
  context = { noise = false, alarms = 0, hits = 0 },
  states = {
    patrol = ai.fsm {
      initial = "walk",
      states = {
        walk = { transitions = { { to = "look", after = 0.2 } } },
        look = { transitions = { { to = "walk", after = 0.1 } } },
      },
      transitions = {
        { push = "investigate", when = ai.is("noise") },
      },
    },
    investigate = {
      enter = function(ctx) ctx.noise = false end,
      transitions = {
        { to = "alert", after = 0.2 },
      },
    },
    alert = {
      enter = function(ctx)
        ctx.alarms = ctx.alarms + 1
        for _, id in ipairs(ai.agents("villager")) do
          ai.send_to(id, "alarm", { level = 2, from = ai.id() })
        end
      end,
      transitions = { { to = "combat", after = 0.3 } },
    },
    combat = {
      update = function(ctx) ctx.hits = ctx.hits + 1 end,
      transitions = {
        { to = "patrol", when = ai.ge("hits", 3) },
      },
    },
  },
}
