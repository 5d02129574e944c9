-- The soldier: movement, weapon and orders regions side by side, and the
-- squad talking by messages (ai.send_to) through its leader.
local ai = require("luaai")

local DT = 0.25

local function ticks(agents, n)
  for _ = 1, n do
    for _, a in ipairs(agents) do a:tick(DT) end
  end
end

describe("soldier", function()
  it("runs its regions side by side", function()
    local s = ai.spawn("soldier.lua")
    assert.are.equal("alive{movement.hold,orders.listening,weapon.idle}", s:state())
    assert.is_true(ai.active ~= nil)
    assert.is_true(s:active("alive.weapon.idle"))
    assert.is_true(s:active("hold"))
  end)

  it("fires, reloads with steps, and takes cover under fire while the weapon goes on", function()
    local s = ai.spawn("soldier.lua", { enemy_x = 3 })
    s:tick(DT)
    assert.are.equal("alive{movement.hold,orders.listening,weapon.aiming}", s:state())
    ticks({ s }, 2)
    assert.are.equal("alive{movement.hold,orders.listening,weapon.firing}", s:state())
    s:send("under_fire")
    ticks({ s }, 1)
    assert.are.equal("alive{movement.take_cover,orders.listening,weapon.firing}", s:state())
    ticks({ s }, 6)
    assert.are.equal(3, s.ctx.shots)
    assert.are.equal("alive{movement.hold,orders.listening,weapon.reloading}", s:state())
    ticks({ s }, 7)
    assert.are.equal(1, s.ctx.reloads)
    assert.are.equal(3, s.ctx.ammo)
    assert.are.equal(1, s.ctx.covers)
    assert.are.equal(0, #s:errors())
  end)

  it("reports contact to its leader, who orders the squad to advance", function()
    local leader = ai.spawn("soldier.lua")
    local a = ai.spawn("soldier.lua", { leader = leader:id() })
    local b = ai.spawn("soldier.lua", { leader = leader:id(), x = 1 })
    leader.ctx.squad = { a:id(), b:id() }
    a.ctx.enemy_x = 4
    ticks({ a }, 1) -- a aims: its enter sends "contact" to the leader
    assert.are.equal(0, leader.ctx.contacts)
    ticks({ leader }, 1) -- the leader's next tick sees it and sends the orders
    assert.are.equal(1, leader.ctx.contacts)
    assert.are.equal(2, leader.ctx.orders)
    ticks({ a, b }, 1)
    assert.are.equal("alive{movement.advance,orders.listening,weapon.aiming}", a:state())
    assert.are.equal(4, a.ctx.goal)
    assert.are.equal(4, b.ctx.goal)
    ticks({ a, b }, 16)
    assert.are.equal(4, b.ctx.x)
    assert.are.equal("hold", b:state():match("movement%.(%a+)"))
    assert.are.equal(0, #leader:errors() + #a:errors() + #b:errors())
  end)

  it("goes down, leaving every region", function()
    local s = ai.spawn("soldier.lua")
    s:send("killed")
    s:tick(DT)
    assert.are.equal("down", s:state())
  end)
end)
