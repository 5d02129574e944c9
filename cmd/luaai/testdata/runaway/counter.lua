local ai = require("luaai")
return ai.fsm {
  initial = "count",
  context = { n = 0 },
  states = { count = { update = function(ctx) ctx.n = ctx.n + 1 end } },
}
