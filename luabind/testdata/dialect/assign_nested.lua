-- Rewritten assignments inside nested functions, closures created on the
-- right-hand side of a rewritten assignment, and methods.
local function outer()
  local a, b = "a", "b"
  local get
  a, b, get = b, a, function() return a .. b end
  local function inner()
    local c, d = 1, 2
    c, d = d, c
    a, c = c, a
    return c, d
  end
  local c, d = inner()
  return a, b, c, d, get()
end
print(outer())
local obj = {x = 1, y = 2}
function obj:flip() self.x, self.y = self.y, self.x; return self end
function obj:rot(n)
  for _ = 1, n do
    local t = self
    t.x, t.y, t = t.y, -t.x, nil
  end
  return self.x, self.y
end
print(obj:flip().x, obj:rot(3))
local makers = {}
for i = 1, 3 do
  local lo, hi = i, -i
  makers[i] = function()
    lo, hi = hi, lo
    return function() lo, hi = hi + 1, lo - 1 return lo, hi end
  end
end
print(makers[2]()())
print(makers[2]()())
