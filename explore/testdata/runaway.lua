-- A counter that loops forever once its target is below its start.
local ai = require("luaai")

return ai.fsm {
  initial = "count",
  context = { target = 10 },
  states = {
    count = {
      update = function(ctx)
        local n = 0
        while n ~= ctx.target do n = n + 1 end
        ctx.counted = n
      end,
    },
  },
}
