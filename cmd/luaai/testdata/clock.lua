-- ctx.t is the root's time in state: the sum of every tick's dt.
local ai = require("luaai")

return ai.fsm {
  initial = "a",
  context = { t = 0 },
  update = function(ctx) ctx.t = ai.time() end,
  states = { a = {} },
}
