-- Metamethods for operators: __add, __sub, __mul, __unm, __concat, __eq,
-- __lt, __le, __call, __tostring.
local V = {}
V.__index = V
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
V.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
V.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y) end
V.__mul = function(a, k)
  if type(a) == "number" then a, k = k, a end
  return vec(a.x * k, a.y * k)
end
V.__unm = function(a) return vec(-a.x, -a.y) end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__lt = function(a, b) return a.x * a.x + a.y * a.y < b.x * b.x + b.y * b.y end
V.__le = function(a, b) return not (b < a) end
V.__concat = function(a, b)
  local function s(v) return type(v) == "table" and "(" .. v.x .. "," .. v.y .. ")" or tostring(v) end
  return s(a) .. s(b)
end
V.__tostring = function(v) return "vec(" .. v.x .. ", " .. v.y .. ")" end
V.__call = function(v, dx) return vec(v.x + dx, v.y + dx) end
local a, b = vec(1, 2), vec(3, 4)
print(tostring(a + b), tostring(b - a), tostring(a * 3), tostring(2 * a), tostring(-a))
print(a == vec(1, 2), a ~= b, a < b, b <= a, a <= a)
print("v=" .. a, a .. "!", a .. b)
print(tostring(a(10)))
-- swapping vectors and their fields
a, b = b, a
print(tostring(a), tostring(b))
a.x, a.y = a.y, a.x
print(tostring(a))
-- __eq is only tried for two tables
print(vec(1, 1) == 1, rawequal(a, a))
