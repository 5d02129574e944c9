local ai = require("luaai")

return ai.fsm {
  initial = "a",
  enter = function(ctx) ctx.self = ctx; ctx.list = { 1, 2, { me = ctx } } end,
  states = { a = {} },
}
