-- A utility machine: eat wins once hunger passes idle's 0.25; ai.log on enter.
local ai = require("luaai")

return ai.utility {
  initial = "idle",
  context = { hunger = 0, tags = { "a", "b" }, pos = { x = 1, y = 2 }, f = print },
  update = function(ctx) ctx.hunger = ctx.hunger + 0.1 end,
  states = {
    idle = { score = 0.25 },
    eat = {
      score = function(ctx) return ctx.hunger end,
      enter = function(ctx) ai.log("eating at " .. ctx.hunger) end,
    },
  },
}
