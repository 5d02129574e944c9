-- Two sentries: the one that sees an intruder radios its buddy where it
-- is, and the buddy's answer keeps a log it never made. Only a message
-- from another agent carries a position, so only one reaches the fault.
local ai = require("luaai")

return ai.fsm {
  initial = "watch",
  context = { buddy = false, intruder = false },
  states = {
    watch = {
      transitions = {
        { to = "radio", when = function(ctx) return ctx.intruder end },
        {
          to = "respond",
          on = "radio_call",
          when = function(_, call) return type(call.where) == "table" and call.where.x ~= nil end,
        },
      },
    },
    radio = {
      enter = function(ctx)
        if ctx.buddy then
          ai.send_to(ctx.buddy, "radio_call", { where = { x = 4, y = 2 } })
        end
      end,
      transitions = { { to = "watch", after = 1 } },
    },
    respond = {
      enter = function(ctx, call)
        ctx.log[#ctx.log + 1] = call.where.x -- log was never made: the fault
      end,
      transitions = { { to = "watch", after = 1 } },
    },
  },
}
