-- gopher-lua 1.1.2 compiles a call assigned to the last parameter in place
-- when the call is not the last expression (or is in parentheses), over the
-- locals declared after the parameter.
local t = {}
function t:f(p)
  G, p = "first", ("abc"):sub(1, 2), 0
  return G, p
end
print(t:f(1))
local function f2(p)
  local keep = "keep"
  p = string.rep("x", 3), 0
  return p, keep
end
print(f2(1))
local function f3(a, p)
  local x, y = 1, 2
  a, p = "A", tostring(5), nil
  return a, p, x, y
end
print(f3(0, 1))
local function f4(p)
  local keep = "keep"
  p = (tostring(7))
  return p, keep
end
print(f4(1))
function t:g()
  local keep = 9
  self = (setmetatable({}, nil))
  return type(self), keep
end
print(t:g())
local function f5(p, ...)
  local keep = "k"
  p = (select("#", ...))
  return p, keep, arg and arg.n
end
print(f5(1, 2, 3))
