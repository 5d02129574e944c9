-- A utility child with transitions: an error (children of a utility
-- machine are chosen by score, never by transition).
local ai = require("luaai")

return ai.utility {
  initial = "a",
  states = {
    a = { score = 1, transitions = { { to = "b" } } },
    b = { score = 0 },
  },
}
