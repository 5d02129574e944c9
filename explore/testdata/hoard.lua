-- A dragon that hoards without end once it is told of gold.
local ai = require("luaai")

return ai.fsm {
  initial = "sleep",
  states = {
    sleep = { transitions = { { to = "hoard", on = "gold" } } },
    hoard = {
      enter = function(ctx)
        ctx.pile = {}
        for i = 1, 10000000 do ctx.pile[i] = { coin = i } end
      end,
    },
  },
}
