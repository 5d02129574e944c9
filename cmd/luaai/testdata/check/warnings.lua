-- Loads, with a warning of every kind `luaai check` gives.
local ai = require("luaai")

local function tired(ctx) return ctx.stamina < 1 end

return ai.fsm {
  initial = "idle",
  context = { hp = 10, target = { distance = 1 } },
  colour = "red", -- unknown field
  states = {
    idle = {
      transitions = {
        { to = "walk" },                                  -- always fires...
        { to = "flee", when = ai.lt("hp", 3) },           -- ...so this never does
      },
    },
    walk = {
      transitions = {
        { to = "idle", when = tired },
        { to = "flee", when = false },                    -- never fires
        { to = "idle", when = ai.gt("target.distance", 5) },
        { to = "idle", when = ai.all(ai.is("enemy"), ai.lt("hp", 5)) }, -- enemy: no default
      },
    },
    flee = { transitions = { { to = "hide", on = "safe" } } },
    hide = {},
    secret = { transitions = { { to = "lair" } } },       -- no transition reaches it
    lair = {},                                            -- only secret leads here
    camp = ai.utility {                                   -- unreachable machine
      states = { rest = { score = ai.field("fatigue") } }, -- fatigue: no default
    },
  },
}
