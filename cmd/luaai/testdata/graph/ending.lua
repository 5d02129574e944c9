-- A quest that ends: "done" is final, drawn with a double border (DOT) or
-- an edge to [*] (Mermaid).
local ai = require("luaai")

return ai.fsm {
  initial = "talk",
  context = { gold = 0 },
  states = {
    talk = { transitions = { { to = "fetch", on = "accept" }, { to = "done", on = "refuse" } } },
    fetch = { transitions = { { to = "done", when = ai.ge("gold", 10) } } },
    done = { final = true },
  },
}
