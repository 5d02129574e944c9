-- ctx.r is a fresh per-agent random number each tick.
local ai = require("luaai")

return ai.fsm {
  initial = "a",
  context = { r = 0 },
  update = function(ctx) ctx.r = ai.random(1000000) end,
  states = { a = {} },
}
