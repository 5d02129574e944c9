-- The hunter: roaming steps that loop, a behaviour tree for combat (flee,
-- strike with a cooldown, chase), and the tree's finish leaving combat.
local ai = require("luaai")

local DT = 0.25

local function ticks(agent, n)
  for _ = 1, n do agent:tick(DT) end
end

describe("hunter", function()
  it("roams with steps: walk a leg, wait, turn round", function()
    local h = ai.spawn("hunter.lua", { speed = 2, patrol_end = 2, waypoint = 2 })
    assert.are.equal("roam", h:state())
    ticks(h, 4) -- 0.5 a tick: at 2 on the 4th
    assert.are.equal(2, h.ctx.x)
    assert.are.equal(0, h.ctx.legs)
    ticks(h, 2) -- the wait is reached at tick 4 (0), 0.25 at 5, 0.5 at 6: done
    assert.are.equal(1, h.ctx.legs)
    assert.are.equal(0, h.ctx.waypoint)
    assert.are.equal(1.5, h.ctx.x, "the loop goes on in the same update: walking back")
    ticks(h, 1)
    assert.are.equal(1, h.ctx.x)
    assert.are.equal(0, #h:errors())
  end)

  it("chases, strikes with a cooldown, and loots when the prey is down", function()
    local h = ai.spawn("hunter.lua", { prey_x = 3, prey_hp = 2 })
    h:tick(DT)
    assert.are.equal("combat[reactive_selector.fight.engage.chase]", h:state(),
      "entered in the decide phase, the tree ticks in the same tick's update")
    assert.are.equal(0.5, h.ctx.x)
    ticks(h, 4)
    assert.are.equal(1, h.ctx.strikes, "struck once in reach")
    assert.are.equal("combat", h:state(), "the root finished: nothing runs until it restarts")
    h:tick(DT)
    assert.are.equal("combat[reactive_selector.fight.engage.chase]", h:state(), "holds while recovering")
    h:tick(DT)
    assert.are.equal(2, h.ctx.strikes, "the cooldown (0.5 s) let it strike again")
    assert.are.equal(false, h.ctx.prey_x)
    h:tick(DT)
    assert.are.equal("loot", h:state(), "tree:success with the prey down")
    ticks(h, 3)
    assert.are.equal(0, h.ctx.loot)
    h:tick(DT)
    assert.are.equal(1, h.ctx.loot, "after the wait (1 s)")
    h:tick(DT)
    assert.are.equal("loot", h:state())
    h:tick(DT)
    assert.are.equal("roam", h:state(), "after 1.5 s")
    assert.are.equal(0, #h:errors())
  end)

  it("flees when hurt (a reactive check halts the fight)", function()
    local h = ai.spawn("hunter.lua", { prey_x = 3 })
    ticks(h, 2)
    assert.are.equal("combat[reactive_selector.fight.engage.chase]", h:state())
    h.ctx.health = 1
    h:tick(DT)
    assert.are.equal("combat[reactive_selector.flee.run_away]", h:state())
    local n = 0
    while h:state() ~= "roam" and n < 20 do
      h:tick(DT)
      n = n + 1
    end
    assert.are.equal("roam", h:state(), "out of sight: tree:success while hurt")
    assert.are.equal(5, n, "four ticks to get out of sight (x = -1.5), one to leave")
    assert.are.equal(-1, h.ctx.x, "roaming again: walking back towards its waypoint")
  end)

  it("goes back to roaming when the prey gets away (tree:failure)", function()
    local h = ai.spawn("hunter.lua", { prey_x = 3 })
    ticks(h, 2)
    h.ctx.prey_x = 50
    ticks(h, 2)
    assert.are.equal("roam", h:state())
  end)
end)
