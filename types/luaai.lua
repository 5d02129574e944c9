---@meta luaai
-- LuaLS (lua-language-server) definitions for require("luaai"): completion,
-- hover docs and type warnings in editors. Not loaded at run time: the engine
-- provides the module. scripts/.luarc.json points workspace.library here.
-- A Go test (luabind/meta_test.go) fails when a function of the module is
-- missing from this file or this file names one the module does not have.

---The context table of one agent: the shared memory between the game and
---the behaviour. Defaults come from the machines' `context` fields; the game
---adds its own keys (and bound Go values, called as `ctx.body:MoveTo(x, y)`).
---@alias luaai.Context table<string, any>

---A state hook: `enter`, `exit`, `pause`, `resume`, `on_reload`. `enter`
---gets the payload of the event whose transition entered the state (or of
---ai.push/ai.replace; nil otherwise), `resume` that of ai.pop or of the
---event of a `pop` transition.
---@alias luaai.Hook fun(ctx: luaai.Context, payload?: any)

---The `update` hook: `dt` is the tick's dt, or with `every` the time
---accumulated since the last update.
---@alias luaai.UpdateHook fun(ctx: luaai.Context, dt: number)

---A transition condition, `lock`, or an argument of ai.all/any/non:
---a boolean, a Lua function, or a native condition (ai.is, ai.gt, ...).
---In `when`, `payload` is the event's payload (nil without `on`).
---@alias luaai.Condition boolean|luaai.Cond|fun(ctx: luaai.Context, payload: any): boolean?

---A utility score, or an argument of the native scorers: a number, a Lua
---function, a native scorer (ai.field, ai.product, ...) or a native
---condition (scored 1 or 0).
---@alias luaai.Score number|luaai.Scorer|luaai.Cond|fun(ctx: luaai.Context): number

---A native condition, evaluated in Go without calling Lua (unless a Lua
---function is nested in it). Build one with ai.is, ai.eq, ai.ne, ai.lt,
---ai.le, ai.gt, ai.ge, ai.all, ai.any, ai.non. tostring() describes it.
---@class luaai.Cond: userdata

---A native scorer, evaluated in Go. Build one with ai.const, ai.field,
---ai.cond, ai.inverse, ai.product, ai.compensated, ai.sum, ai.min, ai.max,
---ai.weight, ai.normalize, ai.curve. tostring() describes it.
---@class luaai.Scorer: userdata

---A machine built by ai.fsm or ai.utility: a composite state, or the root
---a behaviour script returns.
---@class luaai.Machine: userdata

---One entry of a state's `transitions`: exactly one of `to`, `push`, `pop`;
---or only `run` (with `on`, `when`, `after`): an internal transition, which
---handles its event and changes no state.
---@class luaai.Transition
---@field to? string replace: exit the current state, enter this sibling
---@field push? string pause the current state, enter this sibling on top of it
---@field pop? true exit the current (top) state, resume the one below
---@field when? luaai.Condition fires only when true; missing = always
---@field on? string fires only while this event is pending; `when` gets its payload
---@field after? number fires only once the state has been active this many seconds (game time)
---@field run? fun(ctx: luaai.Context, payload: any) the action: runs when it fires, after the exits and before the enters (also on a transition to the active state); may call ai.push/pop/replace

---A state: a plain table (a leaf). Every field is optional.
---@class luaai.State
---@field enter? luaai.Hook the state becomes active (also the initial states at spawn)
---@field exit? luaai.Hook the state stops being active (not when only paused)
---@field update? luaai.UpdateHook each tick while active and not paused
---@field pause? luaai.Hook a state is pushed over it
---@field resume? luaai.Hook the state above it is popped
---@field lock? luaai.Condition while true, this state's own transitions are not tried
---@field every? number seconds: update runs at most once per period (default 0: every tick)
---@field transitions? luaai.Transition[] fsm children: tried in order, the first that fires wins
---@field score? luaai.Score utility children (required there): higher wins
---@field steps? luaai.Step[] run in order in the update phase, after `update`: each update resumes at the item that has not completed
---@field steps_loop? boolean after the last step, start again from the first
---@field final? boolean the state is meant to be an end: nothing leads out of it on purpose (luaai explore does not call it a dead end)

---An item of a state's `steps`: a function (runs once and completes, or
---again next update while it returns "running"), ai.wait(seconds) or
---ai.wait_until(cond).
---@alias luaai.Step luaai.Node|fun(ctx: luaai.Context, dt: number): ("running"|any)

---What a behaviour-tree leaf returns: true counts as "success", false and
---nil as "failure".
---@alias luaai.Status "success"|"failure"|"running"|boolean|nil

---A behaviour-tree node (ai.sequence, ai.action, ai.wait, ...), or a step
---item (ai.wait, ai.wait_until). tostring() says where it was built.
---@class luaai.Node: userdata

---A child of a composite or decorator: a node, or a function (short for
---ai.action(fn)).
---@alias luaai.Child luaai.Node|fun(ctx: luaai.Context, dt: number): luaai.Status

---The optional last argument of a leaf or decorator.
---@class luaai.NodeOptions
---@field name? string the node's name in the running path (default: kind#index; none of . [ ] { } ,)

---The table of a composite: its children in the list part.
---@class luaai.CompositeDef
---@field name? string the node's name in the running path (default: kind#index)
---@field [integer] luaai.Child

---The table of ai.parallel.
---@class luaai.ParallelDef: luaai.CompositeDef
---@field succeed? "all"|"one" default "all"
---@field fail? "one"|"all" default "one"

---The table given to ai.tree: a state's fields plus the tree's root.
---@class luaai.TreeDef: luaai.State
---@field root luaai.Child the tree, ticked in the state's update phase
---@field context? table per-agent defaults

---The table given to ai.fsm or ai.utility: a state's fields plus the
---machine's own.
---@class luaai.MachineDef: luaai.State
---@field initial? string the child entered first (required for ai.fsm)
---@field states table<string, luaai.State|luaai.Machine> the children, by name (Lua identifiers)
---@field context? table per-agent defaults (deep-copied; the outer machine wins on a clash)
---@field decide_every? number seconds between decide steps (default 0: every tick)
---@field history? boolean re-entering starts at the child that was on top when it was left
---@field momentum? number ai.utility: bonus added to the active child's score
---@field select? "best"|{ random_top: integer } ai.utility: the best, or a weighted draw among the N best
---@field on_reload? luaai.Hook root only: runs once per agent after a hot reload
---@field renamed? table<string, string> root only: old state path -> new path, kept across a reload

---A response curve for ai.curve (the Infinite Axis Utility System's).
---Input and output are clamped to 0..1; NaN gives 0.
---@class luaai.Curve
---@field kind "linear"|"polynomial"|"logistic"|"logit"|"normal"|"sine"|"step"
---@field m? number default 1
---@field k? number default 1
---@field b? number default 0
---@field c? number default 0

---One callback error, as agent:errors() returns it.
---@class luaai.CallbackError
---@field message string "file:line: message"
---@field state string the state path, "" for the root
---@field callback string "enter", "update", "when", "score", "transition", ...

---An agent spawned with ai.spawn (for tests and tools): the script that
---spawned it ticks it.
---@class luaai.Agent
---@field ctx luaai.Context the live context table
local Agent = {}

---Runs one tick: clock, requests, decide, update.
---@param dt? number seconds (default 0.1)
function Agent:tick(dt) end

---The active path, e.g. "combat.attack_player"; nil while nothing is active.
---@return string?
function Agent:state() end

---Whether a state is on the active path or paused on a stack. A bare name
---matches at any depth, a dotted path from the root exactly.
---@param name_or_path string
---@return boolean
function Agent:active(name_or_path) end

---Queues an event for the agent's next decide phase.
---@param event string
---@param payload? any
function Agent:send(event, payload) end

---The agent's id, what ai.send_to takes (nil for an agent ai.spawn queued
---during a tick, until the end of that tick).
---@return integer?
function Agent:id() end

---The callback errors reported since the last call, oldest first.
---@return luaai.CallbackError[]
function Agent:errors() end

---@class luaai
local luaai = {}

-- Machines ---------------------------------------------------------------

---A finite state machine (with a pushdown stack): `initial` is required.
---@param def luaai.MachineDef
---@return luaai.Machine
function luaai.fsm(def) end

---A utility machine: every child needs a `score`; the best wins each decide step.
---@param def luaai.MachineDef
---@return luaai.Machine
function luaai.utility(def) end

---Parallel regions: every child (a machine: ai.fsm, ai.utility, ai.regions
---or ai.tree) is active at once; each decides and updates in name order,
---and each is offered every pending event. No `initial`, no `history`.
---@param def luaai.MachineDef
---@return luaai.Machine
function luaai.regions(def) end

---A state whose body is a behaviour tree, ticked in its update phase after
---its `update` hook and its steps. When the root finishes, the agent gets
---the event "tree:success" or "tree:failure" (payload: the state's path).
---@param def luaai.TreeDef
---@return luaai.Machine
function luaai.tree(def) end

-- Behaviour-tree nodes and steps ----------------------------------------

---Ticks its children in order while they succeed; remembers the running one.
---@param def luaai.CompositeDef
---@return luaai.Node
function luaai.sequence(def) end

---A sequence that starts again from its first child at every tick.
---@param def luaai.CompositeDef
---@return luaai.Node
function luaai.reactive_sequence(def) end

---A fallback: ticks its children in order while they fail; remembers the running one.
---@param def luaai.CompositeDef
---@return luaai.Node
function luaai.selector(def) end

---A selector that starts again from its first child at every tick.
---@param def luaai.CompositeDef
---@return luaai.Node
function luaai.reactive_selector(def) end

---Ticks every unfinished child each tick; after each, the success rule then
---the failure rule is checked.
---@param def luaai.ParallelDef
---@return luaai.Node
function luaai.parallel(def) end

---Swaps success and failure.
---@param child luaai.Child
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.invert(child, opts) end

---Runs its child again after each success, at most one run per tick; a
---failure ends it with failure.
---@param child luaai.Child
---@param count? integer runs to finish with success (nil: forever)
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.loop(child, count, opts) end

---Runs its child again, at the next tick, each time it fails, up to
---`count` more times (`count` + 1 runs in all); a success ends it with
---success, the last failure with failure.
---@param child luaai.Child
---@param count? integer retries (nil: until it succeeds)
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.retry(child, count, opts) end

---After its child finishes, fails without ticking it until `seconds` of
---the tree state's time have passed.
---@param child luaai.Child
---@param seconds number
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.cooldown(child, seconds, opts) end

---Fails (halting its child) once the child has been running `seconds`.
---@param child luaai.Child
---@param seconds number
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.timeout(child, seconds, opts) end

---Returns `status` whenever its child finishes.
---@param child luaai.Child
---@param status "success"|"failure"|"running"
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.force(child, status, opts) end

---A leaf running fn(ctx, dt), which returns a status.
---@param fn fun(ctx: luaai.Context, dt: number): luaai.Status
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.action(fn, opts) end

---A leaf: success while the condition holds, else failure.
---@param cond luaai.Condition
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.check(cond, opts) end

---A leaf or step: running until `seconds` of game time have passed since
---it was reached (that tick counts as 0).
---@param seconds number
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.wait(seconds, opts) end

---A step (or leaf): completes on the first update where the condition holds.
---@param cond luaai.Condition
---@param opts? luaai.NodeOptions
---@return luaai.Node
function luaai.wait_until(cond, opts) end

-- Inside callbacks (they act on the agent whose callback is running) ------

---Requests a push on the nearest fsm holding the running state, applied at
---the start of the next tick. Hooks only (an error in when, lock, score).
---@param name string a sibling state of that machine
---@param payload? any what the pushed state's enter receives
function luaai.push(name, payload) end

---Requests a pop on the nearest fsm holding the running state, applied at
---the start of the next tick. Hooks only.
---@param payload? any what the resumed state's resume receives
function luaai.pop(payload) end

---Requests a replace (like a `to` transition) on the nearest fsm holding the
---running state, applied at the start of the next tick. Hooks only.
---@param name string
---@param payload? any what the entered state's enter receives
function luaai.replace(name, payload) end

---Queues an event for this agent's next decide phase; ai.sender() is then
---its own id. Counts against the host's MaxMessagesPerTick (default 1,024
---a tick, with ai.send_to): past it, an error.
---@param event string
---@param payload? any
function luaai.send(event, payload) end

---The running agent's id (its spawn number, from 1; Go's Agent.ID).
---@return integer
function luaai.id() end

---Queues an event for another agent, seen in its first decide phase after
---the current tick, after its own events. Deliveries into one agent are
---ordered by sender id, then send order, whatever the worker count. The
---payload must be plain data (nil, booleans, numbers, strings and tables of
---those, without metatables or cycles) and is copied; anything else is an
---error, checked before the id is looked up. The id must be an integer
---number (a string such as "2", nil, NaN, 1.5 are errors naming the type);
---an agent can message itself, from its spawn-time enter too. The host's
---message policy may refuse it (false, "refused": nothing is delivered);
---past MaxMessagesPerTick messages a tick (default 1,024, with ai.send) it
---is an error in the sender.
---@param id integer
---@param event string
---@param payload? any
---@return boolean queued
---@return "no agent"|"refused"|nil why false: no live agent with that id, or the host's policy refused it
function luaai.send_to(id, event, payload) end

---Who sent the event being handled: in the when and run of the transitions
---it is offered to, and in the enter or resume of the state it leads to,
---the id of the agent that sent it (ai.send_to, or ai.send: its own id);
---nil for an event from the game (Go's Agent.Send, --input, the console,
---the inspector) and in every other callback. The engine sets it; no
---payload can change it.
---@return integer?
function luaai.sender() end

---The ids of the live agents of a kind, in id order, as a list: the kind
---the game gave the agent (Go's SpawnOptions.Kind), by default its script's
---name without folder and .lua ("mods/villager.lua": "villager"). A name
---ending in ".lua" finds the agents of that script ("villager.lua" finds
---"mods/villager.lua"), whatever kind they were given; no argument lists
---every agent. The list does not change during a tick (the game spawns and
---removes agents between ticks), so every agent sees the same one whatever
---the workers. Agents ai.spawn made outside a tick (in a test file) are
---listed while a script holds them.
---@param kind_or_script? string
---@return integer[] ids
function luaai.agents(kind_or_script) end

---The agent's tick interval k: the host ticks it every k-th host tick (1,
---every tick, unless the game set it), and its dt is then the time since
---its previous tick. Only the game sets it.
---@return integer
function luaai.interval() end

---The agent's active path, e.g. "combat.attack_player"; nil while nothing is active.
---@return string?
function luaai.state() end

---Whether a state is on the active path or paused on a stack.
---@param name_or_path string
---@return boolean
function luaai.active(name_or_path) end

---Seconds the running state has been active (game time): in `when`, the
---state being left; in `score`, the candidate's (0 if not active).
---@return number
function luaai.time() end

---The agent's own seeded random numbers, with math.random's contract.
---@param m? integer
---@param n? integer
---@return number
---@overload fun(): number
---@overload fun(m: integer): integer
---@overload fun(m: integer, n: integer): integer
function luaai.random(m, n) end

---A log line attributed to the agent and state (`luaai run` prints it).
---@param ... any
function luaai.log(...) end

-- Agents from Lua (tests, tools) -------------------------------------------

---Creates an agent from a machine or a script path (relative to the calling
---script). The top-level keys of overrides replace context defaults.
---@param def_or_path luaai.Machine|string
---@param overrides? table
---@return luaai.Agent
function luaai.spawn(def_or_path, overrides) end

-- Native conditions ----------------------------------------------------------

---True when the field is truthy. Fields may be dotted paths: "target.hp".
---@param field string
---@return luaai.Cond
function luaai.is(field) end

---True when the field equals the value (raw equality).
---@param field string
---@param value any
---@return luaai.Cond
function luaai.eq(field, value) end

---True when the field differs from the value.
---@param field string
---@param value any
---@return luaai.Cond
function luaai.ne(field, value) end

---field < n (false when the field is not a number).
---@param field string
---@param n number
---@return luaai.Cond
function luaai.lt(field, n) end

---field <= n (false when the field is not a number).
---@param field string
---@param n number
---@return luaai.Cond
function luaai.le(field, n) end

---field > n (false when the field is not a number).
---@param field string
---@param n number
---@return luaai.Cond
function luaai.gt(field, n) end

---field >= n (false when the field is not a number).
---@param field string
---@param n number
---@return luaai.Cond
function luaai.ge(field, n) end

---True when every condition is (in order, short-circuiting).
---@param ... luaai.Condition
---@return luaai.Cond
function luaai.all(...) end

---True when any condition is (in order, short-circuiting).
---@param ... luaai.Condition
---@return luaai.Cond
function luaai.any(...) end

---The negation of a condition.
---@param c luaai.Condition
---@return luaai.Cond
function luaai.non(c) end

-- Native scorers -------------------------------------------------------------

---A constant score.
---@param x number
---@return luaai.Scorer
function luaai.const(x) end

---The field as a number: numbers as they are, true 1, anything else 0.
---@param field string
---@return luaai.Scorer
function luaai.field(field) end

---1 when the condition holds, else 0.
---@param c luaai.Condition
---@return luaai.Scorer
function luaai.cond(c) end

---1 - s.
---@param s luaai.Score
---@return luaai.Scorer
function luaai.inverse(s) end

---The plain product of the scores.
---@param ... luaai.Score
---@return luaai.Scorer
function luaai.product(...) end

---The IAUS compensated product: each of n factors is lifted by
---s + (1-s)(1-1/n)s first, so long products are not punished for their length.
---@param ... luaai.Score
---@return luaai.Scorer
function luaai.compensated(...) end

---The sum of the scores.
---@param ... luaai.Score
---@return luaai.Scorer
function luaai.sum(...) end

---The smallest of the scores.
---@param ... luaai.Score
---@return luaai.Scorer
function luaai.min(...) end

---The largest of the scores.
---@param ... luaai.Score
---@return luaai.Scorer
function luaai.max(...) end

---s * w.
---@param s luaai.Score
---@param w number
---@return luaai.Scorer
function luaai.weight(s, w) end

---Maps lo..hi to 0..1, clamped (with lo == hi: 1 when s >= hi, else 0).
---@param s luaai.Score
---@param lo number
---@param hi number
---@return luaai.Scorer
function luaai.normalize(s, lo, hi) end

---s through a response curve.
---@param s luaai.Score
---@param curve luaai.Curve
---@return luaai.Scorer
function luaai.curve(s, curve) end

return luaai
