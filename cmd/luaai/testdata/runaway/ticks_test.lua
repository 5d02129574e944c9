local ai = require("luaai")
describe("ticking", function()
  it("an agent forever", function()
    local a = ai.spawn("counter.lua")
    while true do a:tick(0.1) end
  end)
end)
