-- `...` cut to one value for a local target: gopher-lua 1.1.2 overwrote the
-- next local or crashed.
local function f(...)
  local a, keep = 1, "keep"
  a, G = ..., 5
  return a, G, keep
end
print(f(9, 8))
local function f2(...)
  local a, keep = 1, "keep"
  a = (...)
  return a, keep
end
print(f2(9, 8))
local function f3(...)
  local a, b = 1, 2
  a, b = ..., 7
  return a, b
end
print(f3(9, 8))
local function f4(...)
  local a, b, keep = 1, 2, "k"
  a, b = (...)
  return a, b, keep
end
print(f4(9, 8))
local t = {}
local function f5(...)
  local x, keep = 1, "keep"
  x, t.y = ..., x
  return x, t.y, keep
end
print(f5(9, 8))
local function f6(...)
  local a, b = 1, 2
  local u = {}
  a, u.v, b = {...}, 3, 4
  return #a, u.v, b
end
print(f6(9, 8))
