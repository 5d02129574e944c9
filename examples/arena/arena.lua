-- The arena critter: a utility root choosing among four activities, three
-- of them hierarchical machines of their own. ctx.me is the critter's Go
-- struct, bound by the game: its exported fields are its senses (refreshed
-- by the world before every tick) and its methods record what it wants to
-- do, which the world applies after the tick.
local ai = require("luaai")

-- A condition: the thing is within reach (a method of the Go critter).
local function near(what)
  return function(ctx) return ctx.me:Near(what) end
end

local function away_from(what)
  return function(ctx) return not ctx.me:Near(what) end
end

local function seek(what)
  return function(ctx) ctx.me:Seek(what) end
end

return ai.utility {
  initial = "wander",
  momentum = 0.05, -- keep doing what it does unless something is clearly better
  context = {
    me = false,       -- the Go *Critter, given at spawn
    aggression = 0.5, -- set per critter by the game
  },
  states = {
    wander = {
      score = 0.1,
      update = function(ctx) ctx.me:Wander(ai.random(4)) end,
    },

    -- hunger * (1 - distance to the nearest food)
    forage = ai.fsm {
      score = ai.product(ai.field("me.Hunger"), ai.inverse(ai.field("me.FoodDist"))),
      initial = "seek",
      states = {
        seek = { update = seek("food"), transitions = { { to = "eat", when = near("food") } } },
        eat = {
          enter = function(ctx) ctx.me:Eat() end,
          transitions = { { to = "seek", after = 0.3 } }, -- chewing
        },
      },
    },

    -- wanted while the stock is low and a tree is near
    lumber = ai.fsm {
      score = ai.product(ai.cond(ai.lt("me.Wood", 5)), ai.inverse(ai.field("me.TreeDist")), 0.6),
      initial = "seek",
      states = {
        seek = { update = seek("tree"), transitions = { { to = "chop", when = near("tree") } } },
        chop = {
          every = 0.2, -- one stroke every 0.2 s
          update = function(ctx) ctx.me:Chop() end,
          transitions = { { to = "seek", when = away_from("tree") } },
        },
      },
    },

    -- aggressive, healthy critters close to a rival pick a fight
    fight = ai.fsm {
      score = ai.product(
        ai.field("aggression"),
        ai.inverse(ai.field("me.RivalDist")),
        ai.normalize(ai.field("me.HP"), 20, 100)
      ),
      initial = "approach",
      states = {
        approach = { update = seek("rival"), transitions = { { to = "strike", when = near("rival") } } },
        strike = {
          every = 0.2,
          update = function(ctx) ctx.me:Strike() end,
          transitions = {
            { push = "recover", when = ai.lt("me.HP", 30) }, -- hurt: step back, then carry on
            { to = "approach", when = away_from("rival") },
          },
        },
        recover = {
          update = function(ctx) ctx.me:Flee() end,
          transitions = { { pop = true, after = 1 } },
        },
      },
    },
  },
}
