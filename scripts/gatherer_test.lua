-- The seed's Utility AI trace (seed 004): the hand-made Utility (initial
-- Idle, native scorers in gatherer.lua) and emergent's Reasoner (nothing
-- active until the first decision, Lua function scorers, defined below).
local ai = require("luaai")

local function check(agent, state, hunger, food, trees, wood, opponent, strength, when)
  local at = (when or "") .. ": "
  assert.are.equal(state, agent:state(), at .. "state")
  assert.is_true(agent:active(state), at .. "active")
  local ctx = agent.ctx
  assert.are.equal(hunger, ctx.hunger, at .. "hunger")
  assert.are.equal(food, ctx.distance_to_food, at .. "distance_to_food")
  assert.are.equal(trees, ctx.distance_to_trees, at .. "distance_to_trees")
  assert.are.equal(wood, ctx.wood_needed, at .. "wood_needed")
  assert.are.equal(opponent, ctx.distance_to_opponent, at .. "distance_to_opponent")
  assert.are.equal(strength, ctx.opponent_strength, at .. "opponent_strength")
end

-- The four ticks of the seed, from the world change it makes before the
-- first tick; `first` is the expected state before it (nil: none).
local function seed_trace(agent, first)
  assert.are.equal(first, agent:state())
  local ctx = agent.ctx
  assert.are.equal(0.0, ctx.hunger)
  assert.are.equal(1.0, ctx.distance_to_food)
  assert.are.equal(1.0, ctx.distance_to_trees)
  assert.are.equal(0, ctx.wood_needed)
  assert.are.equal(1.0, ctx.distance_to_opponent)
  assert.are.equal(0.0, ctx.opponent_strength)

  ctx.hunger = 0.5
  ctx.distance_to_food = 0.9
  ctx.distance_to_trees = 0.5
  ctx.opponent_strength = 0.2

  agent:tick(0.1) -- food 0.05, wood 0, attack 0.2, idle 0.001
  check(agent, "attack_opponent", 0.5, 0.9, 0.5, 0, 1.0, 0.0, "tick 1")
  agent:tick(0.1) -- food 0.05, wood 0, attack 0, idle 0.001
  check(agent, "gather_food", 0.0, 1.0, 0.5, 0, 1.0, 0.0, "tick 2")

  ctx.wood_needed = 1

  agent:tick(0.1) -- food 0, wood 0.5, attack 0, idle 0.001
  check(agent, "gather_wood", 0.0, 1.0, 1.0, 0, 1.0, 0.0, "tick 3")
  agent:tick(0.1) -- only idle scores
  check(agent, "idle", 0.0, 1.0, 1.0, 0, 1.0, 0.0, "tick 4")
end

-- emergent's Reasoner version: Lua function scorers, no initial state.
local reasoner = ai.utility {
  context = {
    hunger = 0.0, distance_to_food = 1.0, distance_to_trees = 1.0,
    wood_needed = 0, distance_to_opponent = 1.0, opponent_strength = 0.0,
  },
  states = {
    idle = { score = function() return 0.001 end },
    gather_food = {
      score = function(ctx) return ctx.hunger * (1 - ctx.distance_to_food) end,
      enter = function(ctx)
        ctx.hunger = 0.0
        ctx.distance_to_food = 1.0
      end,
    },
    gather_wood = {
      score = function(ctx)
        local wood_needed = ctx.wood_needed > 0 and 1.0 or 0.0
        return wood_needed * (1 - ctx.distance_to_trees)
      end,
      enter = function(ctx)
        ctx.wood_needed = math.max(ctx.wood_needed, 1) - 1
        ctx.distance_to_trees = 1.0
      end,
    },
    attack_opponent = {
      score = function(ctx) return (1 - ctx.distance_to_opponent) + ctx.opponent_strength end,
      enter = function(ctx)
        ctx.distance_to_opponent = 1.0
        ctx.opponent_strength = 0.0
      end,
    },
  },
}

describe("gatherer", function()
  it("starts idle with the seed's EnemyData", function()
    local agent = ai.spawn("gatherer.lua")
    check(agent, "idle", 0.0, 1.0, 1.0, 0, 1.0, 0.0)
    assert.is_false(agent:active("gather_food"))
    assert.are.equal(0, #agent:errors())
  end)

  it("follows the seed's four-tick trace (native scorers)", function()
    local agent = ai.spawn("gatherer.lua")
    seed_trace(agent, "idle")
    assert.are.equal(0, #agent:errors())
  end)

  it("stays idle while nothing scores", function()
    local agent = ai.spawn("gatherer.lua")
    for _ = 1, 5 do
      agent:tick(0.1)
      check(agent, "idle", 0.0, 1.0, 1.0, 0, 1.0, 0.0)
    end
    assert.are.equal(0, #agent:errors())
  end)

  it("gathers wood once per unit needed", function()
    local agent = ai.spawn("gatherer.lua", { wood_needed = 2, distance_to_trees = 0.25 })
    agent:tick(0.1)
    check(agent, "gather_wood", 0.0, 1.0, 1.0, 1, 1.0, 0.0)
    agent:tick(0.1) -- still needed, but the trees are now far: 1 * (1 - 1) = 0
    check(agent, "idle", 0.0, 1.0, 1.0, 1, 1.0, 0.0)
    agent.ctx.distance_to_trees = 0.5
    agent:tick(0.1)
    check(agent, "gather_wood", 0.0, 1.0, 1.0, 0, 1.0, 0.0)
    assert.are.equal(0, #agent:errors())
  end)

  it("keeps the active state while it scores highest", function()
    local agent = ai.spawn("gatherer.lua", { opponent_strength = 0.5 })
    agent:tick(0.1)
    check(agent, "attack_opponent", 0.0, 1.0, 1.0, 0, 1.0, 0.0)
    agent.ctx.opponent_strength = 0.4 -- enter does not run again: same state
    agent:tick(0.1)
    check(agent, "attack_opponent", 0.0, 1.0, 1.0, 0, 1.0, 0.4)
    assert.are.equal(0, #agent:errors())
  end)
end)

describe("gatherer as emergent's Reasoner (Lua scorers, no initial)", function()
  it("has nothing active before the first tick", function()
    local agent = ai.spawn(reasoner)
    assert.is_nil(agent:state())
    for _, s in ipairs({ "idle", "gather_food", "gather_wood", "attack_opponent" }) do
      assert.is_false(agent:active(s))
    end
    assert.are.equal(0, #agent:errors())
  end)

  it("follows the same four-tick trace", function()
    local agent = ai.spawn(reasoner)
    seed_trace(agent, nil)
    assert.are.equal(0, #agent:errors())
  end)

  it("gives the same trace as the native scorers, tick for tick", function()
    local native, lua_fns = ai.spawn("gatherer.lua"), ai.spawn(reasoner)
    local script = {
      { hunger = 0.8, distance_to_food = 0.2 },
      { opponent_strength = 0.9, distance_to_opponent = 0.5 },
      { wood_needed = 3, distance_to_trees = 0.1 },
      {},
      { hunger = 0.3, distance_to_food = 0.3, opponent_strength = 0.1 },
      {},
    }
    for i, change in ipairs(script) do
      for k, v in pairs(change) do
        native.ctx[k] = v
        lua_fns.ctx[k] = v
      end
      native:tick(0.1)
      lua_fns:tick(0.1)
      assert.are.equal(native:state(), lua_fns:state(), "tick " .. i)
      assert.are.same(native.ctx, lua_fns.ctx, "tick " .. i)
    end
    assert.are.equal(0, #native:errors())
    assert.are.equal(0, #lua_fns:errors())
  end)
end)
