-- A door that opens when knocked on and closes by itself: a first
-- behaviour to change. Run it with `luaai run door.lua --watch`, edit and
-- save, and watch it reload.
local ai = require("luaai")

return ai.fsm {
  initial = "closed",
  context = { opened = 0 },
  states = {
    closed = {
      transitions = { { to = "open", on = "knock" } },
    },
    open = {
      enter = function(ctx) ctx.opened = ctx.opened + 1 end,
      transitions = { { to = "closed", after = 2 } },
    },
  },
}
