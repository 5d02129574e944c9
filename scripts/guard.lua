-- The seed HFSM guard: patrol {find_waypoint, walk_to_waypoint} and
-- combat {walk_to_player, attack_player}. Each leaf's enter hook moves the
-- world on, so every tick shows a decision.
local ai = require("luaai")

local function waypoint_found(ctx) return ctx.waypoint == "found" end
local function waypoint_reached(ctx) return ctx.waypoint == "reached" end
local function player_found(ctx) return ctx.player == "found" end
local function player_reached(ctx) return ctx.player == "reached" end
local function player_dead(ctx) return ctx.player == "none" end

local patrol = ai.fsm {
  initial = "find_waypoint",
  transitions = { { to = "combat", when = player_found } },
  states = {
    find_waypoint = {
      enter = function(ctx) ctx.waypoint = "found" end,
      transitions = { { to = "walk_to_waypoint", when = waypoint_found } },
    },
    walk_to_waypoint = {
      enter = function(ctx) ctx.waypoint = "reached" end,
      transitions = { { to = "find_waypoint", when = waypoint_reached } },
    },
  },
}

local combat = ai.fsm {
  initial = "walk_to_player",
  transitions = { { to = "patrol", when = player_dead } },
  states = {
    walk_to_player = {
      enter = function(ctx) ctx.player = "reached" end,
      transitions = { { to = "attack_player", when = player_reached } },
    },
    attack_player = {
      enter = function(ctx) ctx.player = "none" end,
      transitions = { { to = "walk_to_player", when = player_found } },
    },
  },
}

return ai.fsm {
  initial = "patrol",
  context = { waypoint = "none", player = "none" },
  states = { patrol = patrol, combat = combat },
}
