-- Seed 002's pushdown guard: push/pop on a `noise` event, pause/resume hooks,
-- frozen timers while paused, timed updates, deferred ai.pop/ai.push.
local ai = require("luaai")

local DT = 0.25

local function spawn(overrides)
  overrides = overrides or {}
  overrides.log = overrides.log or {}
  return ai.spawn("sentry.lua", overrides)
end

local function ticks(agent, n)
  for _ = 1, n do agent:tick(DT) end
end

-- The log entries added since mark.
local function since(agent, mark)
  local out = {}
  for i = mark + 1, #agent.ctx.log do out[#out + 1] = agent.ctx.log[i] end
  return out
end

describe("sentry", function()
  it("patrols with a timed update once a second", function()
    local agent = spawn()
    assert.are.equal("patrolling", agent:state())
    assert.are.same({ "patrolling.enter" }, agent.ctx.log)
    ticks(agent, 3) -- 0.75 s: not yet
    assert.are.equal(0, agent.ctx.patrol_updates)
    assert.are.equal(0, agent.ctx.x)
    agent:tick(DT) -- 1.0 s: update with the accumulated dt (walk_speed 1 * 1 s)
    assert.are.equal(1, agent.ctx.patrol_updates)
    assert.are.equal(1, agent.ctx.x)
    assert.are.equal(1.0, agent.ctx.patrol_time)
    ticks(agent, 8)
    assert.are.equal(3, agent.ctx.patrol_updates)
    assert.are.equal(3, agent.ctx.x)
    ticks(agent, 4) -- turns at the end of the corridor
    assert.are.equal(2, agent.ctx.x)
    assert.are.equal(-1, agent.ctx.dir)
    assert.are.equal(4.0, agent.ctx.patrol_time)
    assert.are.equal(0, agent.ctx.pauses)
    assert.are.equal(0, #agent:errors())
  end)

  it("goes to see a noise and comes back (push, timed walk, ai.pop)", function()
    local agent = spawn()
    ticks(agent, 4)
    assert.are.equal(1, agent.ctx.x)
    local mark = #agent.ctx.log

    agent:send("noise", 3)
    assert.are.equal("patrolling", agent:state()) -- events wait for the next tick

    agent:tick(DT) -- tick 5: push
    assert.are.equal("go_see_disturbance", agent:state())
    assert.is_true(agent:active("patrolling")) -- paused on the stack
    assert.is_true(agent:active("go_see_disturbance"))
    assert.are.equal(3, agent.ctx.disturbance)
    assert.are.equal(1, agent.ctx.pauses)
    assert.are.equal(0, agent.ctx.resumes)
    assert.are.same({ "patrolling.pause", "go_see_disturbance.enter" }, since(agent, mark))
    assert.are.equal(1, agent.ctx.x) -- entered this tick: every = 0.5 not reached

    -- every = 0.5: one update each second tick, with dt = 0.5 (run_speed 2)
    mark = #agent.ctx.log
    agent:tick(DT) -- tick 6
    assert.are.equal(1, agent.ctx.x)
    agent:tick(DT) -- tick 7
    assert.are.equal(2, agent.ctx.x)
    agent:tick(DT) -- tick 8
    assert.are.equal(2, agent.ctx.x)
    agent:tick(DT) -- tick 9: arrives, asks ai.pop()
    assert.are.equal(3, agent.ctx.x)
    assert.are.same({ "go_see_disturbance.update", "go_see_disturbance.update" }, since(agent, mark))
    -- deferred: never changed while its own callback runs
    assert.are.equal("go_see_disturbance", agent:state())
    assert.are.equal(0, agent.ctx.resumes)
    assert.are.equal(1, agent.ctx.patrol_updates) -- patrolling is paused

    mark = #agent.ctx.log
    agent:tick(DT) -- tick 10: the pop is applied first thing
    assert.are.equal("patrolling", agent:state())
    assert.is_false(agent:active("go_see_disturbance"))
    assert.are.same({ "go_see_disturbance.exit", "patrolling.resume" }, since(agent, mark))
    assert.are.equal(1, agent.ctx.pauses)
    assert.are.equal(1, agent.ctx.resumes)
    assert.are.equal(false, agent.ctx.disturbance)
    assert.are.equal(3, agent.ctx.x)
    assert.are.equal(1, agent.ctx.patrol_updates)

    -- patrolling's clock and `every` accumulator were frozen from tick 6 to
    -- tick 10: it had 1.25 s (0.25 into its period) when covered.
    ticks(agent, 2) -- ticks 11, 12: 0.75 into the period
    assert.are.equal(1, agent.ctx.patrol_updates)
    mark = #agent.ctx.log
    agent:tick(DT) -- tick 13: clock 3.25 s, patrolling active 2.0 s
    assert.are.same({ "patrolling.update" }, since(agent, mark))
    assert.are.equal(2, agent.ctx.patrol_updates)
    assert.are.equal(2.0, agent.ctx.patrol_time)
    assert.are.equal(2, agent.ctx.x) -- one second of walking back from the end
    assert.are.equal(-1, agent.ctx.dir)
    assert.are.equal(0, #agent:errors())
  end)

  it("records the whole hook order", function()
    local agent = spawn()
    ticks(agent, 4)
    agent:send("noise", 3)
    ticks(agent, 9)
    assert.are.same({
      "patrolling.enter",
      "patrolling.update",
      "patrolling.pause",
      "go_see_disturbance.enter",
      "go_see_disturbance.update",
      "go_see_disturbance.update",
      "go_see_disturbance.exit",
      "patrolling.resume",
      "patrolling.update",
    }, agent.ctx.log)
    assert.are.equal(0, #agent:errors())
  end)

  it("gives up after 2 seconds (pop after = 2)", function()
    local agent = spawn()
    ticks(agent, 4)
    agent:send("noise", 6) -- 5 cells away: at the edge of hearing
    agent:tick(DT) -- tick 5: push
    assert.are.equal("go_see_disturbance", agent:state())
    ticks(agent, 7) -- ticks 6..12: 1.75 s searching, updates at 7, 9, 11
    assert.are.equal("go_see_disturbance", agent:state())
    assert.are.equal(4, agent.ctx.x)
    local mark = #agent.ctx.log
    agent:tick(DT) -- tick 13: 2.0 s: the pop fires in the decide step
    assert.are.equal("patrolling", agent:state())
    assert.are.same({ "go_see_disturbance.exit", "patrolling.resume" }, since(agent, mark))
    assert.are.equal(4, agent.ctx.x) -- no walk update: it was popped before the update step
    assert.are.equal(false, agent.ctx.disturbance)
    assert.are.equal(1, agent.ctx.resumes)
    assert.are.equal(0, #agent:errors())
  end)

  it("ignores noises it cannot hear, and noises while investigating", function()
    local agent = spawn()
    ticks(agent, 4)
    agent:send("noise", 7) -- 6 cells away
    agent:send("noise", "a string is no position")
    agent:tick(DT)
    assert.are.equal("patrolling", agent:state())
    agent:tick(DT) -- the events were dropped after that decide phase
    assert.are.equal("patrolling", agent:state())
    assert.are.equal(0, agent.ctx.pauses)

    agent:send("noise", 2)
    agent:tick(DT)
    assert.are.equal("go_see_disturbance", agent:state())
    agent:send("noise", 0)
    agent:tick(DT)
    assert.are.equal(2, agent.ctx.disturbance)
    assert.are.equal(1, agent.ctx.pauses)
    assert.are.equal(0, #agent:errors())
  end)

  it("hears the first audible noise of several", function()
    local agent = spawn()
    agent:send("noise", 9)
    agent:send("noise", -2)
    agent:send("noise", 4)
    agent:tick(DT)
    assert.are.equal("go_see_disturbance", agent:state())
    assert.are.equal(-2, agent.ctx.disturbance)
    assert.are.equal(0, #agent:errors())
  end)

  it("runs without a log", function()
    local agent = ai.spawn("sentry.lua")
    assert.are.equal(false, agent.ctx.log)
    agent:send("noise", 1)
    ticks(agent, 8)
    assert.are.equal("patrolling", agent:state())
    assert.are.equal(1, agent.ctx.resumes)
    assert.are.equal(0, #agent:errors())
  end)
end)

describe("pushdown rules (seed 002)", function()
  -- A minimal fsm whose hooks ask for changes; they apply at the next tick.
  local def = ai.fsm {
    initial = "a",
    context = { log = {}, go = false },
    states = {
      a = {
        update = function(ctx)
          ctx.log[#ctx.log + 1] = "a.update " .. tostring(ai.state())
          if ctx.go then ai.push("b") end
        end,
        pause = function(ctx) ctx.log[#ctx.log + 1] = "a.pause" end,
        resume = function(ctx) ctx.log[#ctx.log + 1] = "a.resume" end,
      },
      b = {
        enter = function(ctx) ctx.log[#ctx.log + 1] = "b.enter" end,
        update = function(ctx)
          ctx.log[#ctx.log + 1] = "b.update " .. tostring(ai.state())
          ai.pop()
        end,
        exit = function(ctx) ctx.log[#ctx.log + 1] = "b.exit" end,
      },
    },
  }

  it("applies ai.push and ai.pop at the start of the next tick", function()
    local agent = ai.spawn(def, { log = {}, go = true })
    agent:tick(DT) -- a asks for b: still a, the request waits
    assert.are.equal("a", agent:state())
    assert.are.same({ "a.update a" }, agent.ctx.log)
    agent.ctx.go = false
    agent:tick(DT) -- push applied, then b updates (entered this tick) and asks to pop
    assert.are.equal("b", agent:state())
    assert.are.same({ "a.update a", "a.pause", "b.enter", "b.update b" }, agent.ctx.log)
    agent:tick(DT) -- pop applied, then a updates again
    assert.are.equal("a", agent:state())
    assert.are.same({
      "a.update a", "a.pause", "b.enter", "b.update b", "b.exit", "a.resume", "a.update a",
    }, agent.ctx.log)
    assert.are.equal(0, #agent:errors())
  end)

  it("freezes a paused state's after timer", function()
    local timed = ai.fsm {
      initial = "a",
      states = {
        a = { transitions = { { push = "b", on = "go" }, { to = "c", after = 1 } } },
        b = { transitions = { { pop = true, on = "back" } } },
        c = {},
      },
    }
    local agent = ai.spawn(timed)
    ticks(agent, 2) -- a: 0.5 s
    agent:send("go")
    agent:tick(DT) -- a: 0.75 s, then covered by b
    assert.are.equal("b", agent:state())
    ticks(agent, 3) -- 0.75 s more, a frozen
    agent:send("back")
    agent:tick(DT) -- b pops; a still at 0.75 s
    assert.are.equal("a", agent:state())
    agent:tick(DT) -- a: 1.0 s
    assert.are.equal("c", agent:state())
    assert.are.equal(0, #agent:errors())
  end)

  it("refuses ai.pop outside a tick", function()
    assert.has_error(function() ai.pop() end, "pop")
  end)
end)
