-- A small steering and state-machine simulation in the style of luaai
-- behaviours: positions, velocities and states updated with multiple
-- assignments every tick.
local function clamp(v, lo, hi) if v < lo then return lo elseif v > hi then return hi end return v end
local Agent = {}
Agent.__index = Agent
function Agent.new(name, x, y)
  return setmetatable({name = name, x = x, y = y, vx = 0, vy = 0, state = "idle", hp = 10, ticks = 0}, Agent)
end
function Agent:dist2(o) local dx, dy = o.x - self.x, o.y - self.y return dx * dx + dy * dy end
function Agent:tick(world)
  self.ticks = self.ticks + 1
  local target = world.target
  local prev, state = self.state, self.state
  if state == "idle" then
    if self:dist2(target) < 400 then state = "chase" end
  elseif state == "chase" then
    if self:dist2(target) <= 4 then state = "attack"
    elseif self.hp < 4 then state = "flee" end
  elseif state == "attack" then
    target.hp, self.hp = target.hp - 3, self.hp - 1
    if target.hp <= 0 then state = "idle"; world.target = world.spare end
    if self.hp < 4 then state = "flee" end
  elseif state == "flee" then
    self.hp = self.hp + 1
    if self.hp >= 8 then state = "idle" end
  end
  local dx, dy = clamp(target.x - self.x, -2, 2), clamp(target.y - self.y, -2, 2)
  if state == "flee" then dx, dy = -dx, -dy end
  if state == "idle" or state == "attack" then dx, dy = 0, 0 end
  self.vx, self.vy = dx, dy
  self.x, self.y = self.x + self.vx, self.y + self.vy
  self.state = state
  return prev ~= state
end
local world = {target = Agent.new("goal", 10, 6), spare = Agent.new("spare", -5, -5)}
local guard = Agent.new("guard", 0, 0)
local log = {}
for t = 1, 30 do
  if guard:tick(world) then
    log[#log + 1] = t .. ":" .. guard.state .. "@" .. guard.x .. "," .. guard.y
  end
end
print(table.concat(log, " "))
print(guard.x, guard.y, guard.hp, world.target.name, world.target.hp)
