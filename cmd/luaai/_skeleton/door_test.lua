-- Tests for door.lua: run them with `luaai test .`.
local ai = require("luaai")

describe("door", function()
  it("starts closed", function()
    local door = ai.spawn("door.lua")
    assert.are.equal("closed", door:state())
  end)

  it("opens on a knock and closes after two seconds", function()
    local door = ai.spawn("door.lua")
    door:send("knock")
    door:tick(0.5)
    assert.are.equal("open", door:state())
    assert.are.equal(1, door.ctx.opened)
    for _ = 1, 4 do door:tick(0.5) end
    assert.are.equal("closed", door:state())
  end)
end)
