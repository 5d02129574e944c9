-- Two sentries: a lonely one pings its buddy with a number it just drew,
-- the buddy answers with the same number, and the answer (only a real one
-- carries the number) leads to a log that was never made. Only a message
-- from another agent reaches the fault.
local ai = require("luaai")

return ai.fsm {
  initial = "watch",
  context = { buddy = false, lonely = false },
  states = {
    watch = {
      transitions = {
        { to = "calling", when = function(ctx) return ctx.lonely and ctx.buddy end },
        {
          to = "watch",
          on = "ping", when = function(_, call) return call ~= nil end,
          run = function(_, call) ai.send_to(call.from, "pong", { nonce = call.nonce }) end,
        },
      },
    },
    calling = {
      enter = function(ctx)
        ctx.expected = ai.random()
        ai.send_to(ctx.buddy, "ping", { from = ai.id(), nonce = ctx.expected })
      end,
      transitions = {
        { to = "answered", on = "pong", when = function(ctx, reply) return reply ~= nil and reply.nonce == ctx.expected end },
        { to = "watch", after = 2 },
      },
    },
    answered = {
      enter = function(ctx)
        ctx.log[#ctx.log + 1] = ctx.expected -- log was never made: the fault
      end,
      transitions = { { to = "watch", after = 1 } },
    },
  },
}
