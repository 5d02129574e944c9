-- Targets that are upvalues: closures swapping and stepping shared state.
local a, b = 1, 2
local function swap() a, b = b, a end
swap()
print("swap", a, b)
local x, y = 0, 0
local function step() x, y = x + 1, x + y end
for _ = 1, 5 do step() end
print("step", x, y)
-- an upvalue and a local of the closure
local shared = "s"
local function mix()
  local mine = "m"
  shared, mine = mine, shared
  return mine
end
print("mix", mix(), shared)
-- closures made in a loop each keep their own local
local fns = {}
for i = 1, 3 do
  local lo, hi = i, i * 10
  fns[i] = function()
    lo, hi = hi, lo
    return lo, hi
  end
end
for i = 1, 3 do print("loop", fns[i]()) end
print("again", fns[2]())
-- counter pairs
local function counter()
  local n, last = 0, nil
  return function(v)
    last, n = v, n + 1
    return n, last
  end
end
local c = counter()
c("a")
print("counter", c("b"))
