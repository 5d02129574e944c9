-- The seed HFSM trace (seed 001): patrol {find_waypoint, walk_to_waypoint}
-- and combat {walk_to_player, attack_player}.
local ai = require("luaai")

local function check(agent, root, path, waypoint, player, when)
  local at = (when or "") .. ": "
  assert.is_true(agent:active(root), at .. "active " .. root)
  assert.is_false(agent:active(root == "patrol" and "combat" or "patrol"), at .. "other root")
  assert.are.equal(path, agent:state(), at .. "path")
  assert.is_true(agent:active(path), at .. "active path")
  assert.are.equal(waypoint, agent.ctx.waypoint, at .. "waypoint")
  assert.are.equal(player, agent.ctx.player, at .. "player")
end

describe("guard", function()
  it("enters patrol.find_waypoint at spawn", function()
    local agent = ai.spawn("guard.lua")
    check(agent, "patrol", "patrol.find_waypoint", "found", "none")
    assert.is_true(agent:active("find_waypoint"))
    assert.are.equal(0, #agent:errors())
  end)

  it("follows the seed's six-tick trace", function()
    local agent = ai.spawn("guard.lua")
    agent.ctx.waypoint = "found" -- as the seed does before the first tick

    agent:tick(0.1)
    check(agent, "patrol", "patrol.walk_to_waypoint", "reached", "none", "tick 1")
    agent:tick(0.1)
    check(agent, "patrol", "patrol.find_waypoint", "found", "none", "tick 2")

    agent.ctx.player = "found"

    agent:tick(0.1)
    check(agent, "combat", "combat.walk_to_player", "found", "reached", "tick 3")
    agent:tick(0.1)
    check(agent, "combat", "combat.attack_player", "found", "none", "tick 4")
    agent:tick(0.1)
    check(agent, "patrol", "patrol.find_waypoint", "found", "none", "tick 5")
    agent:tick(0.1)
    check(agent, "patrol", "patrol.walk_to_waypoint", "reached", "none", "tick 6")

    assert.are.equal(0, #agent:errors())
  end)

  it("patrols forever while no player is found", function()
    local agent = ai.spawn("guard.lua")
    for i = 1, 10 do
      agent:tick(0.1)
      if i % 2 == 1 then
        check(agent, "patrol", "patrol.walk_to_waypoint", "reached", "none")
      else
        check(agent, "patrol", "patrol.find_waypoint", "found", "none")
      end
    end
    assert.are.equal(0, #agent:errors())
  end)

  it("re-enters combat at its initial state", function()
    local agent = ai.spawn("guard.lua", { player = "found" })
    agent:tick(0.1)
    check(agent, "combat", "combat.walk_to_player", "found", "reached")
    agent:tick(0.1)
    check(agent, "combat", "combat.attack_player", "found", "none")
    agent:tick(0.1)
    check(agent, "patrol", "patrol.find_waypoint", "found", "none")
    agent.ctx.player = "found"
    agent:tick(0.1)
    check(agent, "combat", "combat.walk_to_player", "found", "reached")
    assert.are.equal(0, #agent:errors())
  end)
end)
