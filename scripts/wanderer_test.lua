-- The seed's "Machinery" FSM trace (emergent crate, state locking).
local ai = require("luaai")

local ticks = setmetatable({}, { __mode = "k" }) -- agent -> ticks done

local function tick(agent)
  agent:tick(0.1)
  ticks[agent] = (ticks[agent] or 0) + 1
end

local function check(agent, state, x, y, direction, turns)
  local at = "after tick " .. (ticks[agent] or 0) .. ": "
  assert.are.equal(state, agent:state(), at .. "state")
  assert.is_true(agent:active(state), at .. "active")
  assert.are.equal(x, agent.ctx.x, at .. "x")
  assert.are.equal(y, agent.ctx.y, at .. "y")
  assert.are.equal(direction, agent.ctx.direction, at .. "direction")
  assert.are.equal(turns, agent.ctx.turns, at .. "turns")
end

describe("wanderer", function()
  it("starts in change_direction, already turned right", function()
    local agent = ai.spawn("wanderer.lua")
    check(agent, "change_direction", 0, 0, "right", 0)
    assert.is_false(agent:active("move"))
    assert.is_false(agent:active("wait"))
    assert.are.equal(0, #agent:errors())
  end)

  it("follows the seed trace tick by tick", function()
    local agent = ai.spawn("wanderer.lua")
    check(agent, "change_direction", 0, 0, "right", 0)
    -- for i in 1..3: move, position.0 == i
    tick(agent)
    check(agent, "move", 1, 0, "right", 1)
    tick(agent) -- move is locked while turns > 0
    check(agent, "move", 2, 0, "right", 0)
    tick(agent)
    check(agent, "wait", 2, 0, "right", 0)
    tick(agent)
    check(agent, "change_direction", 2, 0, "down", 0)
    assert.are.equal(0, #agent:errors())
  end)

  it("keeps going round: down, left, up", function()
    local agent = ai.spawn("wanderer.lua")
    for _ = 1, 4 do tick(agent) end
    check(agent, "change_direction", 2, 0, "down", 0)
    tick(agent)
    check(agent, "move", 2, 1, "down", 1)
    tick(agent)
    check(agent, "move", 2, 2, "down", 0)
    tick(agent)
    check(agent, "wait", 2, 2, "down", 0)
    tick(agent)
    check(agent, "change_direction", 2, 2, "left", 0)
    for _ = 1, 4 do tick(agent) end
    check(agent, "change_direction", 0, 2, "up", 0)
    for _ = 1, 4 do tick(agent) end
    check(agent, "change_direction", 0, 0, "right", 0) -- back home, one lap
    assert.are.equal(0, #agent:errors())
  end)

  it("takes its start from overrides", function()
    local agent = ai.spawn("wanderer.lua", { x = 5, y = -3, direction = "left" })
    check(agent, "change_direction", 5, -3, "up", 0) -- enter ran after the overrides
    tick(agent)
    check(agent, "move", 5, -4, "up", 1)
    tick(agent)
    check(agent, "move", 5, -5, "up", 0)
    assert.are.equal(0, #agent:errors())
  end)

  it("is independent per agent", function()
    local a, b = ai.spawn("wanderer.lua"), ai.spawn("wanderer.lua")
    tick(a)
    tick(a)
    check(a, "move", 2, 0, "right", 0)
    check(b, "change_direction", 0, 0, "right", 0)
    assert.are.equal(0, #a:errors())
    assert.are.equal(0, #b:errors())
  end)
end)
