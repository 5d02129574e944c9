-- The seed Utility AI gatherer: four states scored from the context every
-- tick; the best score wins. Entering a state does its job at once (as the
-- seed's activated()), which lowers its own score, so the world's changes
-- alone drive the behaviour: no transitions anywhere.
local ai = require("luaai")

return ai.utility {
  initial = "idle",
  context = {
    hunger = 0.0,
    distance_to_food = 1.0,
    distance_to_trees = 1.0,
    wood_needed = 0,
    distance_to_opponent = 1.0,
    opponent_strength = 0.0,
  },
  states = {
    idle = { score = 0.001 },

    -- hunger * (1 - distance_to_food)
    gather_food = {
      score = ai.product(ai.field("hunger"), ai.inverse(ai.field("distance_to_food"))),
      enter = function(ctx)
        ctx.hunger = 0.0
        ctx.distance_to_food = 1.0
      end,
    },

    -- (wood_needed > 0 and 1 or 0) * (1 - distance_to_trees)
    gather_wood = {
      score = ai.product(ai.cond(ai.gt("wood_needed", 0)), ai.inverse(ai.field("distance_to_trees"))),
      enter = function(ctx)
        ctx.wood_needed = math.max(ctx.wood_needed, 1) - 1
        ctx.distance_to_trees = 1.0
      end,
    },

    -- (1 - distance_to_opponent) + opponent_strength
    attack_opponent = {
      score = ai.sum(ai.inverse(ai.field("distance_to_opponent")), ai.field("opponent_strength")),
      enter = function(ctx)
        ctx.distance_to_opponent = 1.0
        ctx.opponent_strength = 0.0
      end,
    },
  },
}
