-- The proof mod's busted-style spec: one test per agent, and the alarm.
local ai = require("luaai")

describe("mod", function()
  it("guard pushes investigate over patrol on a noise", function()
    local guard = ai.spawn("guard.lua")
    guard.ctx.noise = true
    guard:tick(0.1)
    assert.are.equal("investigate", guard:state())
    assert.is_false(guard.ctx.noise)
  end)

  it("villager flees on an alarm and fear picks run", function()
    local villager = ai.spawn("villager.lua")
    villager:send("alarm", { level = 2 })
    villager:tick(0.1)
    villager:tick(0.1)
    assert.are.equal("flee.run", villager:state())
    assert.is_true(villager.ctx.fear > 0)
  end)

  it("boss strikes when enraged and roars on its steps", function()
    local boss = ai.spawn("boss.lua", { enraged = true })
    boss:tick(0.1)
    assert.is_true(boss.ctx.strikes >= 1)
    assert.are.equal(1, boss.ctx.roars)
  end)

  it("guard finds the villagers by kind", function()
    ai.spawn("villager.lua")
    ai.spawn("villager.lua")
    assert.are.equal(2, #ai.agents("villager"))
  end)
end)
